"""Review decisions, progress and agreement (Cohen's and Fleiss' kappa), and `review apply`
under each policy: the new folder validates, its card records the review, changes.md says who
changed what and why, and unchanged samples keep their lines."""

from __future__ import annotations

import json
import uuid

import pytest
import yaml
from click.testing import CliRunner

from vqakit.benchmarks import check_benchmark, load_benchmark
from vqakit.cli import main
from vqakit.files import OutFolderRefused
from vqakit.runner import benchmark_hash
from vqakit.studio import ReviewStore, apply_review, review_summary
from vqakit.studio._review import DecisionBody, EditError

SAMPLE = load_benchmark("sample")
BY_ID = {s.id: s for s in SAMPLE.samples}


@pytest.fixture
def store(tmp_path):
    return ReviewStore(tmp_path / "review", benchmark_hash(SAMPLE))


def decide(store, person, sample_id, decision, **fields):
    body = DecisionBody(decision=decision, request_id=uuid.uuid4().hex, **fields)
    return store.record(person, BY_ID[sample_id], body)[0]


def test_decisions_are_validated_and_a_later_one_supersedes(store):
    request = {"request_id": "request-0001"}
    with pytest.raises(ValueError, match="reason"):
        DecisionBody(decision="drop", **request)
    with pytest.raises(ValueError, match="note"):
        DecisionBody(decision="drop", reason="other", **request)
    with pytest.raises(ValueError, match="cannot edit"):
        DecisionBody(decision="edit", edit={"id": "x"}, **request)
    with pytest.raises(ValueError, match="request_id"):  # a retried request must be written once
        DecisionBody(decision="keep")
    with pytest.raises(EditError, match="answer"):
        decide(store, "alice", "ped-sign", "edit", edit={"answer": 9})
    decide(store, "alice", "ped-sign", "keep")
    decide(store, "alice", "ped-sign", "drop", reason="ambiguous", note="two signs")
    latest = store.latest()["alice"]["ped-sign"]
    assert (latest.decision, latest.reason, latest.note) == ("drop", "ambiguous", "two signs")
    assert len(store.history("alice")) == 2  # nothing rewritten
    assert latest.benchmark_hash == benchmark_hash(SAMPLE)


def test_cohen_and_fleiss_kappa_match_hand_counts(store):
    ids = ["ped-viewpoint", "ped-vehicle", "ped-sign", "ped-tripod"]
    votes = {
        "alice": ["keep", "drop", "keep", "edit"],
        "bob": ["keep", "drop", "drop", "keep"],
        "carol": ["keep", "drop", "drop", "keep"],
    }
    for person in ("alice", "bob"):
        for sample_id, vote in zip(ids, votes[person], strict=True):
            extra = (
                {"reason": "ambiguous"}
                if vote == "drop"
                else {"edit": {"question": "Where is the camera?"}}
                if vote == "edit"
                else {}
            )
            decide(store, person, sample_id, vote, **extra)
    two = review_summary([s.id for s in SAMPLE.samples], store.latest())
    assert (two.samples, two.reviewed, two.doubly) == (46, 4, 4)
    (cohen,) = two.agreement
    # observed 2/4; chance (2*2 + 1*2 + 1*0) / 16 = 0.375; kappa = 0.125 / 0.625
    assert cohen.method == "Cohen" and cohen.n == 4 and cohen.kappa == pytest.approx(0.2)
    assert cohen.observed == pytest.approx(0.5)
    for sample_id, vote in zip(ids, ["keep", "drop", "drop", "keep"], strict=True):
        decide(store, "carol", sample_id, vote, **({"reason": "blind"} if vote == "drop" else {}))
    three = review_summary([s.id for s in SAMPLE.samples], store.latest())
    fleiss = three.agreement[-1]
    # rows (keep, drop, edit): (3,0,0) (0,3,0) (1,2,0) (2,0,1); P = 2/3; Pe = 0.5^2 + (5/12)^2 + (1/12)^2
    expected = (2 / 3 - (0.25 + 25 / 144 + 1 / 144)) / (1 - (0.25 + 25 / 144 + 1 / 144))
    assert fleiss.method == "Fleiss" and fleiss.n == 4 and fleiss.kappa == pytest.approx(expected)
    assert [a.method for a in three.agreement] == ["Cohen", "Cohen", "Cohen", "Fleiss"]
    progress = {p.person: p for p in three.people}
    assert (progress["alice"].keep, progress["alice"].drop, progress["alice"].edit) == (2, 1, 1)


def test_kappa_is_undefined_when_everyone_decides_alike(store):
    for person in ("alice", "bob"):
        decide(store, person, "ped-sign", "keep")
    (cohen,) = review_summary(["ped-sign"], store.latest()).agreement
    assert cohen.kappa is None and cohen.observed == 1.0


def scripted_review(store):
    """s1 dropped by both; s2 dropped by one; s3 the same edit by both; s4 an edit and a keep;
    s5 two different edits."""
    decide(store, "alice", "ped-viewpoint", "drop", reason="ambiguous", note="fixed or mounted?")
    decide(store, "bob", "ped-viewpoint", "drop", reason="wrong-gold")
    decide(store, "alice", "ped-vehicle", "drop", reason="blind")
    decide(store, "bob", "ped-vehicle", "keep")
    same = {"question": "What is fixed to the lamp post?"}
    decide(store, "alice", "ped-sign", "edit", edit=same, note="shorter")
    decide(store, "bob", "ped-sign", "edit", edit=same)
    decide(store, "alice", "ped-tripod", "edit", edit={"category": "scene"})
    decide(store, "bob", "ped-tripod", "keep")
    decide(store, "alice", "ped-barrier", "edit", edit={"answer": 2})
    decide(
        store,
        "bob",
        "ped-barrier",
        "edit",
        edit={"question": "What fences off the area?", "skills": ["layout"]},
    )


@pytest.mark.parametrize(
    ("policy", "dropped", "edited", "unapplied"),
    [
        ("all", {"ped-viewpoint"}, {"ped-sign"}, {"ped-vehicle", "ped-tripod", "ped-barrier"}),
        ("any", {"ped-viewpoint", "ped-vehicle"}, {"ped-sign", "ped-tripod", "ped-barrier"}, set()),
        ("majority", {"ped-viewpoint"}, {"ped-sign"}, {"ped-vehicle", "ped-tripod", "ped-barrier"}),
    ],
)
def test_apply_under_each_policy(tmp_path, store, policy, dropped, edited, unapplied):
    scripted_review(store)
    out = tmp_path / f"reviewed-{policy}"
    outcome = apply_review("sample", out, policy, review_dir=store.folder)
    assert {c.sample_id for c in outcome.changes if c.kind == "drop"} == dropped
    assert {c.sample_id for c in outcome.changes if c.kind == "edit"} == edited
    assert {c.sample_id for c in outcome.changes if c.kind == "unapplied"} == unapplied
    bench, problems = check_benchmark(out)
    assert problems == [] and bench is not None
    assert len(bench.samples) == 46 - len(dropped)
    card = yaml.safe_load((out / "benchmark.yaml").read_text())
    assert card["version"] == "0.1.0+review" and card["name"] == "sample"
    assert card["review"]["policy"] == policy and card["review"]["reviewers"] == ["alice", "bob"]
    assert (card["review"]["dropped"], card["review"]["edited"]) == (len(dropped), len(edited))
    assert card["review"]["source_hash"] == benchmark_hash(SAMPLE)
    new = {s.id: s for s in bench.samples}
    assert new["ped-sign"].question == "What is fixed to the lamp post?"
    changes = (out / "changes.md").read_text()
    assert (
        "- `ped-viewpoint`: by alice (ambiguous: more than one option fits, or the question is unclear; "
        "fixed or mounted?), bob (the gold answer is wrong)"
    ) in changes
    assert (
        '  - question: "What is fixed to the lamp post in the middle of the scene?" -> '
        '"What is fixed to the lamp post?"'
    ) in changes
    if policy == "any":
        barrier = new["ped-barrier"]
        assert (barrier.answer, barrier.question, barrier.metadata.skills) == (
            2,
            "What fences off the area?",
            ["layout"],
        )
        assert new["ped-tripod"].metadata.category == "scene"
    else:
        assert (
            "- `ped-vehicle`: drop by alice (answerable without the video); keep by bob "
            "(no agreement under this policy)"
        ) in changes
    # untouched samples keep their line as written (same fields, same order)
    source = next(
        line for line in (SAMPLE.root / "samples.jsonl").read_text().splitlines() if '"bikes-helmet"' in line
    )
    written = next(
        line for line in (out / "samples.jsonl").read_text().splitlines() if '"bikes-helmet"' in line
    )
    assert list(json.loads(written).items()) == list(json.loads(source).items())
    assert (out / "media/pedestrians.mp4").stat().st_size == (
        SAMPLE.root / "media/pedestrians.mp4"
    ).stat().st_size
    assert not (out / "review").exists()


def test_apply_refuses_a_folder_in_use(tmp_path, store):
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "x").write_text("")
    with pytest.raises(OutFolderRefused, match="did not write"):
        apply_review("sample", tmp_path / "taken", "any", review_dir=store.folder)
    assert [p.name for p in (tmp_path / "taken").iterdir()] == ["x"]


def test_review_commands_print_progress_agreement_and_apply(tmp_path, store):
    scripted_review(store)
    runner = CliRunner()
    result = runner.invoke(main, ["review", "sample", "--review-dir", str(store.folder)])
    assert result.exit_code == 0, result.output
    assert "46 samples; reviewed by someone: 5; by two or more people: 5" in result.output
    assert "Cohen's kappa (alice, bob):" in result.output and "on 5 samples" in result.output
    assert "alice                        5     11%" in result.output
    out = tmp_path / "new"
    result = runner.invoke(
        main,
        [
            "review",
            "apply",
            "sample",
            "--policy",
            "majority",
            "--out",
            str(out),
            "--review-dir",
            str(store.folder),
        ],
    )
    assert result.exit_code == 0, result.output
    assert (
        "45 samples kept (1 edited), 1 dropped, 3 with decisions not applied under --policy majority"
        in result.output
    )
    assert runner.invoke(main, ["validate", str(out)]).exit_code == 0
    again = runner.invoke(
        main,
        [
            "review",
            "apply",
            "sample",
            "--policy",
            "all",
            "--out",
            str(out),
            "--review-dir",
            str(store.folder),
        ],
    )
    assert again.exit_code == 0, again.output  # its own earlier output: written again, whole
    assert yaml.safe_load((out / "benchmark.yaml").read_text())["review"]["policy"] == "all"


def test_runs_opened_beside_a_benchmark_show_their_answers_and_filter_the_queue(tmp_path):
    from starlette.testclient import TestClient

    from vqakit.runner import EvalConfig, run_eval
    from vqakit.runs import RunFolder
    from vqakit.studio import Studio, StudioSettings, create_app

    run = run_eval(EvalConfig(bench="sample", method="random", limit=10), tmp_path / "random").folder
    wrong = {sid for sid, row in RunFolder(run).scores().items() if row["correct"] is False}
    studio = Studio(StudioSettings(folders=[str(run)], review_dir=tmp_path / "review"))
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"}, headers={"x-csrf-token": csrf})
    queue = web.get("/api/queue", params={"wrong": "random"}).json()
    assert {item["id"] for item in queue["items"]} == wrong and queue["facets"]["wrong"] == ["random"]
    shown = web.get(f"/api/sample/{sorted(wrong)[0]}").json()
    assert shown["runs"][0]["run"] == "random" and shown["runs"][0]["status"] == "answered"
    assert shown["wrong_in"] == ["random"]


def test_the_sample_view_shows_the_two_hop_pair_the_builder_used(tmp_path):
    from vqakit.studio import Studio, StudioSettings
    from vqakit.studio._views import sample_view

    studio = Studio(StudioSettings(folders=["sample"], review_dir=tmp_path / "review"))
    workspace = studio.workspace(None)
    shown = sample_view(workspace, workspace.sample("hop2-bike-lock"))
    evidence = {item["title"]: [line["text"] for line in item["lines"]] for item in shown["evidence"]}
    pairs = evidence["Two-hop pairs: each option's object, passage and statement"]
    assert pairs[0] == (
        "bicycle (passage howto-lock-bicycle): factual E. The lock should pass through its frame and rear "
        "wheel and around a fixed object. | counterfactual F. Locking only its front wheel is enough, "
        "because that wheel cannot be removed."
    )
    passage = workspace.benchmark().passages["howto-lock-bicycle"]  # the gold passage, in full
    assert evidence[passage.title or passage.id] == [passage.text]
