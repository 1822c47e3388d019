"""`vqakit diff` names each kind of difference between two real runs made to differ in it.

Runs are made through the runner on a small benchmark (two synthetic clips, 16 MCQ and 2
open-ended questions). Two test doubles stand in for models, at their boundaries: a loopback
OpenAI-compatible server whose reply is a function of the whole request (its images, text and
temperature: any change in what is sent changes the reply of about three questions in four), and
the replay backend (recorded replies, for differences in how a reply is read or judged). Two
differences no run on one machine can make, another vqakit version and another judge prompt, are
written into a copy of a run's manifest, as a run from another machine would have them."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fake_server import FakeServer, chat_reply

from vqakit.builders import write_benchmark_folder
from vqakit.cli import main
from vqakit.runner import EvalConfig, diff_runs, run_eval

MEDIA = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample/media/synthetic"
MCQ = 16


def _samples() -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = [
        {
            "id": f"q{i:02d}",
            "question": f"Question {i} about what the clip shows?",
            "videos": [{"path": "media/counting.mp4" if i % 2 else "media/crossing.mp4"}],
            "choices": ["red", "green", "blue", "white"],
            "answer": i % 4,
            "metadata": {"category": "even" if i % 2 == 0 else "odd"},
        }
        for i in range(MCQ)
    ]
    found += [
        {"id": f"open{i}", "question": f"What happens in clip {i}?", "answer": "Something moves.",
         "videos": [{"path": "media/counting.mp4"}]}
        for i in range(2)
    ]  # fmt: skip
    return found


def _bench(root: Path, version: str = "1", gold: dict[str, int] | None = None) -> Path:
    samples = [
        {**sample, "answer": (gold or {}).get(sample["id"], sample["answer"])} for sample in _samples()
    ]
    card = {"name": "diff-tiny", "version": version, "license": "CC0-1.0", "description": "diff test"}
    card["protocol"] = {"frames": "uniform:4"}
    media = {"counting.mp4": MEDIA / "counting.mp4", "crossing.mp4": MEDIA / "crossing.mp4"}
    write_benchmark_folder(root, card=card, samples=samples, media=media, writer="diff test")
    return root


class RequestModel(FakeServer):
    """Replies `Answer: <letter>`, the letter a function of the whole request (messages with
    their images, and the temperature): the same request always gets the same reply."""

    def __init__(self) -> None:
        super().__init__()

        class Handler(self.httpd.RequestHandlerClass):  # type: ignore[name-defined, misc]
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                what = json.dumps([body["messages"], body.get("temperature")], sort_keys=True)
                letter = "ABCD"[hashlib.sha256(what.encode()).digest()[0] % 4]
                return self._send(200, chat_reply(f"Answer: {letter}"))

        self.httpd.RequestHandlerClass = Handler


def _replay(path: Path, replies: dict[str, str]) -> Path:
    path.write_text("".join(json.dumps({"sample_id": k, "reply": v}) + "\n" for k, v in replies.items()))
    return path


# the rules read "Answer: X"; they abstain on the hedged ones, which the extract judge reads
REPLIES = {f"q{i:02d}": "Answer: A" if i % 3 else "Maybe the first, maybe the third." for i in range(MCQ)}
REPLIES |= {"open0": "A dot moves.", "open1": "Nothing at all."}


@pytest.fixture(scope="module")
def place(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("diff")


@pytest.fixture(scope="module")
def bench(place: Path) -> Path:
    return _bench(place / "bench")


@pytest.fixture(scope="module")
def server() -> Any:
    with RequestModel() as running:
        yield running


@pytest.fixture(scope="module")
def served(place: Path, bench: Path, server: RequestModel) -> Path:
    """The run every loopback-server run is compared with."""
    spec = f"openai-compatible:{server.url}#tiny"
    return run_eval(EvalConfig(bench=str(bench), model=spec), place / "served").folder


def _serve(place: Path, bench: Path, server: RequestModel, name: str, **settings: Any) -> Path:
    spec = f"openai-compatible:{server.url}#tiny"
    return run_eval(EvalConfig(bench=str(bench), model=spec, **settings), place / name).folder


def _causes(result: dict[str, Any]) -> set[str]:
    return {group["cause"] for group in result["flipped"]["by_cause"]}


def _setting(result: dict[str, Any], key: str) -> dict[str, Any]:
    found = [setting for setting in result["settings"] if setting["key"] == key]
    assert found, f"{key} not among {[s['key'] for s in result['settings']]}"
    return found[0]


@pytest.fixture(scope="module")
def framed(place: Path, bench: Path, server: RequestModel) -> Path:
    return _serve(place, bench, server, "frames", frames="uniform:2")


def test_other_frames(served, framed):
    result = diff_runs(served, framed)
    frames = _setting(result, "protocol.frames")
    assert (
        frames["category"] == "frames" and frames["text"] == "frames sampled: uniform:4 in A, uniform:2 in B"
    )
    assert [s["key"] for s in result["settings"]] == ["protocol.frames"]
    assert result["sent"]["frames"] == MCQ + 2 and result["flipped"]["n"] > 0
    assert _causes(result) == {"different frames sent"}
    detail = result["flipped"]["by_cause"][0]["samples"][0]["detail"]
    assert detail.startswith("4 frames at ") and " in A, 2 frames at " in detail


def test_other_pixels_at_the_same_frame_times(place, bench, server, served):
    result = diff_runs(served, _serve(place, bench, server, "pixels", short_side=32))
    assert _setting(result, "protocol.short_side")["category"] == "pixels"
    assert result["sent"]["frames"] == 0 and result["sent"]["pixels"] == MCQ + 2
    assert _causes(result) == {"different pixels sent"}


def test_other_prompt_text(place, bench, server, served):
    result = diff_runs(served, _serve(place, bench, server, "prompt", prompt="mcq_numbered"))
    assert _setting(result, "protocol.prompt")["text"] == "answer prompt: mcq in A, mcq_numbered in B"
    assert result["sent"]["prompt"] >= MCQ and _causes(result) == {"different prompt text"}


def test_other_generation_settings(place, bench, server, served):
    result = diff_runs(served, _serve(place, bench, server, "warm", model_args={"temperature": 0.7}))
    setting = _setting(result, "model_args.temperature")
    assert setting["category"] == "generation" and setting["text"].endswith("not set in A, 0.7 in B")
    assert result["sent"]["prompt"] == result["sent"]["frames"] == 0 and result["sent"]["reply"] > 0
    assert _causes(result) == {"different reply"}


@pytest.fixture(scope="module")
def replayed(place: Path, bench: Path) -> Path:
    """A run of recorded replies, open-ended answers judged by a recorded judge."""
    answers = _replay(place / "answers.jsonl", REPLIES)
    judge = _replay(place / "judge-a.jsonl", {"open0": "yes", "open1": "no"})
    config = EvalConfig(bench=str(bench), model=f"replay:{answers}", judges={"open": f"replay:{judge}"})
    return run_eval(config, place / "replayed").folder


def test_another_reading_and_another_judgment_of_the_same_replies(place, bench, replayed):
    """Other frames were sent too, but the replies are the same: the frames did not flip them."""
    extract = _replay(place / "extract.jsonl", {f"q{i:02d}": "B" for i in range(0, MCQ, 3)})
    judge = _replay(place / "judge-b.jsonl", {"open0": "no", "open1": "yes"})
    config = EvalConfig(
        bench=str(bench),
        model=f"replay:{place / 'answers.jsonl'}",
        judges={"open": f"replay:{judge}", "extract": f"replay:{extract}"},
        frames="uniform:2",
    )
    result = diff_runs(replayed, run_eval(config, place / "read").folder)
    assert _setting(result, "judges.extract")["category"] == "reading"
    assert _setting(result, "judges.open")["category"] == "judges"
    assert result["sent"]["reply"] == 0 and result["sent"]["frames"] == MCQ + 2
    assert _causes(result) == {"different reading of the same reply", "different judgment of the same reply"}
    read = next(g for g in result["flipped"]["by_cause"] if g["cause"].startswith("different reading"))
    assert "no option read" in read["samples"][0]["detail"] and "read as B" in read["samples"][0]["detail"]
    judged = next(g for g in result["flipped"]["by_cause"] if g["cause"].startswith("different judgment"))
    assert {s["sample_id"] for s in judged["samples"]} == {"open0", "open1"}


def test_other_replies_and_a_failure(place, bench, replayed):
    changed = {**REPLIES, "q01": "Answer: B"}
    del changed["q02"]  # not recorded: that sample fails
    answers = _replay(place / "other-answers.jsonl", changed)
    judge = place / "judge-a.jsonl"
    config = EvalConfig(bench=str(bench), model=f"replay:{answers}", judges={"open": f"replay:{judge}"})
    result = diff_runs(replayed, run_eval(config, place / "replies").folder)
    assert _setting(result, "model")["text"].endswith("other-answers.jsonl in B")
    assert _causes(result) == {"failed in one run", "different reply"}
    assert result["sent"]["failed"] == 1 and result["sent"]["reply"] == 2  # q01's, and q02's (none in B)
    # q01: wrong in A (A), right in B (B); q02: wrong in A, failed in B
    assert (result["flipped"]["right_in_b_only"], result["flipped"]["other"]) == (1, 1)
    assert result["flipped"]["by_cause"][0]["samples"] == [
        {"sample_id": "q02", "a": "wrong", "b": "error: unknown_sample",
         "detail": "answered in A, error unknown_sample in B"}
    ]  # fmt: skip


def test_another_benchmark_version(place, replayed):
    other = _bench(place / "bench-2", version="2", gold={"q04": 1})  # q04's recorded reply is A
    config = EvalConfig(
        bench=str(other),
        model=f"replay:{place / 'answers.jsonl'}",
        judges={"open": f"replay:{place / 'judge-a.jsonl'}"},
    )
    result = diff_runs(replayed, run_eval(config, place / "bench-2-run").folder)
    assert _setting(result, "benchmark_version")["text"] == "benchmark version: 1 in A, 2 in B"
    assert _setting(result, "benchmark_hash")["category"] == "benchmark"
    assert _causes(result) == {"different gold answer"}
    assert result["flipped"]["by_cause"][0]["samples"] == [
        {"sample_id": "q04", "a": "right", "b": "wrong", "detail": "gold A in A, B in B"}
    ]


def test_a_run_from_another_machine_differs_in_locations_and_versions_only(place, replayed, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    shutil.copytree(place / "bench", elsewhere / "bench")
    for name in ("answers.jsonl", "judge-a.jsonl"):
        shutil.copy(place / name, elsewhere / name)
    config = EvalConfig(
        bench=str(elsewhere / "bench"),
        model=f"replay:{elsewhere / 'answers.jsonl'}",
        judges={"open": f"replay:{elsewhere / 'judge-a.jsonl'}"},
    )
    run = run_eval(config, elsewhere / "runs" / "same").folder
    same = diff_runs(replayed, run)
    assert same["settings"] == [] and same["flipped"]["n"] == 0
    assert {s["key"] for s in same["locations"]} == {"model", "judges.open"}
    manifest = json.loads((run / "manifest.json").read_text())
    manifest["versions"]["vqakit"] = "9.9.0"
    manifest["prompt_hashes"]["judge_open"] = "0123456789abcdef"
    (run / "manifest.json").write_text(json.dumps(manifest))
    result = CliRunner().invoke(main, ["diff", str(replayed), str(run)])
    assert result.exit_code == 0, result.output
    assert "  vqakit and dependency versions:\n    vqakit version: 0.1.0 in A, 9.9.0 in B" in result.output
    assert "prompt file judge_open (read by the judge or method step that uses it; hash)" in result.output
    assert "files in other folders only (same names): model, judges.open" in result.output
    assert "outcomes that differ: 0 " in result.output


def test_imported_answers(tmp_path, index_clip, monkeypatch):
    monkeypatch.syspath_prepend(str(Path(__file__).parents[1] / "systems" / "movierecapsqa"))
    from claim_loopback import LoopbackJudges, build_bench

    from vqakit.systems.movierecapsqa.official import import_answers

    recaps = build_bench(tmp_path / "recaps", index_clip)
    first, second = tmp_path / "one" / "answers.csv", tmp_path / "two" / "answers.csv"
    for path, answer in ((first, "under a stone"), (second, "under a red car")):
        path.parent.mkdir()
        path.write_text(
            f"question_id,answer\nv1.0.0,Mara hides the key {answer}.\nv1.1.0,They leave at dawn.\n"
        )
    with LoopbackJudges() as judges:
        spec = f"openai-compatible:{judges.url}#judge"
        specs = dict.fromkeys(("claims", "factuality", "relevance", "coherence"), spec)
        for path, name in ((first, "run-1"), (second, "run-2")):
            import_answers(path, recaps.root, tmp_path / name, judges=specs)
    result = diff_runs(tmp_path / "run-1", tmp_path / "run-2")
    assert _setting(result, "method_args.digest")["category"] == "method"
    assert [s["key"] for s in result["locations"]] == ["method_args.source"]
    assert result["sent"]["reply"] == 1
    (group,) = result["flipped"]["by_cause"]
    assert group["cause"] == "different reply" and [s["sample_id"] for s in group["samples"]] == ["v1.0.0"]
    assert "factuality" in group["samples"][0]["a"] and group["samples"][0]["a"] != group["samples"][0]["b"]


def test_diff_as_json_and_bad_folders(served, framed, tmp_path):
    other = framed
    result = CliRunner().invoke(main, ["diff", str(served), str(other), "--json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["settings"][0]["key"] == "protocol.frames"
    text = CliRunner().invoke(main, ["diff", str(served), str(other), "--show", "1"]).output
    assert "  different frames sent: " in text and "more (--show N, or --json)" in text
    (tmp_path / "empty").mkdir()
    refused = CliRunner().invoke(main, ["diff", str(served), str(tmp_path / "empty")])
    assert refused.exit_code == 1 and "not a run folder (no config.yaml)" in refused.output
    damaged = tmp_path / "damaged"
    shutil.copytree(framed, damaged)
    lines = (damaged / "predictions.jsonl").read_text().splitlines(keepends=True)
    (damaged / "predictions.jsonl").write_text("".join([*lines[:4], '{"sample_id": "q0\n', *lines[4:]]))
    refused = CliRunner().invoke(main, ["diff", str(served), str(damaged)])
    assert refused.exit_code == 1 and "predictions.jsonl:5: not JSON" in refused.output
    (damaged / "predictions.jsonl").write_text("".join(lines) + '{"sample_id": "q0')  # a kill mid-line
    assert diff_runs(served, damaged)["samples"]["shared"] == MCQ + 2


def test_two_baselines_differ_in_their_choices_not_in_a_reading(place, bench):
    """Neither run has a reply to read: the cause is the options the methods picked."""
    one = run_eval(EvalConfig(bench=str(bench), method="random"), place / "random-0").folder
    other = run_eval(EvalConfig(bench=str(bench), method="random", seed=1), place / "random-1").folder
    result = diff_runs(one, other)
    assert _causes(result) == {"different choice without a reply"}
    detail = result["flipped"]["by_cause"][0]["samples"][0]["detail"]
    assert detail.startswith("picked ") and " by random in A, picked " in detail
    assert detail.endswith(" by random in B")
