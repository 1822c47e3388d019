from __future__ import annotations

import time

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
        ("the ratio 3:4 is not a time, 12:345 neither, nor 12:75", []),
        ("no times here", []),
        ("00:05-00:10", [(5, 10)]),
        ("00:05 - 00:10", [(5, 10)]),
        ("00:05 — 00:10 and 1:00:00 - 1:00:05", [(5, 10), (3600, 3605)]),
        ("01:02:03–01:02:09", [(3723, 3729)]),
        ("between 0:59:50 and 1:00:10", [(3590, 3610)]),
        ("from 00:31 to 00:43.", [(31, 43)]),
        ("at 5:24 and 5:48 two moments", [(324, 324), (348, 348)]),
        ("at 00:07.5 exactly", [(7.5, 7.5)]),
        # parsed since the bounded rewrite (before: nothing, or two single times)
        ("At 00:48: the user lifts it", [(48, 48)]),
        ("1. 00:05-00:10: I open the fridge", [(5, 10)]),
        ("from [01:58] to [02:04] and [02:10] - [02:12]", [(118, 124), (130, 132)]),
        (
            "00:05 until 00:09, 00:10 through 00:20, 00:21 -> 00:25, 00:30~00:35",
            [(5, 9), (10, 20), (21, 25), (30, 35)],
        ),
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
        ("the second knife ('knife2-067f49caca9d1aff')", ["knife2-067f49caca9d1aff"]),
        ("the flask (’flask-9fb1d013fbbfb9ed’)", ["flask-9fb1d013fbbfb9ed"]),
        ("the user's (knife-2c3afc468fb10cb2) blade", ["knife-2c3afc468fb10cb2"]),  # not "s (knife"
        ("a ‘wooden spoon-0000000000000abc’", ["wooden spoon-0000000000000abc"]),
    ],
)
def test_find_objects(text, ids):
    assert [ref.id for ref in find_objects(text)] == ids


@pytest.mark.parametrize(
    ("trace", "times", "names", "last"),
    [
        (  # numbers at line starts
            "1. At 00:05 I take knife-2c3afc468fb10cb2 from the drawer.\n"
            '2. From 00:10 to 00:20 I cut "red pepper-00000000000000aa" with knife-2c3afc468fb10cb2.\n'
            "3) So the answer is the knife.",
            [[(5, 5)], [(10, 20)], []],
            [["knife"], ["red pepper", "knife"], []],
            "So the answer is the knife.",
        ),
        (  # numbers inside one paragraph: a step where the count goes on after a sentence end;
            # "I count 2. Then" and an out-of-sequence "4." start no step
            "1. At 00:59 the user loads the first knife ('knife-2c3afc468fb10cb2'). 2. At 03:06 I count 2. "
            "Then at 04:39 the user fills the flask (’flask-9fb1d013fbbfb9ed’). 4. Wrong number. "
            "3. At 05:50 the second knife ('knife2-067f49caca9d1aff') goes in.",
            [[(59, 59)], [(186, 186), (279, 279)], [(350, 350)]],
            [["knife"], ["flask"], ["knife2"]],
            "At 05:50 the second knife ('knife2-067f49caca9d1aff') goes in.",
        ),
    ],
)
def test_parse_trace_steps(trace, times, names, last):
    steps = parse_trace(trace)
    assert [s.number for s in steps] == [1, 2, 3]
    assert [s.times_s for s in steps] == times
    assert [[o.name for o in s.objects] for s in steps] == names
    assert steps[-1].text == last


def test_unnumbered_trace_is_one_step():
    steps = parse_trace("I look at 00:03 and see cup-0000000000000001.")
    assert len(steps) == 1 and steps[0].number == 1 and steps[0].objects[0].hex == "0000000000000001"


def test_prose_paragraph_is_one_step():
    trace = "I start at 01:57; from 02:07 to 02:11 the cup fills, and between 2:13 and 2:16 it spills."
    (step,) = parse_trace(trace)
    assert step.number == 1 and step.times_s == [(117, 117), (127, 131), (133, 136)]


@pytest.mark.parametrize(
    "text",
    [
        "(" * 30000 + "-0123456789abcdef",  # was quadratic in the quoted-object pattern (30-50 s)
        "'" * 30000 + "-0123456789abcdef",
        "(a b-0123456789abcdef) b-0123456789abcdef " * 3000,
        "between 00:01 and 00:02 00:03 " * 3000,
        "a-" * 30000,
        "\n" * 30000 + "x",
        ". 1" * 30000,
        "00:00 " * 10000,
    ],
)
def test_reading_stays_linear(text):
    started = time.perf_counter()
    find_objects(text)
    find_times(text)
    parse_trace(text)
    assert time.perf_counter() - started < 3.0
