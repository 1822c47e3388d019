"""Does a vqakit number mean what the benchmark's own code, and lmms-eval, mean by it? For each
preset (the seven standard benchmarks and MINERVA), the same replies scored three ways.

    python benchmarks/conformance.py                          # every preset, vqakit and lmms-eval
    python benchmarks/conformance.py --presets nextqa,mlvu    # some
    python benchmarks/conformance.py --official nextqa=~/src/NExT-QA --official mlvu=~/src/MLVU
    python benchmarks/conformance.py --json                   # one JSON object

Each preset's shipped example (docs/examples/datasets/) is imported by the preset; every
question with a known answer is asked once per reply form (`conformance_bench.FORMS`: readable,
unreadable, hedged and malformed replies), answered by the scripted loopback server, and run by
vqakit (`vqakit eval`, its answer reading, its results.json and the benchmark's own table).
The same replies are then scored by lmms-eval 0.7.3's task code for that benchmark
(`conformance_peers`), and by the benchmark's official script where one exists, runs offline
and its checkout is given with `--official NAME=PATH` (`conformance_official`: NExT-QA,
Video-MME, MVBench, MLVU; nothing of it is copied into vqakit).

Printed per preset: samples, per-sample agreement with each reference (also counted over the
samples the reference scores deterministically: a random pick for an unreadable reply is not a
reading), vqakit's headline beside each reference's, whether the reference's own numbers equal
vqakit's table computed from the reference's verdicts, and every disagreement grouped by its
reply form and direction, each with the reason: what the reference did (a random pick, a reply
left out: not copied) and how vqakit reads that reply and why (`CHOICES`). A disagreement in a
form with no reason (a bare letter) is listed as unexplained; the exit status is 1 then.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from conformance_bench import FORMS, RELEASES, build, run_vqakit
from conformance_peers import Reference, lmms_eval_reference

# Why vqakit reads each reply form as it does: a named choice for every disagreement it makes.
CHOICES = {
    "option text": "vqakit reads a reply that restates exactly one option's text as that option",
    "letter and text": "vqakit reads the label opening the reply ('B. the knife' is B)",
    "reasoning, then answer": "vqakit reads the final 'Answer: B' after the reasoning",
    "sentence": "vqakit reads an answer stated in a sentence ('The answer is (B).'); a reader that takes the "
    "reply's first word does not",
    "answer tag": "vqakit reads an answer in a pair of answer tags ('<answer>B</answer>')",
    "unreadable": "a reply naming no option is an abstention in vqakit, counted wrong",
    "article": "'A man opens the door ...' names no option: the A is an article, an abstention in vqakit",
    "hedged": "a letter mentioned in doubt ('I think it is B, but I am not sure') is no committed answer in "
    "vqakit: an abstention, counted wrong",
    "two answers": "an answer naming two options ('Final answer: B (or C)') is an abstention in vqakit",
    "withdrawn": "an answer taken back ('(B) seems possible. Final answer: I cannot tell') is an "
    "abstention in vqakit",
    "malformed tag": "an answer in tags that do not pair up ('<answer>B</answr>') is an abstention in vqakit",
}
RANDOM = "the reference reads no letter from it and picks one at random (not copied)"
LEFT_OUT = "the reference reads no letter from it and leaves it out of its accuracy (not copied)"
TITLES = {
    "videomme": "Video-MME",
    "mvbench": "MVBench",
    "egoschema": "EgoSchema",
    "nextqa": "NExT-QA",
    "perceptiontest": "Perception Test",
    "longvideobench": "LongVideoBench",
    "mlvu": "MLVU",
    "minerva-mcq": "MINERVA",
}
TOLERANCE = 0.0006  # official scripts print percentages with one or two decimals


def _columns_equal(reference: Reference, official: dict[str, Any], card: Any) -> tuple[int, int]:
    """(equal, compared): the reference's headline and breakdown against a table computed as
    vqakit's (`official`), a column of the reference matched by name, or by the one key a column
    of the table reads."""
    from conformance_peers import MLVU_TASKS

    ours = {column["name"]: column.get("accuracy") for column in official["columns"]}
    for column in card.columns if card else []:
        if column.keys and (
            len(column.keys) == 1 or {MLVU_TASKS.get(k, k) for k in column.keys} == {"needle"}
        ):
            for key in column.keys:
                ours.setdefault(MLVU_TASKS.get(key, key), ours.get(column.name))
    compared = [
        (value, ours[name]) for name, value in reference.columns.items() if ours.get(name) is not None
    ]
    if reference.headline is not None:
        compared.append((reference.headline, ours[official["headline"]]))
    return sum(abs(a - b) <= TOLERANCE for a, b in compared), len(compared)


def _their_table(reference: Reference, samples: list[Any], card: Any) -> dict[str, Any]:
    """vqakit's table computed from the reference's own verdicts (its left-out replies left
    out): where it equals the reference's numbers, the two differ in reading only."""
    from vqakit.scoring import official_results

    rows = [
        {"sample_id": s.id, "mcq": True, "correct": reference.outcomes[s.id].correct}
        for s in samples
        if reference.outcomes[s.id].correct is not None
    ]
    return official_results(card, {s.id: s for s in samples}, rows)


def compare(preset: str, work: Path, official: dict[str, Path]) -> dict[str, Any]:
    """vqakit and its references on one preset's replies: the figures `main` prints. `same`:
    how many of a reference's numbers (headline, breakdown) equal vqakit's table computed from
    the reference's own verdicts (where they all do, the two differ in reading only)."""
    from conformance_official import RUNNERS

    from vqakit.schema import load_folder

    bench, cases = build(preset, work)
    rows, results = run_vqakit(bench, work / "run", cases)
    benchmark = load_folder(bench)
    samples = [s for s in benchmark.samples if s.id in rows]
    replies = {sample_id: case.reply for sample_id, case in cases.items()}
    references = [lmms_eval_reference(preset, samples, replies)]
    if preset in official and preset in RUNNERS:
        references.append(RUNNERS[preset](official[preset], samples, replies, rows))
    table = results["official"]
    head = next(c for c in table["columns"] if c["name"] == table["headline"])
    found: dict[str, Any] = {
        "preset": preset,
        "title": TITLES[preset],
        "samples": len(samples),
        "questions": len(samples) // len(FORMS),
        "forms": len(FORMS),
        "vqakit": {"headline": head["accuracy"], "name": head["name"], "mcq": results["mcq"]["accuracy"]},
        "references": [],
        "causes": [],
    }
    causes: dict[tuple[str, str, str], list[str]] = defaultdict(list)
    for reference in references:
        agree = deterministic = scored = random_picks = left_out = 0
        for sample in samples:
            ours, theirs = rows[sample.id]["correct"], reference.outcomes[sample.id]
            same = theirs.correct is not None and bool(theirs.correct) == bool(ours)
            agree += same
            random_picks += theirs.random
            left_out += theirs.correct is None
            if not theirs.random:
                scored += 1
                deterministic += same
            if not same:
                direction = (
                    "random"
                    if theirs.random
                    else "left out"
                    if theirs.correct is None
                    else "reference right, vqakit wrong"
                    if theirs.correct
                    else "vqakit right, reference wrong"
                )
                causes[(reference.name, cases[sample.id].form, direction)].append(sample.id)
        equal, compared = _columns_equal(
            reference, _their_table(reference, samples, benchmark.card.official), benchmark.card.official
        )
        found["references"].append(
            {
                "name": reference.name,
                "agree": agree,
                "total": len(samples),
                "deterministic": deterministic,
                "scored": scored,
                "random": random_picks,
                "left_out": left_out,
                "headline": reference.headline,
                "headline_name": reference.headline_name,
                "columns_equal": equal,
                "columns_compared": compared,
                "note": reference.note,
            }
        )
    for (name, form, direction), ids in sorted(causes.items()):
        reference_did = {"random": RANDOM, "left out": LEFT_OUT}.get(direction)
        ours = CHOICES.get(form)
        reason = "; ".join(filter(None, [reference_did, ours])) if ours or reference_did else None
        found["causes"].append(
            {
                "reference": name,
                "form": form,
                "direction": direction,
                "count": len(ids),
                "samples": ids[:4],
                "reason": reason or "unexplained",
            }
        )
    return found


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.2f}%"


def report(found: dict[str, Any]) -> str:
    """One preset's figures for people: the references, then the differences by cause."""
    vq = found["vqakit"]
    lines = [
        f"== {found['title']} ({found['preset']}): {found['samples']} samples, {found['questions']} "
        f"questions x {found['forms']} reply forms; vqakit's {vq['name']}: {_percent(vq['headline'])}",
        f"   {'reference':<31} {'agree':>9} {'determ.':>9} {'random':>6} {'out':>4}  {'headline':<34} same",
    ]
    for ref in found["references"]:
        headline = (
            f"{_percent(ref['headline'])} ({ref['headline_name']})" if ref["headline"] is not None else "-"
        )
        same = f"{ref['columns_equal']}/{ref['columns_compared']}" if ref["columns_compared"] else "-"
        agree, determined = f"{ref['agree']}/{ref['total']}", f"{ref['deterministic']}/{ref['scored']}"
        lines.append(
            f"   {ref['name']:<31} {agree:>9} {determined:>9} {ref['random']:>6} {ref['left_out']:>4}  "
            f"{headline:<34} {same}"
        )
        if ref["note"]:
            lines.append(f"     {ref['name']}: {ref['note']}")
    for cause in found["causes"]:
        shown = ", ".join(cause["samples"]) + (" ..." if cause["count"] > len(cause["samples"]) else "")
        lines.append(f"   - {cause['reference']} · {cause['form']} · {cause['direction']} x{cause['count']}")
        lines.append(f"     {cause['reason']} ({shown})")
    unexplained = sum(cause["count"] for cause in found["causes"] if cause["reason"] == "unexplained")
    lines.append(f"   unexplained differences: {unexplained}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--presets", default=",".join(RELEASES), help="comma-separated presets (default: all)"
    )
    parser.add_argument(
        "--official",
        action="append",
        default=[],
        metavar="NAME=PATH",
        help="a checkout of a benchmark's own evaluation code (nextqa, videomme, mvbench, mlvu)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    official = {}
    for given in args.official:
        name, _, path = given.partition("=")
        official[name] = Path(path).expanduser()
    chosen = [name.strip() for name in args.presets.split(",") if name.strip()]
    unknown = [name for name in chosen if name not in RELEASES]
    if unknown:
        parser.error(f"unknown preset {unknown[0]!r}; choose from {', '.join(RELEASES)}")
    everything = []
    with tempfile.TemporaryDirectory() as folder:
        os.environ["VQAKIT_CACHE_DIR"] = str(Path(folder) / "cache")  # nothing from the user's cache
        os.environ["HF_HOME"] = str(Path(folder) / "hf")  # lmms-eval's task modules read it on import
        for name in chosen:
            found = compare(name, Path(folder) / name, official)
            everything.append(found)
            if not args.json:
                print(report(found), flush=True)
    if args.json:
        print(json.dumps(everything))
    if any(cause["reason"] == "unexplained" for found in everything for cause in found["causes"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
