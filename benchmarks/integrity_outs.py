"""The integrity audit's `--out` part (see benchmarks/integrity_audit.py): every command that
writes a folder, given an existing folder of the user's (and the issue's three `import table`
cases): files deleted, replaced and added there, and the exit code."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from integrity_common import DATASETS, FIXTURES, SAMPLE, Audit, egofact_inputs

from integrity_checks import (  # tests/, put on the path by integrity_audit.py
    PRESET_EXAMPLES,
    snapshot,
    users_folder,
)


def out_case(audit: Audit, command: str, case: str, args: list[Any], watched: Path) -> dict[str, Any]:
    before = snapshot(watched)
    code, _text = audit.run(*args, timeout=300)
    after = snapshot(watched)
    return {"command": command, "case": case, "exit": code,
            "deleted": sum(1 for name in before if name not in after),
            "replaced": sum(1 for name in before if name in after and after[name] != before[name]),
            "added": sum(1 for name in after if name not in before)}  # fmt: skip


def table_release(folder: Path, typo: bool = False) -> Path:
    folder.mkdir(parents=True)
    for name in ("questions.csv", "mapping.yaml"):
        shutil.copy(DATASETS / "table" / name, folder / name)
    shutil.copytree(DATASETS / "table/videos", folder / "media")
    (folder / "media/unused.mp4").write_bytes(b"a video of mine that no row names")
    if typo:  # a typo in the answer cell of every row of one video
        rows = (folder / "questions.csv").read_text().splitlines()
        typed = [",".join("Q" if i == 6 else cell for i, cell in enumerate(row.split(","))) for row in rows]
        rows = [new if row.startswith("garden") else row for row, new in zip(rows, typed, strict=True)]
        (folder / "questions.csv").write_text("\n".join(rows) + "\n")
    return folder


CLOSED = "openai-compatible:http://127.0.0.1:9/v1#m"  # never reached when --out is refused


def command_cases(work: Path, bench: Path) -> dict[str, Callable[[Path], list[Any]]]:
    """Each command that writes a folder: its arguments, given the --out."""
    cases: dict[str, Callable[[Path], list[Any]]] = {}
    replies = work / "replies.jsonl"  # recorded replies for no sample: each answer is an error, at once
    replies.write_text('{"sample_id": "none", "reply": "A"}\n')
    for name, (example, release, videos) in PRESET_EXAMPLES.items():
        shutil.copytree(DATASETS / example, work / f"rel-{name}")
        given = [work / f"rel-{name}" / release, "--videos", work / f"rel-{name}" / videos]
        cases[f"import {name}"] = lambda out, n=name, g=given: ["import", n, *g, "--out", out]
    (work / "empty-videos").mkdir()
    shutil.copytree(FIXTURES / "movierecapsqa/release", work / "mrqa")
    (work / "recaps.csv").write_text("video_id,path\n")
    egofact = [*egofact_inputs(work / "egofact"), "--llm", CLOSED]
    annotations = FIXTURES / "instructionbench/build/youcookii_annotations_build.json"
    ib = ["build", "instructionbench", "--annotations", annotations, "--videos", work / "empty-videos",
          "--llm", CLOSED, "--checkers", ",".join([CLOSED] * 3)]  # fmt: skip
    mrqa = ["build", "movierecapsqa", "--recap", SAMPLE / "media/bikes.mp4",
            "--transcript", FIXTURES / "movierecapsqa/build/street_recap.srt", "--llm", CLOSED]  # fmt: skip
    minerva = ["import", "minerva", FIXTURES / "minerva_ego_release_five_options.json", "--videos",
               work / "empty-videos"]  # fmt: skip
    answers = ["import", "movierecapsqa-answers", FIXTURES / "movierecapsqa/official/answers.csv",
               "--bench", "sample"]  # fmt: skip
    recaps = ["import", "movierecapsqa", work / "mrqa", "--recaps", work / "recaps.csv"]
    sweep = ["sweep", bench, "--model", f"replay:{replies}", "--method", "blind",
             "--prompt", "mcq,mcq_numbered"]  # fmt: skip
    align = ["align", SAMPLE / "media/bikes.mp4", SAMPLE / "media/world.mp4",
             "--image-embedder", "clip:nowhere"]  # fmt: skip
    cases.update({
        "import minerva": lambda out: [*minerva, "--out", out],
        "import movierecapsqa": lambda out: [*recaps, "--out", out],
        "import movierecapsqa-answers": lambda out: [*answers, "--out", out],
        "build egofact": lambda out: [*egofact, "--out", out],
        "build instructionbench": lambda out: [*ib, "--out", out],
        "build movierecapsqa": lambda out: [*mrqa, "--out", out],
        "eval": lambda out: ["eval", bench, "--method", "random", "--limit", "2", "--out", out],
        "eval --out BENCH": lambda out: ["eval", bench, "--method", "random", "--limit", "2", "--out", bench],
        "sweep": lambda out: [*sweep, "--limit", "2", "--out", out],
        "export-bench": lambda out: ["export-bench", bench, "--format", "hf", "--out", out],
        "review apply": lambda out: ["review", "apply", bench, "--policy", "any", "--out", out],
        "frames": lambda out: ["frames", SAMPLE / "media/bikes.mp4", "--uniform", "2", "--out", out],
        "hints": lambda out: ["hints", "--bench", bench, "--sample", "wb-circle-motion", "--out", out],
        "align": lambda out: [*align, "--out", out],
    })  # fmt: skip
    return cases


def audit_outs(audit: Audit, commands: set[str] | None) -> list[dict[str, Any]]:
    """Every command (or those in `commands`) given an existing folder of the user's."""
    work, rows = audit.work / "outs", []
    work.mkdir()
    if commands is None or "import table" in commands:
        rows += table_cases(audit, work)
    bench = work / "bench"
    shutil.copytree(SAMPLE, bench, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    cases = command_cases(work, bench)
    for command, make in cases.items():
        if commands is not None and command.removesuffix(" --out BENCH") not in commands:
            continue
        if command == "eval --out BENCH":
            rows.append(out_case(audit, "eval", "--out a benchmark folder", make(bench), bench))
            continue
        mine = users_folder(work / f"mine-{command.replace(' ', '-')}")
        rows.append(out_case(audit, command, "--out an existing folder of the user's", make(mine), mine))
    return rows


def table_cases(audit: Audit, work: Path) -> list[dict[str, Any]]:
    """The issue's three `import table` cases."""

    def table(release: Path, out: Path) -> list[Any]:
        return ["import", "table", release / "questions.csv", "--map", release / "mapping.yaml",
                "--videos", release / "media", "--out", out]  # fmt: skip

    rows = []
    release = table_release(work / "r1")
    rows.append(out_case(audit, "import table", "--out the release folder", table(release, release), release))
    release = table_release(work / "r2", typo=True)
    rows.append(
        out_case(audit, "import table", "answer typo, --out the release", table(release, release), release)
    )
    release, mine = table_release(work / "r3"), users_folder(work / "mine-table")
    rows.append(out_case(audit, "import table", "--out an unrelated folder", table(release, mine), mine))
    return rows
