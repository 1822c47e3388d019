"""The trimming rule: property tests over random step sequences, hand-worked cases and the
fixtures' Goal-Step and keystep videos."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from vqakit.systems.instructionbench.importers import read_steps
from vqakit.systems.instructionbench.trim import (
    RULES,
    TrimRules,
    category_of,
    clip_closes,
    clip_ranges,
    compact_time,
    longest_run,
    needs_trimming,
    split_video,
    trim_video,
)
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "instructionbench"


def steps_from(spans: list[tuple[float, float, str]]) -> list[Step]:
    return [Step(start=s, end=e, text=f"do {c}", category=c) for s, e, c in spans]


@st.composite
def step_sequences(draw) -> list[Step]:
    """Time-ordered steps with gaps, overlaps and categories from a small pool (so runs repeat)."""
    count = draw(st.integers(0, 60))
    pool = draw(st.integers(1, 24))
    start, spans = 0.0, []
    for _ in range(count):
        start += draw(st.floats(0, 40, allow_nan=False))
        length = draw(st.floats(0, 90, allow_nan=False))
        category = str(draw(st.integers(0, pool - 1)))
        spans.append((start, start + length, category))
    return steps_from(spans)


def holds_all_four(units: list[Step]) -> bool:
    categories = [category_of(u) for u in units]
    duration = max(u.end for u in units) - units[0].start
    return (
        duration > 240
        and len(units) >= 7
        and len(set(categories)) >= 0.5 * len(units)
        and len(units) >= 0.5 * longest_run(categories)
    )


@settings(max_examples=400, deadline=None)
@given(step_sequences())
def test_clip_ranges_follow_the_rule(units):
    ranges, tail = clip_ranges(units)
    for first, last in ranges:
        clip = units[first : last + 1]
        assert holds_all_four(clip) and clip_closes(clip)
        # closed at the first step that satisfied the rule, not later
        assert not any(clip_closes(units[first : end + 1]) for end in range(first + 1, last))
    # in order; each clip starts at the step that closed the one before (shared), the first at 0
    assert [first for first, _ in ranges] == [0, *[last for _, last in ranges[:-1]]][: len(ranges)]
    assert all(first < last for first, last in ranges)
    # the tail is everything after the last clip and never met the rule
    after = ranges[-1][1] + 1 if ranges else 0
    assert tail == ((after, len(units) - 1) if after < len(units) else None)
    seed = ranges[-1][1] if ranges else 0
    assert not any(clip_closes(units[seed : end + 1]) for end in range(seed + 1, len(units)))
    # nothing lost; only the shared closing steps counted twice
    covered = [i for first, last in ranges for i in range(first, last + 1)]
    covered += list(range(tail[0], tail[1] + 1)) if tail else []
    assert sorted(set(covered)) == list(range(len(units)))
    assert len(covered) == len(units) + max(len(ranges) - 1, 0)


@settings(max_examples=200, deadline=None)
@given(step_sequences(), st.sampled_from(["goalstep", "keystep"]))
def test_trim_video_clips_match_the_ranges(units, source):
    info = VideoInfo(video_id="v", source=source, theme="t", duration=None, steps=units)
    cut = split_video(info)
    ranges, tail = clip_ranges(units)
    assert len(cut.clips) == len(ranges)
    for number, (clip, (first, last)) in enumerate(zip(cut.clips, ranges, strict=True)):
        chosen = units[first : last + 1]
        assert [(s.start, s.end, s.category) for s in clip.steps] == [
            (s.start, s.end, s.category) for s in chosen
        ]
        assert clip.start == chosen[0].start and clip.end == max(s.end for s in chosen)
        assert clip.clip_id == f"v@{compact_time(clip.start)}-{compact_time(clip.end)}"
        assert clip.extra["clip_index"] == number and clip.video_id == "v" and clip.theme == "t"
    assert len(cut.tail) == (tail[1] - tail[0] + 1 if tail else 0)
    assert info.steps == units  # the video itself is untouched


def test_hand_worked_even_steps():
    """Ten 30 s steps, all different: 8 steps make 240 s (not over), the 9th closes the clip; the
    next clip starts at that 9th step and the 10th step is a tail that is left out."""
    units = steps_from([(30.0 * i, 30.0 * i + 30, f"c{i}") for i in range(10)])
    assert clip_ranges(units) == ([(0, 8)], (9, 9))
    (clip,) = trim_video(VideoInfo(video_id="v", source="goalstep", theme="t", duration=300, steps=units))
    assert (clip.start, clip.end, clip.clip_id, len(clip.steps)) == (0.0, 270.0, "v@0-270", 9)


def test_hand_worked_no_tail_when_the_last_step_closes_a_clip():
    units = steps_from([(30.0 * i, 30.0 * i + 30, f"c{i}") for i in range(9)])
    assert clip_ranges(units) == ([(0, 8)], None)
    assert (
        split_video(VideoInfo(video_id="v", source="goalstep", theme="t", duration=None, steps=units)).tail
        == []
    )


def test_hand_worked_diversity_holds_the_clip_open():
    """Long steps but categories a a a b a b a ...: 7 steps have 2 kinds (< 3.5), so the clip
    stays open until enough kinds arrive: after c, d the 9 steps have 4 kinds (< 4.5), after e
    the 10 steps have 5 (>= 5)."""
    cats = ["a", "a", "a", "b", "a", "b", "a", "c", "d", "e", "f"]
    units = steps_from([(60.0 * i, 60.0 * i + 60, c) for i, c in enumerate(cats)])
    ranges, tail = clip_ranges(units)
    assert ranges == [(0, 9)] and tail == (10, 10)


def test_hand_worked_two_clips_share_the_closing_step():
    units = steps_from([(50.0 * i, 50.0 * i + 50, f"c{i}") for i in range(14)])
    # clip 1: steps 0-6 (350 s, 7 kinds); clip 2: steps 6-12 (7 steps, 350 s); step 13 is the tail
    assert clip_ranges(units) == ([(0, 6), (6, 12)], (13, 13))


def test_run_rule_is_measured_inside_the_clip():
    """A run can never be longer than its clip, so the fourth condition holds whenever the other
    three do: a clip of 8 with a run of 4 closes."""
    cats = ["a", "a", "a", "a", "b", "c", "d", "e"]
    units = steps_from([(40.0 * i, 40.0 * i + 40, c) for i, c in enumerate(cats)])
    assert longest_run(cats) == 4 and clip_closes(units)
    assert not clip_closes(units, TrimRules(run_share=2.1))  # the check itself is live


def test_short_or_empty_videos_make_no_clip():
    assert clip_ranges([]) == ([], None)
    short = steps_from([(10.0 * i, 10.0 * i + 10, f"c{i}") for i in range(12)])
    assert clip_ranges(short) == ([], (0, 11))
    info = VideoInfo(video_id="v", source="keystep", theme="t", duration=None, steps=short)
    cut = split_video(info)
    assert cut.clips == [] and len(cut.tail) == 12


def test_categories_fall_back_to_the_text():
    assert category_of(Step(start=0, end=1, text=" Stir  ")) == "stir"
    assert category_of(Step(start=0, end=1, text="Stir", category="Cook: stir")) == "Cook: stir"
    assert RULES.min_seconds == 240 and RULES.min_steps == 7


def test_needs_trimming_only_timed_goalstep_and_keystep():
    timed = steps_from([(0, 1, "a")])
    for source, expected in [
        ("goalstep", True),
        ("keystep", True),
        ("youcook2", False),
        ("hirest", False),
        ("table", False),
    ]:
        assert (
            needs_trimming(VideoInfo(video_id="v", source=source, theme="t", duration=None, steps=timed))
            is expected
        )
    untimed = VideoInfo(
        video_id="v",
        source="goalstep",
        theme="t",
        duration=None,
        steps=[Step(start=None, end=None, text="x")],
    )
    assert not needs_trimming(untimed)


def test_goalstep_fixture_clips_keep_their_substeps():
    bread = read_steps(FIXTURES / "goalstep_train.json").videos[0]
    cut = split_video(bread)
    assert [c.clip_id for c in cut.clips] == [
        f"{bread.video_id}@2.95-291.82",
        f"{bread.video_id}@282.24-715.5",
    ]
    first, second = cut.clips
    assert (
        len(first.steps) == 7 and len(first.steps[4].children) == 3 and first.steps[4].children[0].level == 1
    )
    assert first.steps[-1].text == second.steps[0].text == "Divides the dough with the dough divider."
    assert [s.text for s in cut.tail] == ["Wipes the table", "Puts the tray in the oven"]
    assert first.duration == bread.duration and first.perspective == "first"
    assert trim_video(read_steps(FIXTURES / "goalstep_train.json").videos[1]) == []  # 200 s: no clip


def test_keystep_fixture_trims_leaves_and_narrows_groups():
    take = read_steps(FIXTURES / "keystep_train.json").videos[0]
    cut = split_video(take)
    (clip,) = cut.clips
    assert clip.clip_id == f"{take.video_id}@0.86-260"
    assert [(s.text, s.start, s.end) for s in clip.steps][-1] == ("Testing", 230.0, 260.0)  # shrunk from 275
    assert len([s for s in clip.flat_steps() if not s.children]) == 11
    assert clip.steps[1].children[3].children[0].level == 2  # the deep leaf keeps its groups
    assert [s.text for s in cut.tail] == ["Add drops of solution onto the card"]
    assert take.steps[-1].end == 275.0  # the video itself is untouched


def test_compact_times():
    assert [compact_time(t) for t in (0.0, 12.0, 81.10459, 0.0210286, 240.006)] == [
        "0",
        "12",
        "81.1",
        "0.02",
        "240.01",
    ]
