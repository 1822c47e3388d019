"""Video probing, exact frame sampling, subtitles and segmentation (PyAV)."""

from vqakit.schema import Fps, SamplingSpec, Timestamps, Uniform, parse_sampling, sample_times
from vqakit.video._clip import Clip, clip_rate, cut_clip, cut_window, encode_images
from vqakit.video._decode import Frame, decode_frames
from vqakit.video._errors import VideoError
from vqakit.video._export import write_frames
from vqakit.video._frame_store import FrameStore, Sampled, default_store_path, frame_key, parse_size
from vqakit.video._hints import Mark, box_at, describe_marks, draw_marks, marks_at, parse_style, select_times
from vqakit.video._identity import content_digest
from vqakit.video._image_files import MAX_IMAGE_PIXELS, check_image_file, image_size, read_image
from vqakit.video._index import FrameIndex, frame_index
from vqakit.video._media import VideoMediaChecker
from vqakit.video._probe import VideoInfo, duration_s, probe, remember_duration
from vqakit.video._resize import Resize
from vqakit.video._sampling import picked_frames, sample_frames
from vqakit.video._scenes import ImageEmbedder, Shot, detect_shots, merge_shots, shot_distances
from vqakit.video._segment import fixed_windows
from vqakit.video._strip import STRIP_HEIGHT, image_strip, strip_jpeg, write_strip
from vqakit.video._subtitles import (
    Cue,
    cues_between,
    cut_cues,
    decode_subtitles,
    parse_subtitles,
    read_subtitles,
)
from vqakit.video._synthetic import draw_index, read_frame_index, write_index_clip

__all__ = [
    "MAX_IMAGE_PIXELS",
    "STRIP_HEIGHT",
    "Clip",
    "Cue",
    "Fps",
    "Frame",
    "FrameIndex",
    "FrameStore",
    "ImageEmbedder",
    "Mark",
    "Resize",
    "Sampled",
    "SamplingSpec",
    "Shot",
    "Timestamps",
    "Uniform",
    "VideoError",
    "VideoInfo",
    "VideoMediaChecker",
    "box_at",
    "check_image_file",
    "clip_rate",
    "content_digest",
    "cues_between",
    "cut_clip",
    "cut_cues",
    "cut_window",
    "decode_frames",
    "decode_subtitles",
    "default_store_path",
    "describe_marks",
    "detect_shots",
    "draw_index",
    "draw_marks",
    "duration_s",
    "encode_images",
    "fixed_windows",
    "frame_index",
    "frame_key",
    "image_size",
    "image_strip",
    "marks_at",
    "merge_shots",
    "parse_sampling",
    "parse_size",
    "parse_style",
    "parse_subtitles",
    "picked_frames",
    "probe",
    "read_frame_index",
    "read_image",
    "read_subtitles",
    "remember_duration",
    "sample_frames",
    "sample_times",
    "select_times",
    "shot_distances",
    "strip_jpeg",
    "write_frames",
    "write_index_clip",
    "write_strip",
]
