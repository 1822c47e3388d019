"""`hints`: `direct` with spatio-temporal hints from the sample's object tracks.

With `temporal` in the style, frame times come from `select_times` (where the tracked objects
are, then uniform); otherwise from the protocol's frame spec. Each frame gets the marks of the
objects present at its time, drawn (`box`, `circle`, `classes`) or, with `text`, written as a
line before the frame. Samples without tracks get plain frames, so the method runs on any
benchmark.
"""

from __future__ import annotations

from vqakit.methods._base import MethodContext, method
from vqakit.methods._direct import _ask, _window_spec
from vqakit.schema import Prediction, Sample, Timestamps, Uniform


def hinted_parts(sample: Sample, context: MethodContext) -> tuple[list, list[float]]:
    from vqakit.models import Frames, Image, Text, clock
    from vqakit.video import (
        Resize,
        describe_marks,
        draw_marks,
        frame_index,
        marks_at,
        parse_style,
        sample_frames,
    )
    from vqakit.video import probe as probe_video

    style = parse_style(context.options.get("hints", "circle+classes+temporal"))
    path = context.root / sample.videos[0].path
    tracks = [t for t in sample.objects if t.video == 0]
    spec = _window_spec(sample, context.protocol.frames)
    if "temporal" in style and tracks:
        from vqakit.video import select_times

        budget = spec.n if isinstance(spec, Uniform) else 16
        spec = Timestamps(
            tuple(select_times(tracks, frame_index(path).duration_s, budget, root=context.root))
        )
    resize = Resize(short_side=context.protocol.short_side) if context.protocol.short_side else None
    frames = sample_frames(path, spec, resize=resize)
    times = [f.time_s for f in frames]
    if not frames:
        return [], []
    source = probe_video(path).display_size
    if "text" in style:
        parts: list = []
        for frame in frames:
            marks = marks_at(tracks, frame.time_s, context.root)
            line = f"{clock(frame.time_s)} {describe_marks(marks)}" if marks else clock(frame.time_s)
            parts += [Text(line), Image(frame.image)]
        return parts, times
    images = tuple(
        draw_marks(f.image, marks_at(tracks, f.time_s, context.root), style, source) for f in frames
    )
    return [Frames(images, tuple(times), label_times=True)], times


@method("hints", needs_model=True)
async def hints(sample: Sample, context: MethodContext) -> Prediction:
    return await _ask(sample, context, "hints", hinted_parts)
