from __future__ import annotations

import pytest

from vqakit.schema import find_objects, find_times, parse_clock, parse_trace


@pytest.mark.parametrize(
    ("text", "seconds"),
    [("0:05", 5), ("01:23", 83), ("1:02:03", 3723), ("00:00:07.5", 7.5), ("12:00", 720)],
)
def test_clock(text, seconds):
    assert parse_clock(text) == seconds


@pytest.mark.parametrize(
    ("text", "times"),
    [
        ("at 00:12 I open the fridge", [(12, 12)]),
        ("from 01:05-01:12 and 1:20 to 1:31", [(65, 72), (80, 91)]),
        ("between 00:03 – 00:04", [(3, 4)]),
        ("between 00:07 and 00:08 I open it", [(7, 8)]),
        ("from 1:00 until 1:30, then at 2:00", [(60, 90), (120, 120)]),
        ("at 1:02:03 the pan", [(3723, 3723)]),
        ("the ratio 3:4 is not a time, 12:345 neither", []),
        ("no times here", []),
    ],
)
def test_find_times(text, times):
    assert find_times(text) == times


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("I pick up knife-2c3afc468fb10cb2 at 00:10", ["knife-2c3afc468fb10cb2"]),
        ('the "chopping board-0123456789abcdef" is wet', ["chopping board-0123456789abcdef"]),
        ("(left half of apple-aaaaaaaaaaaaaaaa)", ["left half of apple-aaaaaaaaaaaaaaaa"]),
        ("pan-lid-1111111111111111 then pan-lid-1111111111111111 again", ["pan-lid-1111111111111111"]),
        ("not an id: knife-2c3afc468fb10cb2x or cup-123", []),
        ("mug-ABCDEF0123456789 upper-case hex is not an id", []),
    ],
)
def test_find_objects(text, ids):
    assert [ref.id for ref in find_objects(text)] == ids


def test_parse_trace_steps():
    trace = (
        "1. At 00:05 I take knife-2c3afc468fb10cb2 from the drawer.\n"
        '2. From 00:10 to 00:20 I cut "red pepper-00000000000000aa" with knife-2c3afc468fb10cb2.\n'
        "3) So the answer is the knife."
    )
    steps = parse_trace(trace)
    assert [s.number for s in steps] == [1, 2, 3]
    assert steps[0].times_s == [(5, 5)]
    assert [o.name for o in steps[1].objects] == ["red pepper", "knife"]
    assert steps[1].times_s == [(10, 20)]
    assert steps[2].objects == [] and steps[2].text == "So the answer is the knife."


def test_unnumbered_trace_is_one_step():
    steps = parse_trace("I look at 00:03 and see cup-0000000000000001.")
    assert len(steps) == 1 and steps[0].number == 1 and steps[0].objects[0].hex == "0000000000000001"
