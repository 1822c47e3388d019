"""Ego-Exo4D keysteps (`keystep_*.json`) into video info.

Shape: `{"annotations": {take_uid: {take_uid, take_name, scenario, annotation_meta |
annotation_metadata, segments: [{start_time, end_time, step_id, step_unique_id, step_name,
step_description, is_essential}]}}, "taxonomy": {scenario: {"<id>": {id, name, is_leafnode,
parent_id, parent_name, unique_id}}}, "vocabulary": {unique_id: name}}`.

The annotated segments are leaf keysteps. Their hierarchy comes from walking `parent_id` up the
scenario's taxonomy to its root (the node with no parent, named after the scenario, which is the
theme and not a step). Consecutive segments that share an ancestor are grouped under one step
for that ancestor, whose times span its children; a later return to the same ancestor opens a
new group. So a leaf two nodes below the root's children sits at level 2 under a level-1 and a
level-0 group. A leaf's text is the annotator's description (else the keystep name, kept in
`extra["name"]`), its category the taxonomy id (`step_id`); a group's text is the node name.

The files carry no take duration: `duration` is None and `missing` lists it, without a problem
line (the builder reads it from the video). The theme is the scenario; the take name is in
`extra`.
"""

from __future__ import annotations

from typing import Any

from vqakit.builders import InputError
from vqakit.systems.instructionbench.importers._common import RECORD_ERRORS, Log, span, text_of
from vqakit.systems.instructionbench.video_info import Step, VideoInfo

Chain = list[tuple[str, str]]  # (taxonomy id, name) from the top group down to the leaf's parent


def read_keystep(data: Any, log: Log) -> list[VideoInfo]:
    annotations = data.get("annotations") if isinstance(data, dict) else None
    if not isinstance(annotations, dict):
        raise InputError(f'{log.path}: not a keystep file: no "annotations" object of takes')
    taxonomy = data.get("taxonomy")
    if not isinstance(taxonomy, dict):
        log.problem(None, "no taxonomy: keysteps are kept ungrouped")
        taxonomy = {}
    vocabulary = data.get("vocabulary") if isinstance(data.get("vocabulary"), dict) else {}
    videos = []
    for take_uid, record in annotations.items():
        if log.refused(str(take_uid), record):
            continue
        try:
            videos.append(_take(str(take_uid), record, taxonomy, vocabulary, log))
        except RECORD_ERRORS as error:
            log.problem(take_uid, f"unreadable take record ({error}); skipped")
    return videos


def _take(take_uid: str, record: Any, taxonomy: dict, vocabulary: dict, log: Log) -> VideoInfo:
    if not isinstance(record, dict):
        raise ValueError(f"expected an object, got {type(record).__name__}")
    video_id = text_of(record.get("take_uid")) or take_uid
    scenario = text_of(record.get("scenario"))
    nodes = taxonomy.get(scenario)
    if not isinstance(nodes, dict):
        nodes = None
        if taxonomy:
            log.problem(take_uid, f"scenario {scenario!r} is not in the taxonomy; keysteps kept ungrouped")
    chains: dict[str, Chain] = {}
    leaves: list[tuple[Chain, Step]] = []
    for position, segment in enumerate(record.get("segments") or []):
        leaf = _leaf(segment, vocabulary, log, take_uid, position)
        if leaf is None:
            continue
        step_id = leaf.category or ""
        if step_id not in chains:
            chains[step_id] = _ancestors(nodes, step_id, log, take_uid) if nodes else []
        leaf.level = len(chains[step_id])
        leaves.append((chains[step_id], leaf))
    leaves.sort(key=lambda pair: (pair[1].start, pair[1].end))
    missing = ["duration"]
    if not leaves:
        missing.append("steps")
        log.problem(take_uid, "no keysteps")
    if not scenario:
        missing.append("theme")
        log.problem(take_uid, "no scenario")
    meta = record.get("annotation_meta", record.get("annotation_metadata"))
    extra = {"take_name": record.get("take_name"), "scenario": scenario}
    if meta is not None:
        extra["annotation_meta"] = meta
    return VideoInfo(
        video_id=video_id,
        source="keystep",
        theme=scenario,
        duration=None,
        steps=group(leaves),
        missing=missing,
        extra=extra,
    )


def _leaf(segment: Any, vocabulary: dict, log: Log, key: str, position: int) -> Step | None:
    try:
        if not isinstance(segment, dict):
            raise ValueError("not an object")
        start, end = span(segment.get("start_time"), segment.get("end_time"))
        unique_id = segment.get("step_unique_id")
        name = text_of(segment.get("step_name")) or text_of(vocabulary.get(str(unique_id)))
        text = text_of(segment.get("step_description")) or name
        if not text:
            raise ValueError("no step_name or step_description")
    except ValueError as error:
        log.problem(key, f"segment {position}: unusable ({error}); skipped")
        return None
    step_id = segment.get("step_id")
    extra = {"name": name, "unique_id": unique_id, "is_essential": segment.get("is_essential")}
    category = str(step_id) if step_id is not None else (name or None)
    return Step(start=start, end=end, text=text, category=category, extra=extra)


def _ancestors(nodes: dict, step_id: str, log: Log, key: str) -> Chain:
    """The taxonomy groups above a keystep, top first, without the root (the scenario)."""
    node = nodes.get(step_id)
    if not isinstance(node, dict):
        log.problem(key, f"keystep id {step_id!r} is not in the scenario's taxonomy; kept ungrouped")
        return []
    if node.get("is_leafnode") is False:
        log.note(key, "segments naming a non-leaf keystep", f"id {step_id}")
    chain: Chain = []
    seen = {step_id}
    parent = node.get("parent_id")
    while parent is not None:
        parent_key = str(parent)
        parent_node = nodes.get(parent_key)
        if parent_key in seen or not isinstance(parent_node, dict):
            why = "loops back" if parent_key in seen else f"names a missing node {parent_key!r}"
            log.problem(key, f"the taxonomy above keystep {step_id!r} {why}; grouped as far as it goes")
            break
        seen.add(parent_key)
        if parent_node.get("parent_id") is None:
            break  # the root: the scenario itself
        chain.append((parent_key, text_of(parent_node.get("name")) or parent_key))
        parent = parent_node.get("parent_id")
    return chain[::-1]


def group(leaves: list[tuple[Chain, Step]]) -> list[Step]:
    """Nests time-ordered leaves under steps for their taxonomy groups; consecutive leaves with a
    common ancestor share that ancestor's step, whose window grows to span them."""
    top: list[Step] = []
    path: list[tuple[str, Step]] = []  # the groups open at the current leaf, top first
    for chain, leaf in leaves:
        shared = 0
        while shared < min(len(path), len(chain)) and path[shared][0] == chain[shared][0]:
            shared += 1
        del path[shared:]
        for depth in range(shared, len(chain)):
            node_id, name = chain[depth]
            parent = Step(start=leaf.start, end=leaf.end, text=name, level=depth, category=node_id)
            parent.extra["group"] = True
            (path[-1][1].children if path else top).append(parent)
            path.append((node_id, parent))
        (path[-1][1].children if path else top).append(leaf)
        for _, open_group in path:
            open_group.end = max(open_group.end or 0.0, leaf.end or 0.0)
    return top
