"""Studies: `--assign K` gives each sample to exactly K reviewers, balanced, each in an order of
their own, recorded and read back (and a reviewer sees only theirs); `--subset N --seed S` (or a
list file) draws the participants' questions reproducibly and records the draw in each run; the
samples reviewers disagree on (by decision or by edit) go to a named adjudicator, whose decision
`review apply` takes as final; per-sample agreement is on the home page, in /api/progress and in
`vqakit review --json`."""

from __future__ import annotations

import itertools
import json
import shutil
import uuid
from collections import Counter
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from starlette.testclient import TestClient

from vqakit.cli import main
from vqakit.studio import Person, Studio, StudioError, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"


def session(studio: Studio, person: str) -> TestClient:
    """A person's session by their link token (as from the printed link)."""
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765", raise_server_exceptions=False)
    role = studio.roles.get(person, "reviewer")
    web.headers["authorization"] = f"Bearer {studio.signer.token(person, role)}"
    web.headers["x-csrf-token"] = web.get("/api/session").json()["csrf"]
    return web


def decide(web: TestClient, sample_id: str, decision: str, path: str = "review", **fields):
    body = {"decision": decision, "request_id": uuid.uuid4().hex, **fields}
    return web.post(f"/api/{path}/{sample_id}?bench=bench", json=body)


@pytest.fixture
def bench(tmp_path) -> Path:
    shutil.copytree(SAMPLE, tmp_path / "bench")
    return tmp_path / "bench"


@pytest.mark.parametrize(
    ("samples", "reviewers", "per_sample"), [(46, 3, 2), (10, 4, 3), (7, 7, 7), (5, 2, 1)]
)
def test_each_sample_goes_to_exactly_k_reviewers_balanced(samples, reviewers, per_sample):
    from vqakit.studio._study import assign

    ids = [f"s{i}" for i in range(samples)]
    people = [f"r{i}" for i in range(reviewers)]
    queues = assign(ids, people, per_sample, seed=3)
    counts = Counter(sample for queue in queues.values() for sample in queue)
    assert set(counts) == set(ids) and set(counts.values()) == {per_sample}
    assert all(len(set(queue)) == len(queue) for queue in queues.values())  # K distinct reviewers
    loads = [len(queue) for queue in queues.values()]
    assert max(loads) - min(loads) <= 1
    if 2 <= per_sample < reviewers:  # mixed: no pair of reviewers shares more than its share
        pairs = Counter(
            pair
            for s in ids
            for pair in itertools.combinations(sorted(p for p in people if s in queues[p]), 2)
        )
        assert (
            max(pairs.values()) - min(pairs.get(pair, 0) for pair in itertools.combinations(people, 2)) <= 2
        )
    assert queues == assign(ids, people, per_sample, seed=3)  # seeded
    assert queues != assign(ids, people, per_sample, seed=4) or per_sample == reviewers
    if samples > 5:
        orders = list(queues.values())  # each in an order of their own (one may be sorted by chance)
        assert sum(q != sorted(q, key=ids.index) for q in orders) >= len(orders) - 1
    with pytest.raises(ValueError, match="name at least"):
        assign(ids, people, reviewers + 1, seed=0)


def test_assignments_are_recorded_read_back_and_kept_to(bench, tmp_path):
    people = [Person(name) for name in ("alice", "bob", "carol")]
    settings = StudioSettings(folders=[str(bench)], people=people, assign=2, seed=7, runs=tmp_path / "runs")
    studio = Studio(settings)
    record = json.loads((bench / "review/assignments.json").read_text())
    assert (
        record["per_sample"] == 2 and record["seed"] == 7 and record["reviewers"] == ["alice", "bob", "carol"]
    )
    mine = record["queues"]["alice"]
    assert sorted(len(q) for q in record["queues"].values()) == [30, 31, 31]  # 46 samples x 2
    alice = session(studio, "alice")
    queue = alice.get("/api/queue?bench=bench").json()["items"]
    assert [item["id"] for item in queue] == mine  # hers only, in her order
    other = next(s for s in record["queues"]["bob"] if s not in mine)
    for path in (
        f"/api/sample/{other}?bench=bench",
        f"/review/sample/{other}?bench=bench",
        f"/frames/bench/0?sample={other}",
    ):
        assert alice.get(path).status_code == 404, path
    assert decide(alice, other, "keep").status_code == 404
    assert decide(alice, mine[0], "keep").status_code == 201
    assert "assigned to 2 reviewers" in alice.get("/").text
    assert Studio(settings).assignments["bench"].queues == record["queues"]  # read back, not redrawn
    with pytest.raises(StudioError, match=r"assignments\.json.*--assign 2 --seed 7"):
        Studio(StudioSettings(folders=[str(bench)], people=people, assign=3, seed=7))
    with pytest.raises(StudioError, match="only 3 reviewer"):
        Studio(StudioSettings(folders=[str(bench)], people=people, assign=4, review_dir=tmp_path / "other"))


def test_a_subset_is_drawn_reproducibly_and_recorded_in_each_run(bench, tmp_path):
    people = [Person("p01", "participant"), Person("p02", "participant")]

    def drawn(seed: int, runs: str) -> tuple[Studio, list[str]]:
        studio = Studio(
            StudioSettings(folders=[str(bench)], people=people, subset=5, seed=seed, runs=tmp_path / runs)
        )
        return studio, studio.subsets["bench"].ids

    studio, ids = drawn(3, "runs")
    assert len(ids) == 5 and drawn(3, "again")[1] == ids and drawn(4, "other")[1] != ids
    p01, p02 = session(studio, "p01"), session(studio, "p02")
    assert p01.get("/api/next?bench=bench").json()["total"] == 5
    first = p02.get("/api/next?bench=bench").json()["sample"]["id"]
    assert first in ids
    config = yaml.safe_load((tmp_path / "runs/bench-0.1.0-human-p02/config.yaml").read_text())
    assert config["method_args"]["subset"] == ids and "random.Random(3)" in config["method_args"]["draw"]
    outside = next(s.id for s in studio.workspace("bench").benchmark().samples if s.id not in ids)
    assert p02.get(f"/frames/bench/0?sample={outside}").status_code == 404
    # a list file, as a paper's fixed subset
    listed = tmp_path / "subset.txt"
    listed.write_text("# the paper's subset\nped-sign\n\nped-tripod\n")
    studio = Studio(
        StudioSettings(folders=[str(bench)], people=people, subset_file=listed, runs=tmp_path / "listed")
    )
    assert (
        studio.subsets["bench"].ids == ["ped-sign", "ped-tripod"]
        and "subset.txt" in studio.subsets["bench"].how
    )
    listed.write_text("ped-sign\nno-such-sample\n")
    with pytest.raises(StudioError, match=r"subset.txt:2: 'no-such-sample' is not a sample"):
        Studio(StudioSettings(folders=[str(bench)], people=people, subset_file=listed))
    with pytest.raises(StudioError, match="--limit and --subset"):
        Studio(StudioSettings(folders=[str(bench)], people=people, subset=5, limit=3))


def test_an_adjudicator_settles_disagreements_and_review_apply_takes_it_as_final(bench, tmp_path):
    people = [Person("alice"), Person("bob"), Person("ann", "adjudicator")]
    studio = Studio(StudioSettings(folders=[str(bench)], people=people, runs=tmp_path / "runs"))
    alice, bob, ann = session(studio, "alice"), session(studio, "bob"), session(studio, "ann")
    assert decide(alice, "ped-sign", "keep").status_code == 201
    assert decide(bob, "ped-sign", "drop", reason="wrong-gold").status_code == 201
    assert (
        decide(alice, "ped-tripod", "edit", edit={"question": "What stands on the lawn?"}).status_code == 201
    )
    assert decide(bob, "ped-tripod", "edit", edit={"question": "What is on the lawn?"}).status_code == 201
    assert decide(alice, "ped-barrier", "keep").status_code == 201
    assert decide(bob, "ped-barrier", "keep").status_code == 201

    listed = ann.get("/api/disagreements?bench=bench").json()["disagreements"]
    assert [(d["sample_id"], d["status"]) for d in listed] == [
        ("ped-sign", "decision"),
        ("ped-tripod", "edit"),
    ]
    assert listed[0]["votes"] == {"alice": "keep", "bob": "drop: wrong-gold"}
    assert listed[1]["edits"]["bob"] == {"question": "What is on the lawn?"}
    assert alice.get("/adjudicate?bench=bench").status_code == 403  # reviewers do not adjudicate
    assert ann.get("/review?bench=bench").status_code == 403  # the adjudicator does not vote
    assert (
        decide(ann, "ped-barrier", "drop", path="adjudicate", reason="blind").status_code == 404
    )  # agreed on
    assert decide(ann, "ped-sign", "keep", path="adjudicate").status_code == 201
    final = {"question": "What stands on the lawn, below the path?"}
    assert decide(ann, "ped-tripod", "edit", path="adjudicate", edit=final).status_code == 201

    summary = alice.get("/api/progress?bench=bench").json()
    assert [p["person"] for p in summary["people"]] == ["alice", "bob"]  # adjudications are not votes
    by_id = {s["sample_id"]: s for s in summary["per_sample"]}
    assert by_id["ped-sign"]["agreement"] == 0.0 and by_id["ped-sign"]["adjudication"] == "keep by ann"
    assert by_id["ped-barrier"]["agreement"] == 1.0 and by_id["ped-barrier"]["status"] == "agree"
    assert (summary["disagreements"], summary["adjudicated"]) == (2, 2)
    home = alice.get("/").text
    assert "differ by decision" in home and "keep by ann" in home

    runner = CliRunner()
    shown = runner.invoke(main, ["review", str(bench), "--json"])
    assert shown.exit_code == 0, shown.output
    printed = json.loads(shown.output)
    assert {s["sample_id"]: s["status"] for s in printed["per_sample"]} == {
        "ped-sign": "decision",
        "ped-tripod": "edit",
        "ped-barrier": "agree",
    }
    out = tmp_path / "reviewed"
    applied = runner.invoke(main, ["review", "apply", str(bench), "--policy", "any", "--out", str(out)])
    assert applied.exit_code == 0, applied.output
    assert "2 sample(s) settled by an adjudicator" in applied.output
    samples = {
        json.loads(line)["id"]: json.loads(line) for line in (out / "samples.jsonl").read_text().splitlines()
    }
    assert "ped-sign" in samples  # "any" drops on bob's drop; the adjudicator kept it
    assert samples["ped-tripod"]["question"] == final["question"]
    changes = (out / "changes.md").read_text()
    assert "## Settled by an adjudicator (2)" in changes and "keep by ann" in changes
