"""Video probing, exact frame sampling, subtitles and segmentation (PyAV)."""

from vqakit.lazy import lazy_exports

__getattr__, __dir__, __all__ = lazy_exports(
    __name__,
    {
        "vqakit.schema": "Fps SamplingSpec Timestamps Uniform parse_sampling sample_times",
        "_clip": "Clip clip_rate cut_clip cut_window encode_images",
        "_decode": "Frame decode_frames decode_starts",
        "_errors": "VideoError",
        "_export": "write_frames",
        "_frame_store": "FrameStore Sampled default_store_path frame_key parse_size",
        "_hints": "Mark box_at describe_marks draw_marks marks_at parse_style select_times",
        "_identity": "content_digest",
        "_index": "FrameIndex built_frame_index frame_index",
        "_media": "VideoMediaChecker",
        "_probe": "VideoInfo duration_s probe remember_duration",
        "_resize": "Resize",
        "_sampling": "picked_frames sample_frames",
        "_scenes": "ImageEmbedder Shot detect_shots merge_shots shot_distances",
        "_segment": "fixed_windows",
        "_strip": "STRIP_HEIGHT image_strip strip_jpeg write_strip",
        "_subtitles": "Cue cues_between cut_cues decode_subtitles parse_subtitles read_subtitles",
        "_synthetic": "draw_index read_frame_index write_index_clip",
        "_image_files": "MAX_IMAGE_PIXELS check_image_file image_size read_image",
    },
)
