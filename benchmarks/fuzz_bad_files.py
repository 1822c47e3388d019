"""Single bad files and look-alike ids, tried on the importers that read them (a sibling of
fuzz_importers.py, whose sandboxes, seeds, audit hook and time limit it uses). Prints how each
case ended.

    python benchmarks/fuzz_bad_files.py               # every bad file of every kind, once
    python benchmarks/fuzz_bad_files.py -n 200 --seed 3 --json outcomes.json

Each case copies a valid release (docs/examples/datasets, the same seeds as fuzz_importers.py)
into a fresh sandbox and spoils ONE file that only some questions use (a LongVideoBench subtitle
file: a cue holding `-->`, blank lines, times beyond any video, not JSON; an MVBench frame: a
PNG whose header claims 30000x30000 pixels, a cut JPEG, text; a Video-MME subtitle file: 100,000
unclosed `<font` tags, a timing that cannot be read, UTF-16, bytes; a Parquet cell: binary that
is not UTF-8, a NaN start; a CSV answer index `1.0`), or removes NExT-QA's video map, which every
question uses (EgoSchema's subset answers are treated alike: a clean error naming them). Two
layouts of look-alike ids: a Minerva release whose video ids differ only in punctuation (`v/1`,
`v?1`, `v 1`, ...) or only before their last 120 characters, each with its own video; and
`eval --input video --method-arg video_url=file` over such ids against a loopback server that
opens each request's clip while the request waits.

Outcomes:
- survived: exit 0, the questions that do not use the file imported, and any question left out
  named by the file's real path;
- clean error naming the file: for a file every question uses (the map);
- sank the import: a file some questions do not use ended the whole import (a defect);
- left out without naming the file, staging path named, catch-all, escape, timeout: defects;
- collision: two look-alike ids shared a file, or a request got another sample's clip.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import re
import shutil
import struct
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import fuzz_importers as fuzz  # the sibling script: sandboxes, seeds, the audit hook

OUTCOMES = (
    "survived",
    "clean error naming the file",
    "sank the import",
    "left out without naming the file",
    "staging path named",
    "collision",
    "read wrongly",
    "catch-all",
    "escape",
    "timeout",
)
GOOD = ("survived", "clean error naming the file")
LOOK_ALIKE = ["v/1", "v?1", "v 1", "v:1", "v*1", "v|1", 'v"1', "v<1", "v>1", "v\\1"]
LONG_ALIKE = ["a" * 20 + "z" * 120, "b" * 20 + "z" * 120]


def bomb_png(width: int, height: int) -> bytes:
    """A 1x1 PNG whose header claims `width` x `height` pixels (its checksum made to match)."""
    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (1, 1)).save(buffer, "PNG")
    data = bytearray(buffer.getvalue())
    header = bytearray(data[12:29])
    header[4:12] = struct.pack(">II", width, height)
    data[12:29] = header
    data[29:33] = struct.pack(">I", zlib.crc32(bytes(header)))
    return bytes(data)


def _cues(original: bytes, text: str | None = None, **times: float) -> bytes:
    cues = json.loads(original)
    cues[0].update({"line": text} if text is not None else {}, **times)
    return json.dumps(cues).encode()


def _unclosed_tags(original: bytes) -> bytes:
    head = original.split(b"\n\n", 1)[0]
    return head + b"\n" + b'<font color="#ffffff" size' * 100_000 + b"\n"


# kind -> (the spoiled bytes of the file, or None to remove it)
KINDS: dict[str, Callable[[bytes], bytes | None]] = {
    "cue holding -->": lambda data: _cues(data, "left --> right, then ---> up"),
    "cue with blank lines": lambda data: _cues(data, "one\n\n\n2\n\n00:00:01,000 --> 00:00:02,000"),
    "cue beyond any video": lambda data: _cues(data, start="99999999:00:00.000"),
    "not JSON": lambda data: data[: len(data) // 2],
    "bytes": lambda data: bytes(range(256)) * 4,
    "empty": lambda data: b"",
    "PNG claiming 30000x30000": lambda data: bomb_png(30000, 30000),
    "PNG claiming 20000x4000": lambda data: bomb_png(20000, 4000),
    "cut short": lambda data: data[:40],
    "text": lambda data: b"not an image at all\n",
    "100k unclosed <font tags": _unclosed_tags,
    "unreadable timing": lambda data: data.replace(b" --> ", b" -> ", 1).replace(b",", b"?", 1),
    "UTF-16": lambda data: data.decode("utf-8", "replace").encode("utf-16"),
    "removed": lambda data: None,
    "a list, not a map": lambda data: b"[1, 2, 3]",
}


@dataclass(frozen=True)
class BadFile:
    target: str  # a target of fuzz_importers.py
    file: str  # relative to its seed (a preset's release lies in `fuzz.RELEASE` there)
    kinds: tuple[str, ...]
    every_question: bool = False  # every question uses it: a clean error naming it is right too


BAD_FILES = [
    BadFile(
        "import longvideobench",
        f"{fuzz.RELEASE}/subtitles/86CxyhFV9MI_en.json",
        ("cue holding -->", "cue with blank lines", "cue beyond any video", "not JSON", "bytes", "empty"),
    ),
    BadFile(
        "import mvbench",
        f"{fuzz.RELEASE}/video/tvqa/frames_fps3_hq/castle_s01e01_seg02_clip_00/00002.jpg",
        ("PNG claiming 30000x30000", "PNG claiming 20000x4000", "cut short", "text", "empty"),
    ),
    BadFile(
        "import videomme",
        f"{fuzz.RELEASE}/subtitle/fFjv93ACGo8.srt",
        ("100k unclosed <font tags", "unreadable timing", "UTF-16", "bytes", "empty"),
    ),
    BadFile(
        "import nextqa",
        f"{fuzz.RELEASE}/dataset/nextqa/map_vid_vidorID.json",
        ("removed", "not JSON", "a list, not a map", "empty"),
        every_question=True,
    ),
    BadFile(  # the answers of the 500-question subset: a clean error naming it, never a silent "hidden"
        "import egoschema",
        f"{fuzz.RELEASE}/subset_answers.json",
        ("not JSON", "a list, not a map", "empty"),
        every_question=True,
    ),
]


# --- tables whose cells are bad ------------------------------------------------------------------


def _parquet_seed(seeds: Path) -> None:
    """The example table as Parquet with binary text columns: `import table (parquet)`."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = seeds / "table-parquet"
    shutil.copytree(fuzz.DATASETS / "table", folder)
    rows = [{k: fuzz._typed_cell(v) for k, v in row.items()} for row in _csv_rows(folder / "questions.csv")]
    for row in rows:
        row["question"] = str(row["question"]).encode()
    pq.write_table(pa.Table.from_pylist(rows), folder / "questions.parquet")
    (folder / "questions.csv").unlink()


def _csv_rows(path: Path) -> list[dict[str, str]]:
    import csv

    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _spoil_parquet(path: Path, kind: str) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    rows = table.to_pylist()
    if kind == "binary cell not UTF-8":
        rows[0]["question"] = b"What \xff is this?"
    else:  # a NaN start
        rows[0]["from_s"] = float("nan")
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)


def _spoil_csv_index(path: Path, kind: str) -> None:
    """The example table with its answers as indexes written `1.0` (as a spreadsheet saves them)."""
    mapping = path.parent / "mapping.yaml"
    mapping.unlink()  # the seed is hard-linked: never write through it
    text = (fuzz.DATASETS / "table/mapping.yaml").read_text()
    mapping.write_text(text.replace("kind: letter", "kind: index"))
    rows = _csv_rows(path)
    for row in rows:
        if row["correct"] in ("A", "B", "C"):
            row["correct"] = f"{'ABC'.index(row['correct'])}.0"
    path.unlink()
    columns = list(rows[0])
    path.write_text(",".join(columns) + "\n" + "".join(",".join(r[c] for c in columns) + "\n" for r in rows))


def _index_check(sandbox: Path) -> str | None:
    """Every row whose letter became an index `N.0` is imported with answer N, as from JSON."""
    expected = {
        f"{row['clip']}-{row['qid']}": "ABC".index(row["correct"])
        for row in _csv_rows(fuzz.DATASETS / "table/questions.csv")
        if row["correct"] in ("A", "B", "C") and (sandbox / f"videos/{row['clip']}.mp4").exists()
    }
    written = [json.loads(line) for line in (sandbox / "out/samples.jsonl").read_text().splitlines()]
    got = {sample["id"]: sample["answer"] for sample in written}
    return None if got == expected else f"answers {got}, expected {expected}"


def _parquet_check(sandbox: Path, kind: str) -> str | None:
    """Binary questions read as their text; the spoiled first row left out, not read wrongly."""
    rows = _csv_rows(fuzz.DATASETS / "table/questions.csv")
    questions = {f"{row['clip']}-{row['qid']}": row["question"] for row in rows}
    written = [json.loads(line) for line in (sandbox / "out/samples.jsonl").read_text().splitlines()]
    wrong = [s["question"] for s in written if s["question"] != questions.get(s["id"])]
    spoiled = f"{rows[0]['clip']}-{rows[0]['qid']}"
    if spoiled in {sample["id"] for sample in written}:
        wrong.append(f"{spoiled} imported despite its {kind}")
    return "; ".join(wrong[:3]) or None


TABLE_CELLS = {
    "import table (parquet)": ("questions.parquet", ("binary cell not UTF-8", "NaN start"), _spoil_parquet),
    "import table (csv)": ("questions.csv", ("answer index 1.0",), _spoil_csv_index),
}


# --- look-alike ids ---------------------------------------------------------------------------------


def _minerva_look_alike(seeds: Path) -> None:
    folder = seeds / "minerva-look-alike"
    release = json.loads((fuzz.FIXTURES / "minerva_ego_release_five_options.json").read_text())
    records, rows = [], ["video_id,path"]
    for number, video_id in enumerate(LOOK_ALIKE + LONG_ALIKE):
        record = {**release[number % len(release)], "key": f"r{number}", "video_id": video_id}
        records.append(record)
        fuzz._write(folder / f"videos/{number}.mp4", f"the video of {video_id!r}")
        rows.append(f"{json.dumps(video_id)},videos/{number}.mp4")
    fuzz._write(folder / "release.json", json.dumps(records, indent=1))
    fuzz._write(folder / "videos.csv", "\n".join(rows) + "\n")


def _minerva_check(sandbox: Path) -> str | None:
    """A sample whose media file is not its own video's: the collision, in words."""
    out = sandbox / "out"
    for line in (out / "samples.jsonl").read_text().splitlines():
        sample = json.loads(line)
        video_id = sample["metadata"].get("video_id", "")
        placed = (out / sample["videos"][0]["path"]).read_text()
        if placed != f"the video of {video_id!r}":
            return f"{sample['id']} ({video_id!r}) was given {placed!r}"
    return None


def _clips_case(sandbox: Path) -> tuple[str, str]:
    """`eval --input video --method-arg video_url=file` over look-alike ids; the server opens each
    request's clip as it arrives and reads which frames it holds."""
    sys.path.insert(0, str(fuzz.ROOT / "tests/models"))
    import av
    import yaml
    from click.testing import CliRunner
    from fake_server import FakeServer

    from vqakit.cli import main
    from vqakit.video import read_frame_index, write_index_clip

    bench = sandbox / "bench"
    write_index_clip(bench / "media/index.mp4", seconds=len(LOOK_ALIKE) + 1, gop=25)
    card = {"name": "ids", "version": "1", "license": "CC0", "description": "look-alike ids",
            "protocol": {"frames": "fps:2", "short_side": 120}}  # fmt: skip
    (bench / "benchmark.yaml").write_text(yaml.safe_dump(card))
    samples = [
        {"id": sample_id, "question": f"Question number {k}: which?", "choices": ["a", "b"], "answer": 0,
         "videos": [{"path": "media/index.mp4", "start_s": float(k), "end_s": float(k + 1)}]}
        for k, sample_id in enumerate(LOOK_ALIKE)
    ]  # fmt: skip
    (bench / "samples.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
    wrong: list[str] = []
    lock = threading.Lock()

    def look(body: dict) -> None:
        content = body["messages"][0]["content"]
        text = next(p["text"] for p in content if p.get("type") == "text" and "Question number" in p["text"])
        number = int(text.split("Question number ")[1].split(":")[0])
        url = next(p["video_url"]["url"] for p in content if p["type"] == "video_url")
        from urllib.parse import unquote, urlparse

        with av.open(unquote(urlparse(url).path)) as container:
            first = read_frame_index(next(container.decode(video=0)).to_ndarray(format="rgb24"), 320)
        if first != 25 * number:
            with lock:
                wrong.append(f"{LOOK_ALIKE[number]!r} was sent frames from {first}")

    with FakeServer(default="ok:A", on_request=look, delay_s=0.05) as server:
        result = CliRunner().invoke(
            main,
            ["eval", str(bench), "--model", f"openai-compatible:{server.url}#fake", "--input", "video",
             "--method-arg", "video_url=file", "--concurrency", "4", "--out", str(sandbox / "out")],
        )  # fmt: skip
    if wrong:
        return "collision", "; ".join(wrong[:3]) + f" ({len(wrong)} of {len(LOOK_ALIKE)})"
    return ("ok" if result.exit_code == 0 else "error"), result.output


# --- running -----------------------------------------------------------------------------------------


@dataclass
class Case:
    target: str
    what: str  # the file and the kind of spoiling
    named: list[str]  # what a message about it must name
    every_question: bool
    spoil: Callable[[Path], None]
    check: Callable[[Path], str | None] | None = None  # what is wrong with what was written
    run: Callable[[Path], tuple[str, str]] | None = None  # instead of the target's own
    wrong: str = "collision"  # the outcome when `check` finds something


def cases(targets: dict[str, fuzz.Target]) -> list[Case]:
    found: list[Case] = []
    for bad in BAD_FILES:
        for kind in bad.kinds:

            def spoil(sandbox: Path, bad: BadFile = bad, kind: str = kind) -> None:
                path = sandbox / bad.file
                data = KINDS[kind](path.read_bytes())
                path.unlink()  # the seed is hard-linked: never write through it
                if data is not None:
                    path.write_bytes(data)

            name = Path(bad.file).name
            found.append(Case(bad.target, f"{bad.file}: {kind}", [name], bad.every_question, spoil))
    for target, (file, kinds, spoil_table) in TABLE_CELLS.items():
        for kind in kinds:
            check = _index_check if kind == "answer index 1.0" else partial(_parquet_check, kind=kind)
            spoil_cell = partial(lambda s, f, k, g: g(s / f, k), f=file, k=kind, g=spoil_table)
            found.append(
                Case(target, f"{file}: {kind}", [file], False, spoil_cell, check, wrong="read wrongly")
            )
    look_alike = "video ids differing in punctuation or early"
    found.append(
        Case("import minerva (look-alike ids)", look_alike, [], False, lambda s: None, check=_minerva_check)
    )
    found.append(
        Case(
            "eval --input video (look-alike ids)",
            "clips as file URLs",
            [],
            False,
            lambda s: None,
            run=_clips_case,
        )
    )
    return [case for case in found if case.run is not None or case.target in targets]


def _seeds(root: Path) -> dict[str, fuzz.Target]:
    seeds = root / "seeds"
    targets = {target.name: target for target in fuzz.table_seeds(seeds)}
    _parquet_seed(seeds)
    targets["import table (parquet)"] = fuzz.Target(
        "import table (parquet)",
        [],
        fuzz._import("table", "questions.parquet", "videos", mapping="mapping.yaml"),
    )
    fuzz.SEED_FOLDERS["import table (parquet)"] = "table-parquet"
    _minerva_look_alike(seeds)
    arguments = ["import", "minerva"]
    targets["import minerva (look-alike ids)"] = fuzz.Target(
        "import minerva (look-alike ids)",
        [],
        fuzz._cli(
            lambda s: [
                *arguments,
                str(s / "release.json"),
                "--videos",
                str(s / "videos.csv"),
                "--out",
                f"{s}/out",
            ]
        ),
    )
    fuzz.SEED_FOLDERS["import minerva (look-alike ids)"] = "minerva-look-alike"
    return targets


def run_case(case: Case, targets: dict[str, fuzz.Target], root: Path) -> fuzz.Outcome:
    sandbox = Path(tempfile.mkdtemp(prefix="case-", dir=root)).resolve()
    target = targets.get(case.target) or fuzz.Target(case.target, [], case.run or (lambda s: ("ok", "")))
    if case.run is None:
        shutil.copytree(root / "seeds" / fuzz.SEED_FOLDERS[case.target], sandbox, dirs_exist_ok=True,
                        copy_function=os.link, symlinks=True)  # fmt: skip
    (sandbox / "secret").mkdir()
    before = {str(p): p.read_bytes() for p in (sandbox / "secret").rglob("*") if p.is_file()}
    case.spoil(sandbox)
    fuzz.WATCH.writes.clear()
    fuzz.WATCH.reads.clear()
    fuzz.WATCH.active = True
    try:
        with fuzz._time_limit(fuzz.CASE_LIMIT_S):
            how, text = (case.run or target.run)(sandbox)
    except TimeoutError:
        how, text = "timeout", ""
    finally:
        fuzz.WATCH.active = False
    escapes = fuzz._escapes(sandbox, target, before) if case.run is None else []
    outcome = _outcome(case, how, text, escapes, sandbox)
    shutil.rmtree(sandbox, ignore_errors=True)
    return fuzz.Outcome(case.target, case.what, outcome, ("; ".join(escapes) or text).strip()[-600:])


def _outcome(case: Case, how: str, text: str, escapes: list[str], sandbox: Path) -> str:
    """How a case ended (see the module's docstring): questions left out beyond those the
    unspoiled release leaves out (a missing video of the example, say) must be named."""
    if escapes:
        return "escape"
    if how in ("uncaught", "catch-all", "timeout", "collision"):
        return {"uncaught": "catch-all"}.get(how, how)
    if ".staging" in text or ".subtitles." in text:
        return "staging path named"
    named = any(name in text for name in case.named)
    if how != "ok":
        return "clean error naming the file" if case.every_question and named else "sank the import"
    if case.check is not None and case.check(sandbox) is not None:
        return case.wrong
    left_out = _written(text) < baselines.get(case.target, 0)
    return "left out without naming the file" if left_out and case.named and not named else "survived"


def _written(text: str) -> int:
    """N of `wrote N of M questions`, or 0."""
    found = re.search(r"wrote (\d+) of \d+ questions", text)
    return int(found[1]) if found else 0


baselines: dict[str, int] = {}  # target -> questions its unspoiled release writes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--count", type=int, help="cases to run (default: every case once)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", type=Path, help="also write every case's outcome to this file")
    arguments = parser.parse_args()
    started = time.perf_counter()
    fuzz._install_hook()
    with tempfile.TemporaryDirectory(prefix="vqakit-bad-files-") as folder:
        root = Path(folder).resolve()
        os.environ.setdefault("VQAKIT_CACHE_DIR", str(root / "cache"))
        targets = _seeds(root)
        every = cases(targets)
        for name in dict.fromkeys(case.target for case in every if case.run is None):
            unspoiled = Case(name, "unspoiled", [], False, lambda s: None)
            baselines[name] = _written(run_case(unspoiled, targets, root).text)
        rng = random.Random(arguments.seed)
        chosen = every if arguments.count is None else [rng.choice(every) for _ in range(arguments.count)]
        if arguments.count is not None and arguments.count >= len(every):
            chosen = every + chosen[len(every) :]
        outcomes = [run_case(case, targets, root) for case in chosen]
    if arguments.json:
        arguments.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    for outcome in outcomes:
        if outcome.outcome not in GOOD:
            print(f"[{outcome.outcome}] {outcome.target}: {outcome.mutation}\n    {outcome.text[-300:]}")
    counts = Counter(o.outcome for o in outcomes)
    print("| target | tried | " + " | ".join(OUTCOMES) + " |")
    print("|---|---|" + "---|" * len(OUTCOMES))
    for name in dict.fromkeys(o.target for o in outcomes):
        mine = Counter(o.outcome for o in outcomes if o.target == name)
        print(f"| {name} | {sum(mine.values())} | " + " | ".join(str(mine[k]) for k in OUTCOMES) + " |")
    print(f"| all | {len(outcomes)} | " + " | ".join(str(counts[k]) for k in OUTCOMES) + " |")
    print(f"{len(outcomes)} cases in {time.perf_counter() - started:.0f} s (seed {arguments.seed})")


if __name__ == "__main__":
    main()
