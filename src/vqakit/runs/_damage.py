"""Which files of a run folder are append-only logs, and what a verb does with lines of them
that cannot be read: refuse (`check_run_logs`, the default of every verb that scores or
reports), or, when the user asks, move them into quarantine files beside the logs
(`set_aside_run_logs`, `--set-aside-bad-lines`), counted in results.json `set_aside`.

Logs are registered by file-name pattern with their parser (`register_run_log`): the run's
predictions, judgments (and a ranking's `judgments-*.jsonl`) and the judges' batch files here;
a method whose run keeps a log of its own (a participant's answers.jsonl) registers it.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from fnmatch import fnmatch
from pathlib import Path

from vqakit.files import (
    IGNORED,
    BadLogLines,
    LogReader,
    OutFolderRefused,
    Parser,
    SetAside,
    check_out,
    is_set_aside_file,
    set_aside_bad_lines,
)
from vqakit.models import parse_batch_event, parse_batch_reply
from vqakit.runs._folder import (
    CONFIG,
    FRAMES,
    JUDGE_BATCH_RESULTS,
    JUDGE_BATCHES,
    JUDGMENTS,
    MANIFEST,
    PREDICTIONS,
    REPORT,
    RESULTS,
    SCORES,
)
from vqakit.runs._logs import parse_judgment, parse_prediction
from vqakit.schema import CARD

_RUN_LOGS: dict[str, Parser] = {}  # file-name pattern -> the parser of its lines


def register_run_log(pattern: str, parse: Parser) -> None:
    """Declare the files of a run folder matching `pattern` (fnmatch) as append-only logs read
    with `parse`; their bad lines are refused or set aside like the run's own logs'."""
    _RUN_LOGS[pattern] = parse


register_run_log(PREDICTIONS, parse_prediction)
register_run_log(JUDGMENTS, parse_judgment)
register_run_log("judgments-*.jsonl", parse_judgment)
register_run_log(JUDGE_BATCHES, parse_batch_event)
register_run_log(JUDGE_BATCH_RESULTS, parse_batch_reply)


def _log_parser(name: str) -> Parser | None:
    return next((parse for pattern, parse in _RUN_LOGS.items() if fnmatch(name, pattern)), None)


_RUN_FILES = {CONFIG, MANIFEST, SCORES, RESULTS, REPORT, FRAMES, "samples"}  # besides the logs


def is_run_folder(folder: Path) -> bool:
    """Whether `folder` holds a run (its config.yaml), or only what a run folder holds before
    its config is written (its logs, e.g. a participant's answers.jsonl to rebuild a run from)."""
    if (folder / CONFIG).is_file():
        return True
    if not folder.is_dir():
        return False
    names = [name for name in os.listdir(folder) if name not in IGNORED]
    return all(
        name in _RUN_FILES or is_set_aside_file(name) or _log_parser(name) is not None for name in names
    )


def check_run_out(folder: str | Path, benchmark_root: str | Path) -> None:
    """Before a run is written to `folder`: it must be new, empty or a run folder (resumed,
    `is_run_folder`), and neither the benchmark folder, another benchmark, inside the benchmark
    nor holding it (`vqakit.files.OutFolderRefused`: exit 2, nothing written)."""
    folder = Path(folder)
    if (folder / CARD).is_file() and not (folder / CONFIG).is_file():
        raise OutFolderRefused(
            f"--out {folder} is a benchmark folder ({CARD}); a run goes in a folder of its own, e.g. "
            f"--out runs/{folder.name or 'run'}-run"
        )
    check_out(folder, "eval", inputs=[benchmark_root], legacy=is_run_folder, kind="run folder")


def run_logs(folder: str | Path) -> list[tuple[Path, Parser]]:
    """The log files present in the run folder, each with its parser."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    found = []
    for path in sorted(folder.iterdir()):
        if not path.is_file() or is_set_aside_file(path):
            continue
        parse = _log_parser(path.name)
        if parse is not None:
            found.append((path, parse))
    return found


def _problems(path: Path, parse: Parser) -> list[tuple[int, str]]:
    """The (line, reason) of each line of the log that cannot be read, read as a stream (a log
    of a million records is checked without holding them)."""
    reader = LogReader(path, parse)
    for _ in reader:
        pass
    return reader.problems


def run_log_problems(folder: str | Path, *, but: Collection[str] = ()) -> list[BadLogLines]:
    """A `BadLogLines` for each log of the run folder with lines that cannot be read (but the
    logs named in `but`, which their caller reads and checks itself)."""
    return [
        BadLogLines(path, problems)
        for path, parse in run_logs(folder)
        if path.name not in but and (problems := _problems(path, parse))
    ]


def raise_bad_logs(bad: Sequence[BadLogLines]) -> None:
    """One `BadLogLines` naming every line of every log in `bad` (by file name), if any."""
    if bad:
        ordered = sorted((one for found in bad for one in found.each()), key=lambda one: one.path.name)
        raise BadLogLines(ordered[0].path, ordered[0].problems, more=ordered[1:])


def check_run_logs(folder: str | Path) -> None:
    """`BadLogLines` naming every line of every log of the run folder that cannot be read."""
    raise_bad_logs(run_log_problems(folder))


def set_aside_run_logs(folder: str | Path) -> list[SetAside]:
    """Move the lines of the run folder's logs that cannot be read into their quarantine files
    (`vqakit.files.set_aside_bad_lines`); the caller holds the run's lock."""
    return [
        moved for path, parse in run_logs(folder) if (moved := set_aside_bad_lines(path, parse)) is not None
    ]


def checked_run_logs(folder: str | Path, *, set_aside: bool = False) -> list[SetAside]:
    """What every verb that reads a run does first, holding the run's lock: with `set_aside`,
    move the logs' unreadable lines into their quarantine files (returned, for the verb to
    list); then `check_run_logs` (raises `BadLogLines` for whatever is left)."""
    moved = set_aside_run_logs(folder) if set_aside else []
    check_run_logs(folder)
    return moved
