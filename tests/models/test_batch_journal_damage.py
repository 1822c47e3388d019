"""The judges' batch journal and replies, damaged at the start, middle or end: a line that cannot
be read stops the journal's readers (a batch that was paid for is never forgotten, so never
submitted twice) and `vqakit report` on the run (exit 1, FILE:LINE), and no line is cut; set
aside on request, the line is kept beside the journal and counted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from vqakit.cli import main
from vqakit.files import BadLogLines
from vqakit.models import BatchJournal, Completion
from vqakit.models._batch_journal import Intent, SubmittedBatch

JOURNAL, REPLIES = "judge_batches.jsonl", "judge_batch_results.jsonl"


def write_journal(folder: Path) -> None:
    """Two batches: the first submitted and ended with its replies, the second outstanding."""
    journal = BatchJournal(folder / JOURNAL, folder / REPLIES)
    for number, keys in ((1, ("k1", "k2")), (2, ("k3",))):
        intent = Intent.new("openai", "openai:judge", {key: {"body": number} for key in keys})
        journal.add_intent(intent)
        journal.add_submitted(SubmittedBatch(f"batch-{number}", "openai", "openai:judge", keys, intent.id))
    replies = {"k1": Completion("yes", "judge"), "k2": Completion("no", "judge")}
    journal.add_results("batch-1", replies, "completed")


@pytest.fixture(scope="module")
def run_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    run = tmp_path_factory.mktemp("batches") / "run"
    made = CliRunner().invoke(
        main, ["eval", "sample", "--method", "random", "--limit", "3", "--out", str(run)]
    )
    assert made.exit_code == 0, made.output
    return run


def copy_run(run: Path, into: Path) -> Path:
    into.mkdir()
    for path in run.iterdir():
        if path.is_file():
            (into / path.name).write_bytes(path.read_bytes())
    return into


@pytest.mark.parametrize("name", [JOURNAL, REPLIES])
@pytest.mark.parametrize("where", ["start", "middle", "end"])
def test_a_damaged_batch_line_is_named_and_never_cut(run_folder, tmp_path, name, where):
    run = copy_run(run_folder, tmp_path / "run")
    write_journal(run)
    lines = (run / name).read_bytes().splitlines(keepends=True)
    number = {"start": 1, "middle": len(lines) // 2 + 1, "end": len(lines)}[where]
    lines[number - 1] = b'{"event": "submitted", "batch": 7}\n' if name == JOURNAL else b'{"key": "k1"}\n'
    damaged = b"".join(lines)
    (run / name).write_bytes(damaged)

    with pytest.raises(BadLogLines) as raised:
        BatchJournal(run / JOURNAL, run / REPLIES)
    assert raised.value.path == run / name and raised.value.problems[0][0] == number

    done = CliRunner().invoke(main, ["report", str(run)])
    assert done.exit_code == 1 and f"{run / name}:{number}: " in done.output, done.output
    assert (run / name).read_bytes() == damaged  # nothing cut

    aside = CliRunner().invoke(main, ["report", str(run), "--set-aside-bad-lines"])
    assert aside.exit_code == 0, aside.output
    assert json.loads((run / "results.json").read_text())["set_aside"] == {name: 1}
    kept = [line for line in damaged.splitlines(keepends=True) if line != lines[number - 1]]
    assert (run / name).read_bytes() == b"".join(kept)  # every other line, byte for byte
    BatchJournal(run / JOURNAL, run / REPLIES)  # reads whole again


def test_a_torn_last_line_is_left_out_and_the_next_append_removes_it(tmp_path):
    write_journal(tmp_path)
    whole = (tmp_path / JOURNAL).read_bytes()
    (tmp_path / JOURNAL).write_bytes(whole + b'{"event": "ended", "bat')  # a kill mid-write
    journal = BatchJournal(tmp_path / JOURNAL, tmp_path / REPLIES)
    assert [batch.id for batch in journal.outstanding()] == ["batch-2"]
    journal.add_results("batch-2", {"k3": Completion("yes", "judge")}, "completed")
    events = [json.loads(line) for line in (tmp_path / JOURNAL).read_text().splitlines()]
    assert (tmp_path / JOURNAL).read_bytes().startswith(whole) and events[-1]["batch"] == "batch-2"
    assert BatchJournal(tmp_path / JOURNAL, tmp_path / REPLIES).outstanding() == []
