"""Write the corpus and samples of the shipped `sample` benchmark.

Run from the repository root after scripts/make_sample_clips.py:
    python scripts/make_sample_benchmark.py [--out DIR]
The prose lives in scripts/sample_benchmark/ (passages.yaml, clips.yaml, samples.yaml); this script
expands it and writes corpus/passages.jsonl, corpus/clips.jsonl and samples.jsonl under DIR (default:
src/vqakit/benchmarks/sample). The questions were written after looking at frames of each video;
every answer can be checked by watching the video. Object tracks of the synthetic clips are computed
from the same scene data that rendered them, so they are right to the pixel.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).parent))

from make_sample_clips import FPS, SCENES, Shape, object_id

ROOT = Path(__file__).resolve().parents[1] / "src/vqakit/benchmarks/sample"
DATA = Path(__file__).resolve().parent / "sample_benchmark"
SCENE = {scene.name: scene for scene in SCENES}


def shape_of(scene_name: str, shape_name: str) -> Shape:
    if scene_name not in SCENE:
        raise KeyError(f"no synthetic scene {scene_name!r}; scenes: {sorted(SCENE)}")
    shapes = {shape.name: shape for shape in SCENE[scene_name].shapes}
    if shape_name not in shapes:
        raise KeyError(f"no shape {shape_name!r} in scene {scene_name!r}; shapes: {sorted(shapes)}")
    return shapes[shape_name]


def oid(scene: str, name: str) -> str:
    shape_of(scene, name)
    return object_id(scene, name)


def track(scene_name: str, shape_name: str, times: list[float]) -> dict:
    """Boxes of one synthetic shape at the given times (snapped to frame times)."""
    shape = shape_of(scene_name, shape_name)
    points = []
    for t in times:
        t = round(round(t * FPS) / FPS, 2)
        assert shape.visible(t), (shape_name, t)
        points.append({"time_s": t, "box": list(shape.box(t))})
    return {"id": oid(scene_name, shape_name), "label": shape_name.split()[0], "points": points}


def video(path: str, start: float | None = None, end: float | None = None) -> list[dict]:
    ref: dict = {"path": f"media/{path}"}
    if start is not None:
        ref["start_s"] = float(start)
    if end is not None:
        ref["end_s"] = float(end)
    return [ref]


def video_refs(spec: str | dict) -> list[dict]:
    """`video` of the data files: a path under media/, or {path, start, end}."""
    if isinstance(spec, str):
        return video(spec)
    return video(spec["path"], spec.get("start"), spec.get("end"))


# `{scene/shape}` in a reasoning text: the object id of that shape of a synthetic scene.
OBJECT_REF = re.compile(r"\{([^{}/]+)/([^{}]+)\}")


def expand_sample(spec: dict) -> dict:
    """A sample of samples.yaml as samples.jsonl writes it, keys in the same order: `video`
    becomes `videos`, `tracks` become `objects` and `{scene/shape}` in `reasoning` an object id."""
    sample: dict = {}
    for key, value in spec.items():
        if key == "video":
            sample["videos"] = video_refs(value)
        elif key == "tracks":
            sample["objects"] = [track(t["scene"], t["shape"], t["times"]) for t in value]
        elif key == "reasoning":
            sample["reasoning"] = OBJECT_REF.sub(lambda m: oid(m[1], m[2]), value)
        else:
            sample[key] = value
    return sample


def load(name: str) -> list[dict]:
    with open(DATA / name, encoding="utf-8") as handle:
        return yaml.safe_load(handle)


PASSAGES = load("passages.yaml")
CLIPS = [{**clip, "video": video_refs(clip["video"])[0]} for clip in load("clips.yaml")]
SAMPLES = [expand_sample(spec) for spec in load("samples.yaml")]


def balance_letters(sample: dict, slot: int) -> dict:
    """Put the gold option at position `slot` (mod the option count) and shuffle the others with
    a seed from the sample id, so gold letters are spread evenly over A, B, C, ...

    Options that read as an ordered scale (counts, times) keep their order; two-hop pair
    indices follow their statements.
    """
    choices = sample.get("choices")
    if not choices or all(re.fullmatch(r"[\d.]+( s)?", c) for c in choices):
        return sample
    others = [i for i in range(len(choices)) if i != sample["answer"]]
    random.Random(hashlib.sha256(sample["id"].encode()).digest()).shuffle(others)
    order = others[:]
    order.insert(slot % len(choices), sample["answer"])
    new_index = {old: new for new, old in enumerate(order)}
    shuffled = {**sample, "choices": [choices[i] for i in order], "answer": new_index[sample["answer"]]}
    pairs = sample.get("metadata", {}).get("pairs")
    if pairs:
        remapped = [
            {
                **pair,
                "counterfactual": new_index[pair["counterfactual"]],
                "factual": new_index[pair["factual"]],
            }
            for pair in pairs
        ]
        shuffled["metadata"] = {**sample["metadata"], "pairs": remapped}
    return shuffled


# Questions about one moment of a video cut into several corpus clips: the clip holding it.
GOLD_CLIP_OVERRIDES = {"ped-lawn-walkers": ["clip-pedestrians-b"], "ped-lawn-when": ["clip-pedestrians-b"]}


# EgoFact families for the video-only questions whose answer is an object at one moment (local)
# or next to another event (temporal): hop 1, reported with the two-hop ones as hop x grounding.
ONE_HOP = {
    "local": [
        "ped-vehicle",
        "ped-sign",
        "ped-tripod",
        "ped-barrier",
        "bunny-animal",
        "bikes-helmet",
        "bikes-railing",
        "bikes-roof-sign",
    ],
    "temporal": [
        "bikes-before-taxi",
        "bikes-after-taxi",
        "wb-disappears-after",
        "wb-caption-before",
        "wb-appears-during-step1",
    ],
}


def with_family(sample: dict) -> dict:
    grounding = next((g for g, ids in ONE_HOP.items() if sample["id"] in ids), None)
    if grounding is None:
        return sample
    return {**sample, "metadata": {**sample.get("metadata", {}), "hop": 1, "grounding": grounding}}


def with_gold_clips(sample: dict) -> dict:
    """Name the corpus clips that show what a question is about (for retrieval methods and their
    success rates): an explicit override, else every clip of the sample's video that overlaps
    the sample's window (questions about a whole scene are answerable from any of its clips)."""
    if sample.get("gold_clips") or not sample.get("videos"):
        return sample
    if sample["id"] in GOLD_CLIP_OVERRIDES:
        return {**sample, "gold_clips": GOLD_CLIP_OVERRIDES[sample["id"]]}
    ref = sample["videos"][0]
    start, end = ref.get("start_s") or 0.0, ref.get("end_s") or float("inf")
    gold = [
        clip["id"]
        for clip in CLIPS
        if clip["video"]["path"] == ref["path"]
        and (clip["video"].get("start_s") or 0.0) < end
        and start < (clip["video"].get("end_s") or float("inf"))
    ]
    return {**sample, "gold_clips": gold} if gold else sample


def write_jsonl(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--out", type=Path, default=ROOT, metavar="DIR", help=f"benchmark folder to write (default: {ROOT})"
    )
    out = parser.parse_args(argv).out
    write_jsonl(
        out / "corpus/passages.jsonl",
        [{**p, "source": "written for vqakit's sample benchmark"} for p in PASSAGES],
    )
    write_jsonl(out / "corpus/clips.jsonl", CLIPS)
    write_jsonl(
        out / "samples.jsonl",
        [with_family(with_gold_clips(balance_letters(sample, slot))) for slot, sample in enumerate(SAMPLES)],
    )
    print(f"wrote {len(SAMPLES)} samples, {len(CLIPS)} clips, {len(PASSAGES)} passages under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
