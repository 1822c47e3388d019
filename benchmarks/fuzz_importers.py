"""Mutation fuzzing of every reader of user files: importers, builders' inputs, label maps,
answers, benchmark folders. Prints how each mutated input ended.

    python benchmarks/fuzz_importers.py                 # 1000 mutations, seed 0
    python benchmarks/fuzz_importers.py -n 200 --seed 7 --show catch-all
    python benchmarks/fuzz_importers.py -n 100 --only "import table"

Each case copies a valid set of inputs into a fresh sandbox, mutates one file (bytes, JSON, YAML
or CSV structure: numbers beyond 64 bits, nesting 50,000-200,000 deep, cells over 131,072
characters, CR line ends, byte-order marks, bytes that are not UTF-8, unpaired surrogates, NUL
characters, truncation, wrong types...) or the layout (a video replaced by a folder or by
absolute, relative, deeper relative, dangling or looping links; `--out` holding a link to a
folder outside, or being a file), runs the command in process and classifies what happened:

- accepted: exit 0 (a bad record skipped and listed counts here);
- clean error naming the file: a one-line error that names the mutated file (or folder);
- clean error without the file: an error that does not say which file (a defect);
- catch-all: the CLI's catch-all for bugs (`set VQAKIT_DEBUG=1`) or an uncaught exception;
- escape: a write outside `--out` (and its staging folder beside it), or, for benchmark
  folders, a read of a file outside the inputs (an audit hook sees every open, link, rename);
- timeout: the case ran past its time limit.

The builders are run as libraries with models that stop the build at its first model call: an
input that reaches the first model step is accepted.

`fuzz_bad_files.py` beside this script uses these sandboxes for single bad files that only some
questions use (subtitles, frame images, cells, maps) and for look-alike ids.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import shutil
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests/fixtures"
DATASETS = ROOT / "docs/examples/datasets"
SAMPLE = ROOT / "src/vqakit/benchmarks/sample"
OUTCOMES = (
    "accepted",
    "clean error naming the file",
    "clean error without the file",
    "catch-all",
    "escape",
    "timeout",
)
CASE_LIMIT_S = 60


class ReachedModel(BaseException):
    """Raised by the stand-in models: the build got past its inputs to its first model step."""


class StopAtFirstCall:
    """Test double for a builder's models and embedders: the first call ends the case."""

    def __init__(self, name: str = "stop") -> None:
        self.name = name

    def __str__(self) -> str:
        return self.name

    async def complete(self, *args: Any, **kwargs: Any) -> Any:
        raise ReachedModel

    def embed(self, *args: Any, **kwargs: Any) -> Any:
        raise ReachedModel

    embed_images = embed

    async def aclose(self) -> None:
        pass


# --- watching what a case touches -------------------------------------------------------------


@dataclass
class Watch:
    """An audit hook (installed once) that records writes and reads while `active`."""

    active: bool = False
    writes: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.active:
            return
        try:
            if event == "open":
                path, mode, flags = args
                if not isinstance(path, str | bytes | os.PathLike):
                    return
                path = os.fsdecode(path)
                written = isinstance(mode, str) and any(c in mode for c in "wax+")
                written |= isinstance(flags, int) and bool(flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
                (self.writes if written else self.reads).append(os.path.realpath(path))
            elif event in ("os.link", "os.rename", "os.replace"):  # (src, dst, src_dir_fd, dst_dir_fd)
                self._entry(args[1], args[3])
            elif event == "os.symlink":  # (src, dst, dir_fd)
                self._entry(args[1], args[2])
            elif event == "shutil.copyfile":
                self._entry(args[1], None)
            elif event in ("os.mkdir", "os.remove", "os.rmdir", "shutil.rmtree"):  # (path, ..., dir_fd)
                self._entry(args[0], args[-1])
        except Exception:  # a hook must never break the code it watches
            pass

    def _entry(self, path: Any, dir_fd: Any) -> None:
        """Where a directory entry changes: its folder resolved (relative to `dir_fd` when one is
        given), its own name not followed. File descriptors alone are not paths: skipped."""
        if not isinstance(path, str | bytes | os.PathLike):
            return
        text = os.fsdecode(path)
        if isinstance(dir_fd, int) and not os.path.isabs(text):
            text = os.path.join(os.readlink(f"/proc/self/fd/{dir_fd}"), text)
        folder = os.path.realpath(os.path.dirname(text) or ".")
        self.writes.append(os.path.join(folder, os.path.basename(text)))


WATCH = Watch()
_HOOKED = False


def _install_hook() -> None:
    global _HOOKED
    if not _HOOKED:
        sys.addaudithook(WATCH.hook)
        _HOOKED = True


# --- targets --------------------------------------------------------------------------------------


@dataclass
class Target:
    """One reader of user files: its inputs (relative to the sandbox) and how to run it."""

    name: str
    files: list[str]  # files a mutation may change
    run: Callable[[Path], tuple[str, str]]  # sandbox -> (how it ended, text it printed)
    videos: str | None = None  # a folder of videos whose layout may be mutated
    reads_confined: bool = False  # reading outside the inputs is an escape (benchmark folders)
    writes: tuple[str, ...] = ("out",)  # folders it may write (and their staging folders beside)


def _cli(arguments: Callable[[Path], list[str]]) -> Callable[[Path], tuple[str, str]]:
    def run(sandbox: Path) -> tuple[str, str]:
        from click.testing import CliRunner

        from vqakit.cli import main

        result = CliRunner().invoke(main, arguments(sandbox), catch_exceptions=True)
        text = result.output
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            return "uncaught", f"{type(result.exception).__name__}: {result.exception}"
        if result.exit_code == 0:
            return "ok", text
        return ("catch-all" if "VQAKIT_DEBUG=1" in text else "error"), text

    return run


def _library(call: Callable[[Path], Any]) -> Callable[[Path], tuple[str, str]]:
    def run(sandbox: Path) -> tuple[str, str]:
        from vqakit.builders import InputError
        from vqakit.files import OutFolderRefused
        from vqakit.schema import BenchmarkError
        from vqakit.video import VideoError

        try:
            call(sandbox)
        except ReachedModel:
            return "ok", "reached the first model step"
        except (InputError, BenchmarkError, VideoError, OutFolderRefused) as error:
            return "error", str(error)
        except Exception as error:
            return "uncaught", f"{type(error).__name__}: {error}"
        return "ok", ""

    return run


def _instructionbench(sandbox: Path) -> None:
    from vqakit.systems.instructionbench.builder import InstructionBenchBuildConfig, build_instructionbench

    config = InstructionBenchBuildConfig(label_map=sandbox / "label_foodtype.csv", name="fuzz")
    checkers = [StopAtFirstCall(f"checker-{i}") for i in range(3)]
    annotations = [sandbox / "youcookii_annotations_build.json", sandbox / "steps_build.csv"]
    build_instructionbench(
        annotations,
        sandbox / "videos",
        sandbox / "out",
        llm=StopAtFirstCall(),
        checkers=checkers,
        config=config,
    )


def _egofact(sandbox: Path) -> None:
    from vqakit.systems.egofact.builder import build_egofact

    build_egofact(
        sandbox / "videos",
        sandbox / "events.jsonl",
        sandbox / "passages.jsonl",
        sandbox / "out",
        llm=StopAtFirstCall(),
        vlm=StopAtFirstCall(),
        text_embedder=StopAtFirstCall(),
    )


def _manifest(sandbox: Path) -> None:
    from vqakit.systems.movierecapsqa.builder.manifest import read_manifest
    from vqakit.systems.movierecapsqa.builder.pipeline import check_inputs

    check_inputs(read_manifest(sandbox / "manifest.csv"), StopAtFirstCall(), sandbox / "out")


def _video(path: Path, seconds: int) -> None:
    from vqakit.video import write_index_clip

    path.parent.mkdir(parents=True, exist_ok=True)
    write_index_clip(path, seconds=seconds, fps=2, width=64, height=48, gop=10)


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_seeds(seeds: Path) -> list[Target]:
    """The valid inputs of every target, under `seeds/<target>/`."""
    ib = FIXTURES / "instructionbench"
    targets: list[Target] = []
    for name, fixture in (
        ("steps youcook2", "youcookii_annotations_trainval.json"),
        ("steps hirest", "all_data_train.json"),
        ("steps goalstep", "goalstep_train.json"),
        ("steps keystep", "keystep_train.json"),
        ("steps table csv", "steps.csv"),
        ("steps table jsonl", "steps.jsonl"),
    ):
        folder = seeds / name.replace(" ", "-")
        folder.mkdir(parents=True)
        shutil.copy(ib / fixture, folder / fixture)
        targets.append(Target(name, [fixture], _cli(lambda s, f=fixture: ["steps", str(s / f), "--trim"])))
    folder = seeds / "steps-label-map"
    folder.mkdir()
    shutil.copy(ib / "youcookii_annotations_trainval.json", folder / "yc.json")
    shutil.copy(ib / "label_foodtype.csv", folder / "label_foodtype.csv")
    targets.append(
        Target(
            "steps label map",
            ["label_foodtype.csv"],
            _cli(lambda s: ["steps", str(s / "yc.json"), "--label-map", str(s / "label_foodtype.csv")]),
        )
    )

    folder = seeds / "minerva"
    release = json.loads((FIXTURES / "minerva_ego_release_five_options.json").read_text())
    _write(folder / "release.json", json.dumps(release, indent=1))
    rows = ["video_id,path"]
    for record in release:
        stem = str(record["video_id"]).rsplit("/", 1)[-1].split("?")[0].split("=")[-1]
        _write(folder / f"videos/{stem}.mp4", "not decoded by the importer")
        rows.append(f"{json.dumps(str(record['video_id']))},videos/{stem}.mp4")
    _write(folder / "videos.csv", "\n".join(rows) + "\n")
    minerva = ["import", "minerva"]
    targets.append(
        Target(
            "import minerva",
            ["release.json"],
            _cli(
                lambda s: [
                    *minerva,
                    str(s / "release.json"),
                    "--videos",
                    str(s / "videos"),
                    "--out",
                    str(s / "out"),
                ]
            ),
            videos="videos",
        )
    )
    targets.append(
        Target(
            "import minerva (videos CSV)",
            ["videos.csv", "release.json"],
            _cli(
                lambda s: [
                    *minerva,
                    str(s / "release.json"),
                    "--videos",
                    str(s / "videos.csv"),
                    "--out",
                    str(s / "out"),
                ]
            ),
        )
    )

    folder = seeds / "movierecapsqa"
    shutil.copytree(FIXTURES / "movierecapsqa/release", folder / "release")
    _video(folder / "media/cmpRecap001.mp4", 40)
    _video(folder / "media/tt0000101.mp4", 60)
    shutil.copy(FIXTURES / "movierecapsqa/media/campus_crossing.srt", folder / "media/campus.srt")
    _write(folder / "recaps.csv", "video_id,path\ncmpRecap001,media/cmpRecap001.mp4\n")
    _write(folder / "movies.csv", "video_id,path\ntt0000101,media/tt0000101.mp4\n")
    _write(folder / "subtitles.csv", "video_id,path\nCampus Crossing (2008),media/campus.srt\n")
    tables = [f"release/{p.name}" for p in sorted((folder / "release").iterdir())]
    mrqa = ["import", "movierecapsqa"]
    targets.append(
        Target(
            "import movierecapsqa",
            [*tables, "recaps.csv", "movies.csv", "subtitles.csv", "media/campus.srt"],
            _cli(
                lambda s: [
                    *mrqa,
                    str(s / "release"),
                    *("--recaps", str(s / "recaps.csv"), "--movies", str(s / "movies.csv")),
                    *("--subtitles", str(s / "subtitles.csv"), "--out", str(s / "out")),
                ]
            ),
        )
    )
    bench = seeds / "movierecapsqa-bench"
    from vqakit.systems.movierecapsqa.importer import import_movierecapsqa

    import_movierecapsqa(
        folder / "release", folder / "recaps.csv", folder / "movies.csv", folder / "subtitles.csv", out=bench
    )
    folder = seeds / "answers"
    shutil.copy(FIXTURES / "movierecapsqa/official/responses.jsonl", _mkdir(folder) / "responses.jsonl")
    shutil.copy(FIXTURES / "movierecapsqa/official/answers.csv", folder / "answers.csv")
    for answers in ("responses.jsonl", "answers.csv"):
        targets.append(
            Target(
                f"import movierecapsqa-answers ({answers})",
                [answers],
                _cli(
                    lambda s, a=answers: [
                        *("import", "movierecapsqa-answers", str(s / a)),
                        *("--bench", str(bench), "--out", str(s / "out")),
                    ]
                ),
            )
        )
    folder = seeds / "labels"
    shutil.copytree(bench, folder / "bench", copy_function=os.link)
    ids = [json.loads(line)["id"] for line in (bench / "samples.jsonl").read_text().splitlines()]
    _write(folder / "labels.json", json.dumps({i: {"category": "TEMP", "modality": "dialogue"} for i in ids}))
    targets.append(
        Target(
            "label movierecapsqa --labels",
            ["labels.json", "bench/samples.jsonl", "bench/benchmark.yaml"],
            _cli(lambda s: ["label", "movierecapsqa", str(s / "bench"), "--labels", str(s / "labels.json")]),
            writes=("bench",),
        )
    )

    folder = seeds / "benchmark-folder"
    shutil.copytree(
        SAMPLE, folder / "bench", copy_function=os.link, ignore=shutil.ignore_patterns("__pycache__", "*.py")
    )
    inner = [str(p.relative_to(folder)) for p in sorted((folder / "bench").rglob("*.jsonl"))]
    targets.append(
        Target(
            "validate (benchmark folder)",
            ["bench/benchmark.yaml", *inner],
            _cli(lambda s: ["validate", str(s / "bench")]),
            reads_confined=True,
        )
    )

    folder = seeds / "build-instructionbench"
    build = ib / "build"
    for fixture in ("youcookii_annotations_build.json", "steps_build.csv", "label_foodtype.csv"):
        shutil.copy(build / fixture, _mkdir(folder) / fixture)
    _video(folder / "videos/yc_pasta.mp4", 30)
    _video(folder / "videos/table/tb_plant.mp4", 20)
    targets.append(
        Target(
            "build instructionbench (inputs)",
            ["youcookii_annotations_build.json", "steps_build.csv", "label_foodtype.csv"],
            _library(_instructionbench),
            videos="videos",
        )
    )

    folder = seeds / "build-egofact"
    for name in ("bikeA", "bikeB"):
        _video(folder / f"videos/{name}.mp4", 40)
    events = [
        {"video": f"bike{v}.mp4", "time_s": t, "text": f"C {verb} the wrench"}
        for v in "AB"
        for t, verb in ((3.0, "picks up"), (12.5, "turns"), (25.0, "puts down"))
    ]
    _write(folder / "events.jsonl", "".join(json.dumps(e) + "\n" for e in events))
    passages = [
        {"id": f"p{i}", "title": "Wrenches", "text": f"How to hold a wrench, part {i}."} for i in range(3)
    ]
    _write(folder / "passages.jsonl", "".join(json.dumps(p) + "\n" for p in passages))
    targets.append(
        Target(
            "build egofact (inputs)", ["events.jsonl", "passages.jsonl"], _library(_egofact), videos="videos"
        )
    )

    folder = seeds / "build-movierecapsqa"
    shutil.copy(FIXTURES / "movierecapsqa/build/manifest.csv", _mkdir(folder) / "manifest.csv")
    targets.append(Target("build movierecapsqa (manifest)", ["manifest.csv"], _library(_manifest)))
    return targets + table_seeds(seeds)


def _import(verb: str, release: str, videos: str, mapping: str | None = None) -> Callable[..., Any]:
    """`vqakit import VERB RELEASE --videos VIDEOS [--map MAPPING] --out out`, in the sandbox."""

    def arguments(s: Path) -> list[str]:
        given = ["--map", str(s / mapping)] if mapping else []
        return ["import", verb, str(s / release), *given, "--videos", str(s / videos), "--out", f"{s}/out"]

    return _cli(arguments)


def table_seeds(seeds: Path) -> list[Target]:
    """`vqakit import table` (a CSV and a JSONL table, each with its mapping) and the presets of
    the common benchmarks, on the release-shaped examples of docs/examples/datasets."""
    import csv

    targets: list[Target] = []
    for form in ("csv", "jsonl"):
        folder = seeds / f"table-{form}"
        shutil.copytree(DATASETS / "table", folder)
        if form == "jsonl":
            with open(folder / "questions.csv", newline="", encoding="utf-8") as handle:
                rows = list(csv.DictReader(handle))
            typed = [{k: _typed_cell(v) for k, v in row.items()} for row in rows]
            _write(folder / "questions.jsonl", "".join(json.dumps(row) + "\n" for row in typed))
            (folder / "questions.csv").unlink()
        table = f"questions.{form}"
        run = _import("table", table, "videos", mapping="mapping.yaml")
        targets.append(Target(f"import table ({form})", [table, "mapping.yaml"], run, videos="videos"))
    for name, (release, videos, files) in PRESET_SEEDS.items():
        # the release in a folder of its own: `--out` (sandbox/out) may not lie inside an input
        shutil.copytree(DATASETS / name, seeds / f"preset-{name}" / RELEASE)
        videos, files = f"{RELEASE}/{videos}", [f"{RELEASE}/{file}" for file in files]
        run = _import(name, f"{RELEASE}/{release}", videos)
        targets.append(Target(f"import {name}", files, run, videos=videos))
    return targets


RELEASE = "release"  # where a preset's release lies in its sandbox
# preset -> (release folder, --videos folder, files to mutate), in its example under DATASETS
PRESET_SEEDS = {
    "videomme": (".", "data", ["videomme/test-00000-of-00001.parquet", "subtitle/fFjv93ACGo8.srt"]),
    "nextqa": (
        "dataset/nextqa",
        "NExTVideo",
        ["dataset/nextqa/val.csv", "dataset/nextqa/map_vid_vidorID.json"],
    ),
    "egoschema": (".", "videos", ["questions.json", "subset_answers.json"]),
    "longvideobench": (".", "videos", ["lvb_val.json", "subtitles/86CxyhFV9MI_en.json"]),
    "mvbench": (
        ".",
        "video",
        [
            "json/action_sequence.json",
            "json/episodic_reasoning.json",
            "video/tvqa/frames_fps3_hq/castle_s01e01_seg02_clip_00/00002.jpg",
        ],
    ),
    "mlvu": ("MLVU", "MLVU/video", ["MLVU/json/1_plotQA.json", "MLVU/json/4_count.json"]),
    "perceptiontest": (".", "videos", ["mc_question_valid.json"]),
}


def _typed_cell(cell: str) -> Any:
    """A CSV cell as JSON would hold it: numbers as numbers, empty cells as null."""
    if cell == "":
        return None
    try:
        return int(cell)
    except ValueError:
        pass
    try:
        return float(cell)
    except ValueError:
        return cell


def _mkdir(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- mutations ------------------------------------------------------------------------------------

RAW = "\x00raw:"  # a JSON string standing for raw JSON text (numbers and nesting JSON cannot write)


def _raw(text: str) -> str:
    return RAW + text


def _dump(value: Any) -> bytes:
    text = json.dumps(value, ensure_ascii=False)
    return text.replace('"\\u0000raw:', "\x00").encode("utf-8", "surrogatepass")


def _unraw(data: bytes) -> bytes:
    """Raw placeholders (`"\\x00raw:TEXT"`) back to TEXT (escapes inside TEXT were JSON's)."""
    out, position = bytearray(), 0
    while (start := data.find(b"\x00", position)) >= 0:
        end = data.index(b'"', start)
        out += data[position:start] + json.loads(b'"' + data[start + 1 : end] + b'"').encode()
        position = end + 1
    return bytes(out + data[position:])


def _deep(rng: random.Random) -> str:
    depth = rng.choice((50_000, 100_000, 200_000))
    return "[" * depth + "]" * depth


NUMBERS = (
    "1" + "0" * 400,
    str(2**63),
    str(-(2**63) - 1),
    "1e400",
    "-1e400",
    "NaN",
    "Infinity",
    "1e308",
    "-1",
)
TEXTS = (
    "\ud800",
    "a\udc00b",
    "a\x00b",
    "x" * 200_000,
    "",
    " ",
    "../../secret/passwd.mp4",
    "/etc/passwd",
    "line\nbreak\rcr",
    "\u2028",
    "caf\u00e9",
    "0",
)


def _paths(value: Any, where: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield where
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, (*where, index))


def _json_mutation(data: Any, rng: random.Random) -> tuple[Any, str]:
    paths = [p for p in _paths(data) if p]
    if not paths:
        return data, "nothing to mutate"
    where = rng.choice(paths)
    parent = data
    for part in where[:-1]:
        parent = parent[part]
    key, old = where[-1], parent[where[-1]]
    kind = rng.choice(("number", "text", "deep", "type", "delete", "key"))
    if kind == "number":
        parent[key] = _raw(rng.choice(NUMBERS))
    elif kind == "text":
        parent[key] = rng.choice(TEXTS)
    elif kind == "deep":
        parent[key] = _raw(_deep(rng))
    elif kind == "type":
        parent[key] = rng.choice((None, True, [], {}, [old], {"x": old}, 3.5))
    elif kind == "delete":
        if isinstance(parent, dict):
            del parent[key]
        else:
            parent.pop(key)
    elif isinstance(parent, dict):
        parent[rng.choice((*TEXTS[:3], "", "id", "video_id"))] = parent.pop(key)
    return data, f"json {kind} at {'.'.join(map(str, where))[:60]}"


def _lines(data: bytes) -> list[bytes]:
    return data.splitlines(keepends=True) or [b""]


def mutate_bytes(data: bytes, path: Path, rng: random.Random) -> tuple[bytes, str]:
    """A mutated version of a file's bytes and what was done."""
    choice = rng.randrange(17)
    if choice <= 5 and path.suffix in (".json", ".jsonl"):
        if path.suffix == ".json":
            try:
                value, how = _json_mutation(json.loads(data), rng)
                return _unraw(_dump(value)), how
            except ValueError:
                pass
        else:
            lines = _lines(data)
            number = rng.randrange(len(lines))
            try:
                value, how = _json_mutation(json.loads(lines[number]), rng)
                lines[number] = _unraw(_dump(value)) + b"\n"
                return b"".join(lines), f"line {number + 1}: {how}"
            except ValueError:
                pass
    if choice <= 5 and path.suffix in (".yaml", ".yml"):
        import yaml

        try:  # JSON is YAML: the mutated mapping is written in JSON's flow style
            value, how = _json_mutation(yaml.safe_load(data), rng)
            return _unraw(_dump(value)), f"yaml {how}"
        except (ValueError, TypeError, AttributeError, yaml.YAMLError):
            pass
    if choice <= 5 and path.suffix in (".csv", ".tsv"):
        lines = _lines(data)
        number = rng.randrange(len(lines))
        cells = lines[number].rstrip(b"\r\n").split(b",")
        cell = rng.randrange(len(cells))
        cells[cell] = rng.choice(
            (
                b"x" * 200_000,
                b'"' + b"y" * 150_000 + b'"',
                ("1" + "0" * 400).encode(),
                b"1e400",
                b'"unclosed',
                b"../secret/passwd.mp4",
                b"\xff\xfe",
                b"a\x00b",
                "\ud800".encode("utf-8", "surrogatepass"),
                b"",
                b"a,b,c",
            )
        )
        lines[number] = b",".join(cells) + b"\n"
        return b"".join(lines), f"csv cell {cell} of line {number + 1}"
    if choice == 6:
        return data[: rng.randrange(len(data) + 1)], "truncated"
    if choice == 7:
        data = bytearray(data)
        for _ in range(rng.randint(1, 5)):
            if data:
                data[rng.randrange(len(data))] = rng.randrange(256)
        return bytes(data), "bytes replaced"
    if choice == 8:
        at = rng.randrange(len(data) + 1)
        return data[:at] + rng.choice((b"\xff", b"\xe9", b"\xc3", b"\x00", b"\xed\xa0\x80")) + data[
            at:
        ], "byte inserted"
    if choice == 9:
        lines = _lines(data)
        del lines[rng.randrange(len(lines))]
        return b"".join(lines), "line deleted"
    if choice == 10:
        lines = _lines(data)
        at = rng.randrange(len(lines))
        return b"".join(lines[: at + 1] + lines[at:]), "line repeated"
    if choice == 11:
        end = rng.choice((b"\r", b"\r\n"))
        return data.replace(b"\r\n", b"\n").replace(b"\n", end), f"line ends {end!r}"
    if choice == 12:
        return b"\xef\xbb\xbf" + data, "UTF-8 byte-order mark"
    if choice == 13:
        return data.decode("utf-8", "replace").encode("utf-16"), "UTF-16 with byte-order mark"
    if choice == 14:
        return b"", "empty"
    if choice == 15:
        at = rng.randrange(len(data) + 1)
        return data[:at] + _deep(rng).encode() + data[at:], "deep nesting inserted"
    return data.replace(b"\n", b"\n" + b"{}\n", 1), "an empty record inserted"


LAYOUTS = (
    "video is a folder",
    "video is an absolute link",
    "video is a relative link",
    "video is a deeper relative link",
    "video is a dangling link",
    "video is a link loop",
    "out/media links outside",
    "out is a file",
    "input is a folder",
)


def mutate_layout(sandbox: Path, target: Target, file: str, rng: random.Random) -> tuple[str, str]:
    """Change the sandbox's layout; returns (what was done, the path a clean error names)."""
    choices = [layout for layout in LAYOUTS if target.videos or not layout.startswith("video")]
    layout = rng.choice(choices)
    secret = sandbox / "secret"
    if layout.startswith("video"):
        videos = sorted(p for p in (sandbox / str(target.videos)).rglob("*.mp4") if p.is_file())
        video = rng.choice(videos)
        store = sandbox / "store" / video.name
        store.parent.mkdir(exist_ok=True)
        shutil.move(video, store)
        depth = len(video.relative_to(sandbox).parts) - 1
        if layout == "video is a folder":
            video.mkdir()
        elif layout == "video is an absolute link":
            video.symlink_to(store)
        elif layout == "video is a relative link":
            video.symlink_to(Path(*[".."] * depth, "store", video.name))
        elif layout == "video is a deeper relative link":
            (sandbox / "store/deep").mkdir(exist_ok=True)
            deep = sandbox / "store/deep" / video.name
            deep.symlink_to(Path("..", video.name))
            video.symlink_to(Path(*[".."] * depth, "store", "deep", video.name))
        elif layout == "video is a dangling link":
            video.symlink_to(Path(*[".."] * depth, "store", "nowhere.mp4"))
        else:
            video.symlink_to(video.name)
        return layout, video.name
    if layout == "out/media links outside":
        (sandbox / "out").mkdir(exist_ok=True)
        (sandbox / "out/media").symlink_to(secret)
        return layout, "out/media"
    if layout == "out is a file":
        (sandbox / "out").write_text("a file")
        return layout, "out"
    path = sandbox / file
    path.unlink()
    path.mkdir()
    return layout, file


# --- running ----------------------------------------------------------------------------------------


@dataclass
class Outcome:
    target: str
    mutation: str
    outcome: str
    text: str


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def expire(signum: int, frame: Any) -> None:
        raise TimeoutError

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _escapes(sandbox: Path, target: Target, secret_before: dict[str, bytes]) -> list[str]:
    allowed = [str(sandbox / name) + os.sep for name in target.writes]
    allowed += [str(sandbox / f".{name}.") for name in target.writes]
    cache = os.environ.get("VQAKIT_CACHE_DIR")
    escaped = []
    for path in WATCH.writes:
        inside = any(path.startswith(prefix) or path + os.sep == prefix for prefix in allowed)
        outside_sandbox = not path.startswith(str(sandbox) + os.sep)
        harmless = (cache and path.startswith(cache)) or path.endswith(".pyc") or "__pycache__" in path
        if path in (str(sandbox / name) for name in target.writes) or str(sandbox).startswith(path):
            continue  # the folder it may write, or a folder above it (`mkdir(parents=True)`)
        if not inside and not (outside_sandbox and harmless):
            escaped.append(f"write {path}")
    secret = str(sandbox / "secret") + os.sep
    if target.reads_confined:
        escaped += [f"read {path}" for path in WATCH.reads if path.startswith(secret)]
    now = {str(p): p.read_bytes() for p in (sandbox / "secret").rglob("*") if p.is_file()}
    if now != secret_before:
        escaped.append("the folder outside --out changed")
    return escaped


def run_case(target: Target, seeds: Path, work: Path, rng: random.Random) -> Outcome:
    sandbox = Path(tempfile.mkdtemp(prefix="case-", dir=work)).resolve()
    seed = seeds / SEED_FOLDERS[target.name]
    shutil.copytree(seed, sandbox, dirs_exist_ok=True, copy_function=os.link, symlinks=True)
    (sandbox / "secret").mkdir()
    (sandbox / "secret/passwd.mp4").write_bytes(b"outside --out")
    secret_before = {str(p): p.read_bytes() for p in (sandbox / "secret").rglob("*") if p.is_file()}
    file = rng.choice(target.files)
    named = [file, Path(file).name]
    if rng.random() < 0.15:
        mutation, name = mutate_layout(sandbox, target, file, rng)
        named = [name, Path(name).name]
    else:
        path = sandbox / file
        data, mutation = mutate_bytes(path.read_bytes(), path, rng)
        path.unlink()  # the seed is hard-linked: never write through it
        path.write_bytes(data)
        mutation = f"{file}: {mutation}"
    WATCH.writes.clear()
    WATCH.reads.clear()
    WATCH.active = True
    try:
        with _time_limit(CASE_LIMIT_S):
            how, text = target.run(sandbox)
    except TimeoutError:
        how, text = "timeout", ""
    finally:
        WATCH.active = False
    escapes = _escapes(sandbox, target, secret_before)
    if escapes:
        outcome, text = "escape", "; ".join(escapes[:3])
    elif how in ("uncaught", "catch-all", "timeout"):
        outcome = "catch-all" if how != "timeout" else "timeout"
    elif how == "ok":
        outcome = "accepted"
    else:
        outcome = (
            "clean error naming the file" if any(n in text for n in named) else "clean error without the file"
        )
    shutil.rmtree(sandbox, ignore_errors=True)
    return Outcome(target.name, mutation, outcome, text.strip()[-600:])


SEED_FOLDERS = {
    **{
        f"steps {n}": f"steps-{n.replace(' ', '-')}"
        for n in ("youcook2", "hirest", "goalstep", "keystep", "table csv", "table jsonl", "label map")
    },
    "import minerva": "minerva",
    "import minerva (videos CSV)": "minerva",
    "import movierecapsqa": "movierecapsqa",
    "import movierecapsqa-answers (responses.jsonl)": "answers",
    "import movierecapsqa-answers (answers.csv)": "answers",
    "label movierecapsqa --labels": "labels",
    "validate (benchmark folder)": "benchmark-folder",
    "build instructionbench (inputs)": "build-instructionbench",
    "build egofact (inputs)": "build-egofact",
    "build movierecapsqa (manifest)": "build-movierecapsqa",
    "import table (csv)": "table-csv",
    "import table (jsonl)": "table-jsonl",
    **{f"import {name}": f"preset-{name}" for name in PRESET_SEEDS},
}


def fuzz(count: int, seed: int = 0, work: Path | None = None, only: list[str] | None = None) -> list[Outcome]:
    """Run `count` mutated cases over every target (those whose name holds one of `only`),
    round robin, reproducibly from `seed`."""
    _install_hook()
    with tempfile.TemporaryDirectory(prefix="vqakit-fuzz-", dir=work) as folder:
        root = Path(folder).resolve()
        os.environ.setdefault("VQAKIT_CACHE_DIR", str(root / "cache"))
        targets = make_seeds(root / "seeds")
        rng = random.Random(seed)
        order = [target for target in targets if not only or any(part in target.name for part in only)]
        return [run_case(order[i % len(order)], root / "seeds", root, rng) for i in range(count)]


def table(outcomes: list[Outcome]) -> str:
    """`tried / clean error naming the file / catch-all / escape`, then every outcome by target."""
    counts = Counter(o.outcome for o in outcomes)
    lines = [
        "| tried | clean error naming the file | catch-all | escape |",
        "|---|---|---|---|",
        f"| {len(outcomes)} | {counts['clean error naming the file']} | {counts['catch-all']} "
        f"| {counts['escape']} |",
        "",
        "| target | tried | " + " | ".join(OUTCOMES) + " |",
        "|---|---|" + "---|" * len(OUTCOMES),
    ]
    for name in dict.fromkeys(o.target for o in outcomes):
        mine = Counter(o.outcome for o in outcomes if o.target == name)
        lines.append(
            f"| {name} | {sum(mine.values())} | " + " | ".join(str(mine[k]) for k in OUTCOMES) + " |"
        )
    lines.append(f"| all | {len(outcomes)} | " + " | ".join(str(counts[k]) for k in OUTCOMES) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", choices=OUTCOMES, action="append", default=[], help="print these cases")
    parser.add_argument("--json", type=Path, help="also write every case's outcome to this file")
    parser.add_argument(
        "--only", action="append", help="only the targets whose name holds this text (e.g. 'import table')"
    )
    arguments = parser.parse_args()
    started = time.perf_counter()
    outcomes = fuzz(arguments.count, arguments.seed, only=arguments.only)
    if arguments.json:
        arguments.json.write_text(json.dumps([o.__dict__ for o in outcomes], indent=1))
    for outcome in outcomes:
        if outcome.outcome in arguments.show or outcome.outcome in (
            "catch-all",
            "escape",
            "timeout",
            "clean error without the file",
        ):
            print(f"[{outcome.outcome}] {outcome.target}: {outcome.mutation}\n    {outcome.text[-300:]}")
    print(table(outcomes))
    print(f"{len(outcomes)} cases in {time.perf_counter() - started:.0f} s (seed {arguments.seed})")


if __name__ == "__main__":
    main()
