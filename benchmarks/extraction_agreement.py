"""How often vqakit's answer extraction agrees with the labelled cases, per class of reply.

    python benchmarks/extraction_agreement.py                      # this checkout
    python benchmarks/extraction_agreement.py --compare-src OLD/src  # and another one beside it
    python benchmarks/extraction_agreement.py --peer               # and lmms-eval's parser
    python benchmarks/extraction_agreement.py --json               # one JSON object

The cases are tests/scoring/extraction_cases.yaml: a reply, its option count (and option texts,
numbered or sparse labels where given) and the label it chose, or null where the reply chose
none. A case agrees when the extracted label is the expected one (an abstention agrees only with
null); the deciding rule is not compared here (the test suite checks it). Cases carry a `class`
(the shapes of one audit finding); those without one are class `base`.

`--compare-src` runs the same cases against the `vqakit` package found under another source
folder, e.g. main before a change:

    mkdir /tmp/before && git archive HEAD src | tar -x -C /tmp/before
    python benchmarks/extraction_agreement.py --compare-src /tmp/before/src

An extractor that raises on a case (an option count it does not accept) disagrees on it.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import string
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "scoring" / "extraction_cases.yaml"
LETTERS = string.ascii_uppercase


def load_cases(path: Path = CASES) -> list[dict]:
    return yaml.safe_load(path.read_text("utf-8"))


def outcomes(cases: list[dict]) -> list[bool]:
    """Whether the installed (or PYTHONPATH) extractor agrees with each case."""
    from vqakit.scoring import extract_choice

    agreed = []
    for case in cases:
        try:
            letter = extract_choice(
                case["reply"],
                case["n"],
                choices=case.get("choices"),
                numbered=case.get("numbered", False),
                letters=case.get("letters"),
            ).letter
        except ValueError:
            letter = "error"
        agreed.append(letter == case["expected"])
    return agreed


def peer_outcomes(cases: list[dict]) -> list[bool] | None:
    """The same comparison for lmms-eval's shared MCQ parser (`extract_mcq_answer`), loaded from
    its file so that lmms-eval's task registry is not imported; None when it is not installed.
    It reads letters only (a numbered case's expected letter is compared as it is) and reads
    "" as an abstention."""
    spec = importlib.util.find_spec("lmms_eval")
    if spec is None or not spec.submodule_search_locations:
        return None
    path = Path(next(iter(spec.submodule_search_locations))) / "tasks" / "_task_utils" / "mcq_extract.py"
    if not path.is_file():
        return None
    module_spec = importlib.util.spec_from_file_location("_peer_mcq_extract", path)
    assert module_spec is not None and module_spec.loader is not None
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    agreed = []
    for case in cases:
        labels = case.get("letters") or LETTERS[: case["n"]]
        letter = module.extract_mcq_answer(case["reply"], list(labels)) or None
        agreed.append(letter == case["expected"])
    return agreed


def by_class(cases: list[dict], agreed: list[bool]) -> dict[str, list[int]]:
    """{class: [agreeing, total]}, with "all" for every case."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for case, ok in zip(cases, agreed, strict=True):
        for name in (case.get("class", "base"), "all"):
            counts[name][0] += ok
            counts[name][1] += 1
    return dict(counts)


def _other(src: Path, cases_path: Path) -> list[bool]:
    env = {**os.environ, "PYTHONPATH": str(src.resolve())}
    done = subprocess.run(
        [sys.executable, __file__, "--cases", str(cases_path), "--outcomes"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(done.stdout)


def _percent(counts: list[int] | None) -> str:
    return "-" if counts is None else f"{counts[0]}/{counts[1]} {100 * counts[0] / counts[1]:5.1f}%"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=Path, default=CASES, help="the labelled cases (YAML)")
    parser.add_argument("--compare-src", type=Path, help="a source folder holding another vqakit")
    parser.add_argument("--peer", action="store_true", help="add lmms-eval's extract_mcq_answer")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--outcomes", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    cases = load_cases(args.cases)
    agreed = outcomes(cases)
    if args.outcomes:
        print(json.dumps(agreed))
        return
    now = by_class(cases, agreed)
    columns = {"this checkout": now}
    if args.compare_src:
        columns["--compare-src"] = by_class(cases, _other(args.compare_src, args.cases))
    if args.peer:
        peer = peer_outcomes(cases)
        if peer is None:
            sys.exit("--peer: lmms-eval is not installed")
        columns["lmms-eval"] = by_class(cases, peer)
    if args.json:
        compare, peer = columns.get("--compare-src"), columns.get("lmms-eval")
        print(json.dumps({"agreement": now, "compare": compare, "peer": peer}))
        return
    names = sorted(now, key=lambda name: (name == "all", name != "base", name))
    width = max(map(len, names))
    print(f"{'class':<{width}}" + "".join(f"  {title:>16}" for title in columns))
    for name in names:
        cells = (f"  {_percent(column.get(name)):>16}" for column in columns.values())
        print(f"{name:<{width}}" + "".join(cells))


if __name__ == "__main__":
    main()
