"""MVBench (`vqakit import mvbench`): the Hugging Face release as downloaded.

```
MVBench/
  json/<task>.json                        20 files: video, question, candidates, answer (the
                                          option's text), start and end for some tasks
  video/<task folder>/...                 each task's videos in its own folder: give video/ as --videos
```

The task table (file, folder, kind, whether a window applies) is the official notebook's. The
five tasks it bounds (action sequence, action prediction, object interaction, action
localization, episodic reasoning) use their `start`/`end` window, as the official loader does;
the others see the whole clip. Episodic reasoning ships frame folders
(`tvqa/frames_fps3_hq/<clip>/00001.jpg ...`, 3 frames per second): each folder is encoded once
into an MP4 at 3 fps (kept in the vqakit cache), frame `00001.jpg` at 0 s, so windows keep their
meaning within a third of a second.
Answers are the option's text and are matched to the candidates. Results break down by task.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from vqakit.files import InputError
from vqakit.systems.presets.release import import_release, release_records, rows_source
from vqakit.tables import ImportHooks, Preset, TableImport, register_preset

# task -> (json file, folder under video/, frames in folders?, windowed?)
TASKS = {
    "Action Sequence": ("action_sequence.json", "star/Charades_v1_480", False, True),
    "Action Prediction": ("action_prediction.json", "star/Charades_v1_480", False, True),
    "Action Antonym": ("action_antonym.json", "ssv2_video", False, False),
    "Fine-grained Action": ("fine_grained_action.json", "Moments_in_Time_Raw/videos", False, False),
    "Unexpected Action": ("unexpected_action.json", "FunQA_test/test", False, False),
    "Object Existence": ("object_existence.json", "clevrer/video_validation", False, False),
    "Object Interaction": ("object_interaction.json", "star/Charades_v1_480", False, True),
    "Object Shuffle": ("object_shuffle.json", "perception/videos", False, False),
    "Moving Direction": ("moving_direction.json", "clevrer/video_validation", False, False),
    "Action Localization": ("action_localization.json", "sta/sta_video", False, True),
    "Scene Transition": ("scene_transition.json", "scene_qa/video", False, False),
    "Action Count": ("action_count.json", "perception/videos", False, False),
    "Moving Count": ("moving_count.json", "clevrer/video_validation", False, False),
    "Moving Attribute": ("moving_attribute.json", "clevrer/video_validation", False, False),
    "State Change": ("state_change.json", "perception/videos", False, False),
    "Fine-grained Pose": ("fine_grained_pose.json", "nturgbd", False, False),
    "Character Order": ("character_order.json", "perception/videos", False, False),
    "Egocentric Navigation": ("egocentric_navigation.json", "vlnqa", False, False),
    "Episodic Reasoning": ("episodic_reasoning.json", "tvqa/frames_fps3_hq", True, True),
    "Counterfactual Inference": ("counterfactual_inference.json", "clevrer/video_validation", False, False),
}
FRAME_RATE = 3.0  # frames per second of the frame-folder tasks
FRAME_SUFFIXES = (".jpg", ".jpeg", ".png")


def frames_video(found: Path, relative: str) -> Path:
    """A folder of frames as an MP4 at FRAME_RATE (made once, kept in the vqakit cache); a video
    file as it is. Every frame's size is read from its header before any is decoded: a frame
    that is no image, or claims more pixels than any frame (`vqakit.video.image_size`), is a
    VideoError naming that frame, which leaves out the questions of this folder only."""
    if not found.is_dir():
        return found
    from vqakit.models import default_cache_path
    from vqakit.video import encode_images

    frames = sorted(p for p in found.iterdir() if p.suffix.lower() in FRAME_SUFFIXES)
    if not frames:
        return found  # not a video: listed as missing
    stamp = "|".join([str(found.resolve()), str(len(frames)), str(max(p.stat().st_mtime_ns for p in frames))])
    target = (
        default_cache_path().parent
        / "frame-videos"
        / f"{hashlib.sha256(stamp.encode()).hexdigest()[:24]}.mp4"
    )
    if not target.is_file():
        import av

        from vqakit.video import VideoError, image_size, read_image

        for path in frames:
            image_size(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.stem}.{os.getpid()}.part.mp4")
        try:
            encode_images((read_image(path) for path in frames), FRAME_RATE, partial)
            partial.replace(target)
        except av.FFmpegError as error:
            raise VideoError(found, f"cannot encode its frames as a video ({error})") from None
        finally:
            partial.unlink(missing_ok=True)
    return target


def import_mvbench(release: Path, videos: Path, out: Path, split: str | None = None) -> TableImport:
    folder = release / "json" if (release / "json").is_dir() else release
    rows, problems = [], []
    for task, (file, video_folder, _frames, windowed) in TASKS.items():
        path = folder / file
        if not path.exists():
            continue
        try:
            records, bad = release_records(path)
        except InputError as error:  # one task's file cannot be read: the others still can
            problems.append(str(error))
            continue
        problems += bad
        for number, record in records:
            row = {**record, "task": task, "task_key": file.removesuffix(".json"), "folder": video_folder}
            row["number"] = number
            row["window_start"] = record.get("start") if windowed else None
            row["window_end"] = record.get("end") if windowed else None
            rows.append((path, number, row))
    if not rows and not problems:
        raise InputError(
            f"{folder}: none of MVBench's task files ({', '.join(t[0] for t in TASKS.values())})"
        )
    source = rows_source(folder, rows, problems=problems)
    return import_release("mvbench", source, videos, out, hooks=ImportHooks(video=frames_video))


PRESET = register_preset(
    Preset(
        name="mvbench",
        title="MVBench",
        summary="json/<task>.json of the Hugging Face release plus its video/ folder (frame folders encoded)",
        run=import_mvbench,
        homepage="https://huggingface.co/datasets/OpenGVLab/MVBench",
    )
)
