"""benchmarks/conformance.py over the shipped examples: for each preset and MINERVA, vqakit's
reading and table of a run's replies (readable, unreadable, hedged and malformed, served by the
scripted loopback server, a test double at the HTTP boundary) against lmms-eval 0.7.3's own task
code for that benchmark, and against the benchmark's official script where a checkout is named
in VQAKIT_CONFORMANCE_OFFICIAL (`nextqa=DIR,mlvu=DIR`; their code is never part of vqakit).

Every difference must be a named choice, and each reference's own numbers must equal vqakit's
table computed from that reference's verdicts: the references then differ from vqakit in how a
reply is read, never in what is counted or how the table is made."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SCRIPT = ROOT / "benchmarks" / "conformance.py"
PRESETS = [
    "videomme", "mvbench", "egoschema", "nextqa", "perceptiontest", "longvideobench", "mlvu", "minerva-mcq",
]  # fmt: skip
FORMS = 13


@pytest.fixture(scope="module")
def figures() -> dict[str, dict]:
    pytest.importorskip("lmms_eval", reason="the peers extra (CI installs it)")
    command = [sys.executable, str(SCRIPT), "--json", "--presets", ",".join(PRESETS)]
    for given in filter(None, os.environ.get("VQAKIT_CONFORMANCE_OFFICIAL", "").split(",")):
        command += ["--official", given]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(command, capture_output=True, text=True, timeout=1500, env=env)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-3000:]
    return {found["preset"]: found for found in json.loads(done.stdout)}


@pytest.mark.slow
def test_every_preset_is_scored_by_vqakit_and_lmms_eval_on_the_same_replies(figures):
    assert list(figures) == PRESETS
    for preset, found in figures.items():
        assert found["samples"] == found["questions"] * FORMS and found["questions"] >= 2, preset
        names = [reference["name"] for reference in found["references"]]
        assert names[0].startswith("lmms-eval 0.7"), (preset, names)
        assert found["vqakit"]["headline"] is not None, preset


@pytest.mark.slow
def test_every_difference_is_a_named_choice(figures):
    unexplained = [
        (preset, cause["reference"], cause["form"], cause["direction"], cause["samples"])
        for preset, found in figures.items()
        for cause in found["causes"]
        if cause["reason"] == "unexplained"
    ]
    assert unexplained == []
    # bare letters are read alike by every reader: no difference there, whatever the benchmark
    forms = {cause["form"] for found in figures.values() for cause in found["causes"]}
    assert not forms & {"letter", "another letter"}


@pytest.mark.slow
def test_references_count_and_tabulate_as_vqakit_does(figures):
    for preset, found in figures.items():
        for reference in found["references"]:
            assert reference["columns_compared"] >= 1, (preset, reference["name"])
            assert reference["columns_equal"] == reference["columns_compared"], (preset, reference)


@pytest.mark.slow
def test_random_picks_are_told_apart_from_readings(figures):
    """Where lmms-eval's task code picks a random letter for a reply it cannot read (NExT-QA,
    EgoSchema, LongVideoBench, MINERVA), those samples are counted apart, never as agreement."""
    for preset in ("nextqa", "egoschema", "longvideobench", "minerva-mcq"):
        peer = figures[preset]["references"][0]
        assert peer["random"] > 0 and peer["scored"] == peer["total"] - peer["random"], (preset, peer)
    for preset in ("videomme", "mvbench", "perceptiontest", "mlvu"):
        assert figures[preset]["references"][0]["random"] == 0, preset
