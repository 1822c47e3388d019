"""The review queue as scripts get it (`GET /api/queue`): filtered by the builder's stages and
drop reasons, by `vqakit audit` flags (answered blind, option-length bias), by category and
skill, and by words in the id or question."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from starlette.testclient import TestClient

from vqakit.studio import Studio, StudioSettings, create_app

SAMPLE = Path(__file__).resolve().parents[2] / "src/vqakit/benchmarks/sample"
LONGEST = {  # the sample benchmark's MCQs whose gold is the only longest option
    "ped-viewpoint",
    "ped-sign",
    "ped-barrier",
    "ped-lawn-walkers",
    "bunny-after-exit",
    "bikes-helmet",
    "bikes-before-taxi",
    "bikes-after-taxi",
    "world-what",
    "thanks-text",
    "thanks-end",
    "wb-circle-motion",
    "cross-after-yellow",
    "hop2-bike-lock",
    "hop2-traffic-light",
}


@pytest.fixture
def queue(tmp_path):
    """A copy of the sample benchmark with a builder's drop log and an audit, and a function
    that asks the queue with some filters: (ids of the items, items of the drops listed)."""
    root = tmp_path / "bench"
    shutil.copytree(SAMPLE, root)
    (root / "build").mkdir()
    drops = [
        {"stage": "3 filter", "item": "ped-sign", "reason": "blind: a text-only model answered it"},
        {"stage": "8 mcq", "item": "bikes-helmet", "reason": "gave up: no checker found the answer"},
        {"stage": "3 filter", "item": "gone-question", "reason": "unspecific"},
    ]
    (root / "build/drops.jsonl").write_text("".join(json.dumps(d) + "\n" for d in drops))
    audit = tmp_path / "audit.json"
    flagged = [{"sample_id": "ped-vehicle", "models_right": ["a", "b"]}, {"sample_id": "world-what"}]
    audit.write_text(json.dumps({"blind": {"k": 2, "flagged": flagged}}))
    studio = Studio(StudioSettings(folders=[str(root)], audit=audit))
    web = TestClient(create_app(studio), base_url="http://127.0.0.1:8765")
    csrf = web.get("/api/session").json()["csrf"]
    web.post("/api/session", json={"person": "alice"}, headers={"x-csrf-token": csrf})

    def ask(**filters) -> tuple[set[str], list[str]]:
        found = web.get("/api/queue", params={"bench": "bench", **filters})
        assert found.status_code == 200, found.text
        body = found.json()
        return {item["id"] for item in body["items"]}, [d["item"] for d in body["dropped"]]

    ask.web = web
    return ask


def test_the_queue_filters_by_the_builders_stage_and_drop_reason(queue):
    assert queue(reason="blind") == ({"ped-sign"}, [])
    assert queue(reason="gave up") == ({"bikes-helmet"}, [])
    assert queue(stage="8 mcq") == ({"bikes-helmet"}, [])
    assert queue(stage="3 filter") == ({"ped-sign"}, ["gone-question"])  # dropped items are listed too
    assert queue(reason="unspecific") == (set(), ["gone-question"])
    facets = queue.web.get("/api/queue").json()["facets"]
    assert facets["stage"] == ["3 filter", "8 mcq"] and facets["reason"] == ["blind", "gave up", "unspecific"]


def test_the_queue_filters_by_audit_flags(queue):
    assert queue(flag="answered blind") == ({"ped-vehicle", "world-what"}, [])
    assert queue(flag="gold is the longest option")[0] == LONGEST
    assert queue(flag="answered blind", category="scene")[0] == {"world-what"}  # filters combine
    item = next(i for i in queue.web.get("/api/queue").json()["items"] if i["id"] == "world-what")
    assert item["flags"] == ["answered blind", "gold is the longest option"]


def test_the_queue_filters_by_category_skill_and_words(queue):
    assert queue(category="counting")[0] == {"count-end", "count-max", "count-which-vanish", "count-rate"}
    assert queue(skill="cause and effect")[0] == {"cross-light-at-start", "hop2-traffic-light"}
    assert queue(text="Lamp Post")[0] == {"ped-sign", "ped-tripod"}  # in the question, any case
    assert queue(text="taxi")[0] == {"bikes-before-taxi", "bikes-after-taxi", "hop2-taxi"}
    assert queue(text="hop2-glo")[0] == {"hop2-globe"}  # in the id
    assert queue(text="taxi", category="two-hop")[0] == {"hop2-taxi"}
    assert queue(category="no such category")[0] == set()
