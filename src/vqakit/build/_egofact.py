"""`vqakit build egofact`: EgoFact-style multi-hop QA from egocentric videos, event annotations and
how-to passages (the nine construction steps of ../specs/egofact.md).

1  windows       cut each video into full `window_s` windows; a screenshot every 3 s, each
                 captioned by the VLM; captions, events and sounds merged into a timeline
2  narration     the LLM writes a concise and a detailed "a video that ..." narration, the
                 activity, and weighted keywords (1-10)
3  selection     windows embedded as the weight-averaged vectors of their keywords, clustered
                 (k = keep_ratio x windows), one representative kept per cluster; windows with
                 fewer than `min_events` events dropped
4  events        every event structured (agent, action, patient, locations, instrument, ...);
                 events without an object dropped
5  templates     local: "In <video>, what is the object that <agent> <action> <place>?";
                 temporal: "... Before/After <anchor event>, what is the object ...?" for events
                 at most `temporal_gap_s` apart; questions that name their answer are dropped
6  disambiguate  a question is dropped when another clip is visually similar (> 0.7), has an
                 event with a similar action (> 0.8) and a different object (< 0.9)
7  distractors   five wrong options + the answer and a quality score; kept at score >= 7;
                 then a text-only model answers without the video and solved questions go
8  two-hop       for each option object the best passage above `passage_threshold`; four
                 statements per object-passage pair (1 factual, 3 counterfactual), verified as
                 a 4-option question with the passage (must be solved) and without it (must
                 not be); three verified pairs make six options "When <activity>. <statement>"
9  reliability   every question must be answered correctly from the gold event (and passage)
                 (valid), two-hop ones not without it (non-trivial); unambiguity is step 6

Every model step asks for JSON validated by a schema (with repair turns), is journaled so a
rerun reuses it (see `_journal`), and every dropped item is logged with its reason. The output
is a benchmark folder (card, samples, clip and passage corpora, media) plus `build/` holding
`stages.json`, `report.md`, `drops.jsonl` and `calls.jsonl`.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from pydantic import BaseModel

from vqakit._files import link_or_copy
from vqakit.build._egofact_steps import (
    Caption,
    Distractors,
    LetterAnswer,
    Narration,
    Query,
    Statements,
    StructuredEvent,
    Window,
    in_video,
    mentions,
    object_question,
    sentence,
    timeline,
)
from vqakit.build._inputs import list_videos, read_events, read_passages
from vqakit.build._journal import BuildJournal
from vqakit.prompts import render_prompt
from vqakit.scoring import LETTERS, extract_choice


@dataclass(frozen=True)
class EgoFactBuildConfig:
    window_s: float = 30.0
    screenshot_every_s: float = 3.0
    keep_ratio: float = 0.2  # clusters = keep_ratio x windows (step 3)
    min_events: int = 2
    temporal_gap_s: float = 4.0
    min_quality: float = 7.0
    passage_threshold: float = 0.5
    visual_similarity: float = 0.7
    action_similarity: float = 0.8
    object_similarity: float = 0.9
    seed: int = 0
    name: str = "egofact-build"
    license: str = "questions: CC-BY-4.0; videos and passages keep their own licenses"
    screenshot_side: int = 448


@dataclass
class Stage:
    name: str
    unit: str
    before: int
    after: int
    dropped: dict[str, int] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "stage": self.name,
            "unit": self.unit,
            "in": self.before,
            "out": self.after,
            "dropped": self.dropped,
        }


@dataclass
class BuildOutcome:
    folder: Path
    stages: list[Stage]
    samples: int
    clips: int
    passages: int
    reused_calls: int
    notes: list[str]


class _Asker:
    """Structured model steps, journaled: a step asked before with the same request is not re-asked."""

    def __init__(self, journal: BuildJournal) -> None:
        self.journal = journal

    async def ask(
        self, model: Any, step: str, item: str, prompt: str, schema: type[BaseModel], image: Any = None
    ) -> tuple[Any, str | None]:
        from vqakit.models import Image, Message, complete_structured
        from vqakit.models._images import pixel_hash

        request = prompt + (pixel_hash(image) if image is not None else "")
        key = self.journal.key(step, item, request)
        known = self.journal.get(key)
        if known is not None:
            return schema.model_validate(known), None
        parts = [Image(image), prompt] if image is not None else [prompt]
        found, completion = await complete_structured(
            model, [Message.user(*parts)], schema, sample_id=f"{step}:{item}"
        )
        if found is None:
            error = completion.error
            return None, f"model step failed: {error.type}: {error.message}" if error else "model step failed"
        self.journal.put(key, found.model_dump())
        return found, None


def _letter(answer: LetterAnswer | None, count: int) -> int | None:
    if answer is None:
        return None
    return extract_choice(answer.answer, count).choice


def _options_text(options: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}. {text}" for i, text in enumerate(options))


def _seeded(seed: int, *parts: str) -> random.Random:
    return random.Random(hashlib.sha256("|".join([str(seed), *parts]).encode()).digest())


class EgoFactBuilder:
    def __init__(
        self,
        config: EgoFactBuildConfig,
        llm: Any,
        vlm: Any,
        text_embedder: Any,
        image_embedder: Any,
        out: Path,
        on_stage: Callable[[Stage], None] | None = None,
    ) -> None:
        self.config, self.llm, self.vlm = config, llm, vlm
        self.text, self.image = text_embedder, image_embedder
        self.out = out
        self.journal = BuildJournal(out / "build")
        self.asker = _Asker(self.journal)
        self.stages: list[Stage] = []
        self.notes: list[str] = []
        self.on_stage = on_stage
        self.videos: dict[str, Path] = {}
        self.passages: dict[str, Any] = {}
        self.kept_windows: list[Window] = []

    async def run(self, videos_dir: Path, events_path: Path, passages_path: Path) -> list[Query]:
        """Steps 1-9; returns the questions that passed every stage."""
        self.videos = list_videos(videos_dir)
        events = read_events(events_path, self.videos)
        passages = read_passages(passages_path)
        self.passages = {p.id: p for p in passages}
        windows = await self.windows(self.videos, events)
        windows = await self.narrate(windows)
        self.kept_windows = self.select(windows)
        await self.structure(self.kept_windows)
        queries = self.templates(self.kept_windows)
        queries = await asyncio.to_thread(self.disambiguate, self.videos, queries)
        queries = await self.distractors(queries)
        two_hop = await self.two_hop(queries, passages)
        return await self.reliability([*queries, *two_hop], self.passages)

    def _stage(self, name: str, unit: str, before: int, after: int) -> None:
        stage = Stage(name, unit, before, after, self.journal.reasons(name))
        self.stages.append(stage)
        if self.on_stage:
            self.on_stage(stage)

    def _drop(self, stage: str, item: str, reason: str) -> None:
        self.journal.drop(stage, item, reason)

    # 1 ----------------------------------------------------------------------------------------
    async def windows(self, videos: dict[str, Path], events: list[Any]) -> list[Window]:
        from vqakit.video import fixed_windows, probe

        windows: list[Window] = []
        for key, path in videos.items():
            duration = probe(path).duration_s or 0.0
            cuts = fixed_windows(duration, self.config.window_s, min_last_s=self.config.window_s)
            if not cuts:
                self._drop(
                    "1 windows", key, f"shorter than a window: {duration:.1f} s < {self.config.window_s:g} s"
                )
            stem = Path(key).with_suffix("").as_posix().replace("/", "_")
            for number, (start, end) in enumerate(cuts):
                inside = [e for e in events if e.video == key and start <= e.time_s < end]
                windows.append(
                    Window(
                        id=f"{stem}-w{number:03d}",
                        video=key,
                        start_s=start,
                        end_s=end,
                        events=[e for e in inside if e.kind == "event"],
                        sounds=[e for e in inside if e.kind == "sound"],
                    )
                )
        if self.vlm is None:
            self.notes.append("no --vlm: timelines hold the annotations only (no screenshot captions)")
        else:
            await asyncio.gather(*(self._caption(videos, window) for window in windows))
        self._stage("1 windows", "videos -> windows", len(videos), len(windows))
        return windows

    def _screenshot_times(self, window: Window) -> list[float]:
        count = max(1, round(self.config.window_s / self.config.screenshot_every_s))
        return [window.start_s + i * self.config.screenshot_every_s for i in range(count)]

    def _screenshots(self, videos: dict[str, Path], window: Window) -> list[Any]:
        from vqakit.schema import Timestamps
        from vqakit.video import Resize, sample_frames

        return sample_frames(
            videos[window.video],
            Timestamps(tuple(self._screenshot_times(window))),
            resize=Resize(short_side=self.config.screenshot_side),
        )

    async def _caption(self, videos: dict[str, Path], window: Window) -> None:
        frames = await asyncio.to_thread(self._screenshots, videos, window)

        async def one(number: int, frame: Any) -> tuple[float, str] | None:
            prompt = render_prompt("build_caption", time=f"{frame.time_s - window.start_s:.0f} s")
            found, error = await self.asker.ask(
                self.vlm, "caption", f"{window.id}#{number}", prompt, Caption, image=frame.image
            )
            if found is None:
                self._drop("1 windows", f"{window.id}#{number}", f"screenshot caption: {error}")
                return None
            return frame.time_s - window.start_s, found.caption

        captions = await asyncio.gather(*(one(i, frame) for i, frame in enumerate(frames)))
        window.captions = [c for c in captions if c is not None]

    # 2 ----------------------------------------------------------------------------------------
    async def narrate(self, windows: list[Window]) -> list[Window]:
        async def one(window: Window) -> Window | None:
            prompt = render_prompt("build_narrate", timeline=timeline(window) or "(nothing annotated)")
            found, error = await self.asker.ask(self.llm, "narrate", window.id, prompt, Narration)
            if found is None:
                self._drop("2 narration", window.id, str(error))
                return None
            window.narration = found
            return window

        kept = [w for w in await asyncio.gather(*(one(w) for w in windows)) if w is not None]
        self._stage("2 narration", "windows", len(windows), len(kept))
        return kept

    # 3 ----------------------------------------------------------------------------------------
    def select(self, windows: list[Window]) -> list[Window]:
        from vqakit.retrieval import spherical_kmeans

        if not windows:
            self._stage("3 selection", "windows", 0, 0)
            return []
        keywords = sorted({k.keyword for w in windows for k in w.narration.keywords})  # type: ignore[union-attr]
        vectors = dict(zip(keywords, self.text.embed(keywords), strict=True))
        rows = []
        for window in windows:
            total = sum(k.weight * vectors[k.keyword] for k in window.narration.keywords)  # type: ignore[union-attr]
            rows.append(total / max(float(np.linalg.norm(total)), 1e-12))
        matrix = np.stack(rows).astype(np.float32)
        clusters = max(1, round(self.config.keep_ratio * len(windows)))
        centroids, assignment = spherical_kmeans(matrix, clusters, seed=self.config.seed)
        representative: list[Window] = []
        for cluster in sorted(set(assignment.tolist())):
            members = np.flatnonzero(assignment == cluster)
            best = int(members[np.argmax(matrix[members] @ centroids[cluster])])
            representative.append(windows[best])
            for member in members:
                if member != best:
                    self._drop(
                        "3 selection",
                        windows[member].id,
                        f"not representative: cluster {cluster} is represented by {windows[best].id}",
                    )
        kept = []
        for window in sorted(representative, key=lambda w: w.id):
            if len(window.events) < self.config.min_events:
                self._drop(
                    "3 selection",
                    window.id,
                    f"too few events: {len(window.events)} < {self.config.min_events}",
                )
            else:
                kept.append(window)
        self._stage("3 selection", "windows", len(windows), len(kept))
        return kept

    # 4 ----------------------------------------------------------------------------------------
    async def structure(self, windows: list[Window]) -> None:
        async def one(window: Window, number: int, event: Any) -> None:
            item = f"{window.id}-e{number:02d}"
            prompt = render_prompt("build_structure", text=event.text)
            found, error = await self.asker.ask(self.llm, "structure", item, prompt, StructuredEvent)
            if found is None:
                self._drop("4 events", item, str(error))
            elif not found.patient_canonical:
                self._drop("4 events", item, f"no object: {event.text!r}")
            else:
                window.structured.append((event, found))

        jobs = [one(w, i, e) for w in windows for i, e in enumerate(w.events)]
        await asyncio.gather(*jobs)
        for window in windows:
            window.structured.sort(key=lambda pair: pair[0].time_s)
        self._stage("4 events", "events", len(jobs), sum(len(w.structured) for w in windows))

    # 5 ----------------------------------------------------------------------------------------
    def templates(self, windows: list[Window]) -> list[Query]:
        stage = "5 templates"
        candidates: list[Query] = []
        for window in windows:
            head = in_video(window.narration)  # type: ignore[arg-type]
            for number, (event, target) in enumerate(window.structured):
                stem = object_question(target)
                candidates.append(
                    Query(
                        id=f"{window.id}-L{number:02d}",
                        window=window,
                        grounding="local",
                        target=target,
                        target_time_s=event.time_s,
                        question=f"{head}, {stem}",
                        stem=stem,
                        answer=str(target.patient_canonical),
                    )
                )
            pairs = zip(window.structured, window.structured[1:], strict=False)
            for number, ((first_event, first), (second_event, second)) in enumerate(pairs):
                gap = second_event.time_s - first_event.time_s
                if not 0 < gap <= self.config.temporal_gap_s:
                    continue
                for direction, (target, target_event), (anchor, anchor_event) in (
                    ("before", (first, first_event), (second, second_event)),
                    ("after", (second, second_event), (first, first_event)),
                ):
                    stem = (
                        f"{direction.capitalize()} {anchor.rewritten.rstrip('.')}, {object_question(target)}"
                    )
                    candidates.append(
                        Query(
                            id=f"{window.id}-T{number:02d}{direction[0]}",
                            window=window,
                            grounding="temporal",
                            target=target,
                            target_time_s=target_event.time_s,
                            anchor=anchor,
                            anchor_time_s=anchor_event.time_s,
                            direction=direction,
                            question=f"{head}. {stem}",
                            stem=stem,
                            answer=str(target.patient_canonical),
                        )
                    )
        kept: list[Query] = []
        by_text: dict[tuple[str, str], list[Query]] = {}
        for query in candidates:
            if mentions(query.question, query.answer):
                self._drop(stage, query.id, f"names its answer: {query.answer!r}")
                continue
            by_text.setdefault((query.window.id, query.question.lower()), []).append(query)
        for same in by_text.values():
            answers = {q.answer.lower() for q in same}
            if len(answers) > 1:
                for query in same:
                    self._drop(
                        stage, query.id, f"ambiguous in its clip: one question, answers {sorted(answers)}"
                    )
                continue
            kept.append(same[0])
            for query in same[1:]:
                self._drop(stage, query.id, f"duplicate of {same[0].id}")
        kept.sort(key=lambda q: q.id)
        self._stage(stage, "questions", len(candidates), len(kept))
        return kept

    # 6 ----------------------------------------------------------------------------------------
    def _clip_vectors(self, videos: dict[str, Path], windows: list[Window]) -> dict[str, np.ndarray]:
        if self.image is None:
            self.notes.append(
                "no --image-embedder: clip similarity in step 6 compares the text vectors of the detailed "
                "narrations"
            )
            vectors = self.text.embed([w.narration.detailed for w in windows])  # type: ignore[union-attr]
            return {w.id: v for w, v in zip(windows, vectors, strict=True)}
        found = {}
        for window in windows:
            frames = self._screenshots(videos, window)
            mean = self.image.embed_images([f.image for f in frames]).mean(axis=0)
            found[window.id] = mean / max(float(np.linalg.norm(mean)), 1e-12)
        return found

    def disambiguate(self, videos: dict[str, Path], queries: list[Query]) -> list[Query]:
        stage = "6 disambiguation"
        windows = {q.window.id: q.window for q in queries}
        if len(windows) < 2:
            self._stage(stage, "questions", len(queries), len(queries))
            return queries
        clips = self._clip_vectors(videos, list(windows.values()))
        actions = self.text.embed([f"{q.target.agent} {q.target.action_phrase}" for q in queries])
        objects = self.text.embed([q.answer for q in queries])
        kept = []
        for i, query in enumerate(queries):
            clash = next(
                (
                    other
                    for j, other in enumerate(queries)
                    if other.window.id != query.window.id
                    and float(clips[query.window.id] @ clips[other.window.id]) > self.config.visual_similarity
                    and float(actions[i] @ actions[j]) > self.config.action_similarity
                    and float(objects[i] @ objects[j]) < self.config.object_similarity
                ),
                None,
            )
            if clash is None:
                kept.append(query)
            else:
                self._drop(
                    stage,
                    query.id,
                    f"ambiguous: similar clip {clash.window.id} has a similar action on {clash.answer!r}",
                )
        self._stage(stage, "questions", len(queries), len(kept))
        return kept

    # 7 ----------------------------------------------------------------------------------------
    async def distractors(self, queries: list[Query]) -> list[Query]:
        stage = "7 distractors"

        async def one(query: Query) -> Query | None:
            prompt = render_prompt("build_distractors", question=query.question, answer=query.answer)
            found, error = await self.asker.ask(self.llm, "distractors", query.id, prompt, Distractors)
            if found is None:
                self._drop(stage, query.id, str(error))
                return None
            options = [o.strip() for o in found.options]
            lowered = [o.lower() for o in options]
            if len(set(lowered)) != 6:
                self._drop(stage, query.id, f"invalid options: repeated option in {options}")
                return None
            if query.answer.lower() not in lowered:
                self._drop(
                    stage, query.id, f"invalid options: the answer {query.answer!r} is not among {options}"
                )
                return None
            if found.score < self.config.min_quality:
                self._drop(
                    stage, query.id, f"low quality: score {found.score:g} < {self.config.min_quality:g}"
                )
                return None
            query.quality = found.score
            wrong_options[query.id] = [o for o in options if o.lower() != query.answer.lower()]
            return query

        wrong_options: dict[str, list[str]] = {}
        kept = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
        for slot, query in enumerate(kept):  # gold letters spread evenly over A-F
            wrong = wrong_options[query.id]
            _seeded(self.config.seed, query.id).shuffle(wrong)
            query.answer_index = slot % 6
            query.options = [*wrong[: query.answer_index], query.answer, *wrong[query.answer_index :]]
        self._stage(stage, "questions", len(queries), len(kept))
        return await self._blind_filter(kept, "7 blind filter")

    async def _blind_filter(self, queries: list[Query], stage: str, *, record: bool = True) -> list[Query]:
        async def one(query: Query) -> Query | None:
            prompt = render_prompt(
                "build_blind", question=query.question, options=_options_text(query.options)
            )
            found, error = await self.asker.ask(self.llm, "blind", query.id, prompt, LetterAnswer)
            if found is None:
                self._drop(stage, query.id, str(error))
                return None
            if _letter(found, len(query.options)) == query.answer_index:
                self._drop(stage, query.id, "answered without the video")
                return None
            return query

        kept = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
        if record:
            self._stage(stage, "questions", len(queries), len(kept))
        return kept

    # 8 ----------------------------------------------------------------------------------------
    async def two_hop(self, queries: list[Query], passages: list[Any]) -> list[Query]:
        from vqakit.retrieval import Row, VectorTable, passage_text

        stage = "8 two-hop"
        if not passages:
            self._stage(stage, "questions", len(queries), 0)
            return []
        table = VectorTable(self.out / "build", "passages")  # in memory only: never saved
        vectors = self.text.embed([passage_text(p) for p in passages])
        table.replace_rows([], [Row(p.id, "", v) for p, v in zip(passages, vectors, strict=True)])
        by_id = {p.id: p for p in passages}
        pair_tasks: dict[tuple[str, str], asyncio.Task] = {}

        def passage_for(name: str, activity: str) -> tuple[str, float] | None:
            hits = table.search(self.text.embed([f"{name}, when {activity}"])[0], 1)
            if hits and hits[0].score > self.config.passage_threshold:
                return hits[0].id, hits[0].score
            return None

        async def pair(name: str, passage_id: str) -> Statements | None:
            """Each object-passage pair is generated and verified once, however many questions use it."""
            key = (name.lower(), passage_id)
            if key not in pair_tasks:
                pair_tasks[key] = asyncio.ensure_future(make_pair(name, passage_id))
            return await pair_tasks[key]

        async def make_pair(name: str, passage_id: str) -> Statements | None:
            item = f"{name.lower().replace(' ', '_')}|{passage_id}"
            text = passage_text(by_id[passage_id])
            made, error = await self.asker.ask(
                self.llm,
                "statements",
                item,
                render_prompt("build_statements", object=name, passage=text),
                Statements,
            )
            if made is None:
                self._drop(stage, item, f"statements: {error}")
                return None
            order = [made.factual, *made.counterfactual]
            _seeded(self.config.seed, item).shuffle(order)
            factual = order.index(made.factual)
            for with_passage in (True, False):
                note = f"\n\nPassage: {text}" if with_passage else ""
                prompt = render_prompt("build_verify", passage=note, options=_options_text(order))
                step = "verify-with" if with_passage else "verify-without"
                found, error = await self.asker.ask(self.llm, step, item, prompt, LetterAnswer)
                chosen = _letter(found, 4)
                if found is None:
                    self._drop(stage, item, f"statements: {error}")
                    return None
                if with_passage and chosen != factual:
                    self._drop(
                        stage, item, "statements not valid: the passage does not single out the true one"
                    )
                    return None
                if not with_passage and chosen == factual:
                    self._drop(stage, item, "statements trivial: the true one is found without the passage")
                    return None
            return made

        async def one(query: Query) -> Query | None:
            activity = query.window.narration.activity  # type: ignore[union-attr]
            found: dict[str, tuple[str, Statements]] = {}
            for name in query.options:
                hit = passage_for(name, activity)
                if hit is None:
                    continue
                made = await pair(name, hit[0])
                if made is not None:
                    found[name] = (hit[0], made)
            if query.answer not in found:
                reason = f"no verified passage statements for the answer: {query.answer!r}"
                self._drop(stage, query.id, reason)
                return None
            others = [name for name in query.options if name in found and name != query.answer][:2]
            if len(others) < 2:
                self._drop(stage, query.id, f"too few verified distractor pairs: {len(others)} < 2")
                return None
            prefix = f"When {activity.strip().rstrip('.')}. "
            entries: list[tuple[str, str, str, bool]] = []
            used: set[str] = set()
            for name in [*others, query.answer]:
                passage_id, made = found[name]
                # the first counterfactual statement no other pair of this question already uses
                false = next((c for c in made.counterfactual if sentence(c).lower() not in used), None)
                if false is None or sentence(made.factual).lower() in used:
                    self._drop(stage, query.id, f"repeated statements: the pair of {name!r} repeats another")
                    return None
                used.update({sentence(false).lower(), sentence(made.factual).lower()})
                entries.append((name, passage_id, prefix + sentence(false) + ".", False))
                entries.append((name, passage_id, prefix + sentence(made.factual) + ".", True))
            order = list(range(6))
            _seeded(self.config.seed, query.id, "2hop").shuffle(order)
            options = [entries[i][2] for i in order]
            position = {original: new for new, original in enumerate(order)}
            pairs = [
                {
                    "object": entries[k][0],
                    "passage": entries[k][1],
                    "counterfactual": position[k],
                    "factual": position[k + 1],
                }
                for k in (0, 2, 4)
            ]
            head = in_video(query.window.narration)  # type: ignore[arg-type]
            stem = object_question(query.target, statement=True)
            if query.grounding == "temporal":
                anchor = query.anchor.rewritten.rstrip(".")  # type: ignore[union-attr]
                question = f"{head}. {query.direction.capitalize()} {anchor}, {stem}"  # type: ignore[union-attr]
            else:
                question = f"{head}, {stem}"
            return Query(
                id=f"{query.id}-2h",
                window=query.window,
                grounding=query.grounding,
                target=query.target,
                target_time_s=query.target_time_s,
                anchor=query.anchor,
                anchor_time_s=query.anchor_time_s,
                direction=query.direction,
                question=question,
                stem=stem,
                answer=query.answer,
                options=options,
                answer_index=position[5],
                quality=query.quality,
                hop=2,
                passage_id=found[query.answer][0],
                pairs=pairs,
            )

        made = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
        self._stage(stage, "questions", len(queries), len(made))
        return made

    # 9 ----------------------------------------------------------------------------------------
    async def reliability(self, queries: list[Query], passages: dict[str, Any]) -> list[Query]:
        from vqakit.retrieval import passage_text

        stage = "9 reliability"

        async def one(query: Query) -> Query | None:
            evidence = [f"The event asked about: {query.target.rewritten}."]
            if query.anchor is not None:
                evidence.append(f"It happens {query.direction} this event: {query.anchor.rewritten}.")
            if query.passage_id:
                evidence.append(f"A passage about the object: {passage_text(passages[query.passage_id])}")
            prompt = render_prompt(
                "build_validity",
                evidence="\n".join(evidence),
                question=query.question,
                options=_options_text(query.options),
            )
            found, error = await self.asker.ask(self.llm, "validity", query.id, prompt, LetterAnswer)
            if found is None:
                self._drop(stage, query.id, str(error))
                return None
            if _letter(found, len(query.options)) != query.answer_index:
                self._drop(stage, query.id, "not valid: the gold event does not lead to the answer")
                return None
            return query

        valid = [q for q in await asyncio.gather(*(one(q) for q in queries)) if q is not None]
        one_hop = [q for q in valid if q.hop == 1]
        two_hop = await self._blind_filter([q for q in valid if q.hop == 2], stage, record=False)
        kept = sorted([*one_hop, *two_hop], key=lambda q: q.id)
        self._stage(stage, "questions", len(queries), len(kept))
        return kept


def _sample(query: Query) -> dict[str, Any]:
    family = f"{query.grounding.capitalize()} {query.hop}-hop"
    window = query.window
    metadata: dict[str, Any] = {
        "category": family,
        "hop": query.hop,
        "grounding": query.grounding,
        "modality": "passages" if query.hop == 2 else "visual",
        "event": query.target.model_dump(),
        "event_time_s": round(query.target_time_s - window.start_s, 3),
        "quality": query.quality,
    }
    if query.anchor is not None:
        metadata["anchor"] = query.anchor.model_dump()
        metadata["anchor_time_s"] = round((query.anchor_time_s or 0.0) - window.start_s, 3)
        metadata["direction"] = query.direction
    if query.pairs:
        metadata["pairs"] = query.pairs
    record: dict[str, Any] = {
        "id": query.id,
        "videos": [{"path": f"media/{window.video}", "start_s": window.start_s, "end_s": window.end_s}],
        "question": query.question,
        "choices": query.options,
        "answer": query.answer_index,
        "metadata": metadata,
        "gold_clips": [window.id],
    }
    if query.passage_id:
        record["gold_passages"] = [query.passage_id]
    return record


def _place_media(source: Path, target: Path) -> None:
    """A rerun keeps media already placed; a file of another size is replaced."""
    if target.exists():
        if target.stat().st_size == source.stat().st_size:
            return
        target.unlink()
    link_or_copy(source, target)


def _write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")


def _report(stages: list[Stage], notes: list[str], reused: int) -> str:
    lines = [
        "# EgoFact build: counts per stage",
        "",
        "| stage | unit | in | out | dropped (by reason) |",
        "|---|---|---|---|---|",
    ]
    for stage in stages:
        reasons = "; ".join(f"{reason}: {count}" for reason, count in sorted(stage.dropped.items())) or "-"
        lines.append(f"| {stage.name} | {stage.unit} | {stage.before} | {stage.after} | {reasons} |")
    lines += [
        "",
        f"Model steps reused from an earlier run: {reused}.",
        "Every drop is listed in drops.jsonl.",
    ]
    lines += [f"- {note}" for note in notes]
    return "\n".join(lines) + "\n"


def build_egofact(
    videos_dir: str | Path,
    events_path: str | Path,
    passages_path: str | Path,
    out: str | Path,
    *,
    llm: Any,
    vlm: Any = None,
    text_embedder: Any,
    image_embedder: Any = None,
    config: EgoFactBuildConfig | None = None,
    on_stage: Callable[[Stage], None] | None = None,
) -> BuildOutcome:
    """Run steps 1-9 into `out` (resuming journaled model steps) and write the benchmark folder.

    `llm`/`vlm` are `vqakit.models.Model`s (or anything with the same async `complete`);
    `text_embedder` has `embed(texts)`, `image_embedder` (optional) `embed_images(images)`.
    """
    from vqakit.benchmarks import load_benchmark

    config = config or EgoFactBuildConfig()
    out = Path(out)
    builder = EgoFactBuilder(config, llm, vlm, text_embedder, image_embedder, out, on_stage)

    async def run_and_close() -> list[Query]:
        try:
            return await builder.run(Path(videos_dir), Path(events_path), Path(passages_path))
        finally:
            for model in (llm, vlm):
                if model is not None and hasattr(model, "aclose"):
                    await model.aclose()

    queries = asyncio.run(run_and_close())
    windows, passages = builder.kept_windows, builder.passages
    used_passages = sorted({pair["passage"] for q in queries for pair in q.pairs})
    for key in sorted({w.video for w in windows}):
        _place_media(builder.videos[key], out / "media" / key)
    clips = [
        {
            "id": w.id,
            "video": {"path": f"media/{w.video}", "start_s": w.start_s, "end_s": w.end_s},
            "description": w.narration.detailed,  # type: ignore[union-attr]
            "metadata": {"concise": w.narration.concise, "activity": w.narration.activity},  # type: ignore[union-attr]
        }
        for w in windows
    ]
    _write_jsonl(out / "corpus/clips.jsonl", clips)
    _write_jsonl(
        out / "corpus/passages.jsonl", [passages[i].model_dump(exclude_defaults=True) for i in used_passages]
    )
    _write_jsonl(out / "samples.jsonl", [_sample(q) for q in queries])
    card = {
        "name": config.name,
        "version": "1",
        "license": config.license,
        "description": (
            f"EgoFact-style multi-hop questions built by vqakit from {len(builder.videos)} videos: "
            f"{len(queries)} six-option questions over {len(clips)} clips of {config.window_s:g} s and "
            f"{len(used_passages)} passages."
        ),
        "protocol": {"frames": "uniform:15", "method": "rag+localize", "prompt": "mcq"},
        "fields": {
            "pairs": "two-hop only: the three object-passage pairs behind the six options, with the option "
            "index of each pair's counterfactual and factual statement",
            "event": "the structured target event the question is about",
            "anchor": "temporal only: the reference event; `direction` says whether the target comes before "
            "or after it",
            "quality": "the distractor step's quality score (0-10)",
        },
    }
    (out / "benchmark.yaml").write_text(yaml.safe_dump(card, sort_keys=False), encoding="utf-8")
    (out / "build/stages.json").write_text(
        json.dumps({"stages": [s.as_dict() for s in builder.stages], "notes": builder.notes}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    (out / "build/report.md").write_text(
        _report(builder.stages, builder.notes, builder.journal.reused), encoding="utf-8"
    )
    load_benchmark(out, media=True)  # the folder must validate; raises listing every problem
    return BuildOutcome(
        folder=out,
        stages=builder.stages,
        samples=len(queries),
        clips=len(clips),
        passages=len(used_passages),
        reused_calls=builder.journal.reused,
        notes=builder.notes,
    )
