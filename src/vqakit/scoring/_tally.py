"""Run-level results gathered one score row at a time (`ResultsTally`), so that a run of any size
is summarised in memory bounded by its groups and videos, not its samples.

What is kept: for MCQ, open-ended and all scored samples, and for each key of each group of each
kind, an `Outcomes` (correct answers and questions by video: the per-cluster counts every interval
takes, `cluster_summary`); the clusters of the videos (`ClusterForest`, as `video_clusters` finds
them); counters of statuses, errors, failed steps and letters; the sum of chance.
`results(samples, rows)` then adds what judges and registered metrics compute from the rows
(they get the run's samples and rows as sequences, which for a large run are read from disk as
they are iterated) and returns results.json's content, the same as `summarise` gives.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from vqakit.schema import OfficialTable, Sample
from vqakit.scoring._clusters import ClusterForest
from vqakit.scoring._errors import ErrorTally
from vqakit.scoring._headline import headline, overall_summary
from vqakit.scoring._hooks import default_groups, group_keys, metric_hooks
from vqakit.scoring._intervals import cluster_summary
from vqakit.scoring._judges import judges
from vqakit.scoring._labels import LETTERS
from vqakit.scoring._official import official_results

KINDS = ("groups", "open_ended_groups")


class Outcomes:
    """The 0/1 outcomes of one bucket (a kind of sample, or one key of a group) as counts:
    `n`, `correct`, and `by_key`, {the key a sample is counted under (`ClusterForest.add`):
    [correct, total]}, in the order keys first come: bounded by the videos, not the samples."""

    __slots__ = ("by_key", "correct", "n")

    def __init__(self) -> None:
        self.n = self.correct = 0
        self.by_key: dict[str, list[int]] = {}

    def add(self, correct: bool, key: str) -> None:
        self.n += 1
        self.correct += bool(correct)
        counts = self.by_key.get(key)
        if counts is None:
            counts = self.by_key[key] = [0, 0]
        counts[0] += bool(correct)
        counts[1] += 1

    def cluster_counts(self, forest: ClusterForest | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(correct answers, questions) by cluster, clusters in the order they first come: the
        counts `cluster_counts` gives of the same outcomes by `video_clusters`."""
        order: dict[str, int] = {}
        sums: list[int] = []
        counts: list[int] = []
        for key, (correct, total) in self.by_key.items():
            at = order.setdefault(forest.root(key) if forest is not None else key, len(order))
            if at == len(sums):
                sums.append(0)
                counts.append(0)
            sums[at] += correct
            counts[at] += total
        return np.asarray(sums, dtype=np.float64), np.asarray(counts, dtype=np.float64)

    def summary(self, forest: ClusterForest | None = None) -> dict[str, Any]:
        """`cluster_summary` of these outcomes (`{n, accuracy, ci95, interval[, clusters]}`)."""
        return cluster_summary(*self.cluster_counts(forest))


class ResultsTally:
    """results.json, one row at a time (see the module). `groups` are broken down by
    `group_keys`; `extra` names groups whose key the caller gives with each row (the runner's
    video_length); `order` the order of a group's keys (others sorted after them)."""

    def __init__(
        self,
        groups: tuple[str, ...] | None = None,
        extra: tuple[str, ...] = (),
        order: dict[str, list[str]] | None = None,
    ) -> None:
        self.groups = groups or default_groups()
        self.forest = ClusterForest()
        self.extra, self.order = extra, order or {}
        self.mcq, self.open_ended, self.pooled = Outcomes(), Outcomes(), Outcomes()
        self.buckets: dict[str, dict[str, dict[str, Outcomes]]] = {kind: {} for kind in KINDS}
        self.errors = ErrorTally()
        self.counts: Counter[str] = Counter()
        self.steps: Counter[str] = Counter()
        self.chosen: Counter[str] = Counter()
        self.gold: Counter[str] = Counter()
        self.chance_sum, self.chance_n = 0.0, 0

    def add(self, sample: Sample, row: dict[str, Any], extra: dict[str, str] | None = None) -> None:
        """Count one score row of `sample`; `extra`: its key in each extra group it is in."""
        cluster = self.forest.add(sample)
        self.counts[row["status"].split(":")[0]] += 1
        self.errors.add(row)
        self.steps.update(row.get("step_failures") or ())
        if row["correct"] is None:
            return
        correct = bool(row["correct"])
        self.pooled.add(correct, cluster)
        if "chosen" in row:
            self.chosen[row["chosen"]] += 1
        kind = "groups" if row["mcq"] else "open_ended_groups"
        (self.mcq if row["mcq"] else self.open_ended).add(correct, cluster)
        if row["mcq"]:
            self.gold[LETTERS[int(sample.answer)]] += 1  # type: ignore[arg-type]
            self.chance_n += 1
            self.chance_sum += 1 / len(sample.choices) if sample.choices else 0.0
        buckets = self.buckets[kind]
        for group in self.groups:
            for key in group_keys(sample, group):
                buckets.setdefault(group, {}).setdefault(key, Outcomes()).add(correct, cluster)
        for group, key in (extra or {}).items():
            buckets.setdefault(f"\0{group}", {}).setdefault(key, Outcomes()).add(correct, cluster)

    def _breakdown(self, kind: str) -> dict[str, dict[str, Any]]:
        """Each group's keys with their summaries: groups sorted by key, extra groups in their
        `order` (an extra group of the same name as a group replaces it)."""
        found: dict[str, dict[str, Any]] = {}
        buckets = self.buckets[kind]
        for group in self.groups:
            if buckets.get(group):
                found[group] = {key: v.summary(self.forest) for key, v in sorted(buckets[group].items())}
        for group in self.extra:
            by_key = buckets.get(f"\0{group}")
            if by_key:
                rank = {key: i for i, key in enumerate(self.order.get(group) or [])}
                ordered = sorted(by_key.items(), key=lambda item: (rank.get(item[0], len(rank)), item[0]))
                found[group] = {key: v.summary(self.forest) for key, v in ordered}
        return found

    def results(
        self,
        samples: Sequence[Sample],
        rows: Sequence[dict[str, Any]],
        min_group_size: int = 1,
        official: OfficialTable | None = None,
    ) -> dict[str, Any]:
        """results.json from what was counted; judges' and registered metrics' keys from the run's
        `samples` and their `rows` (in the same order), and the benchmark's own table (`official`,
        `_official`: it holds the run's samples by id, as it always has)."""
        mcq, open_ended = self.mcq.summary(self.forest), self.open_ended.summary(self.forest)
        results: dict[str, Any] = {
            "overall": overall_summary(mcq, open_ended, self.pooled.summary(self.forest)),
            "mcq": mcq,
            "open_ended": open_ended,
            "errors": self.errors.summary(),
            "chance": self.chance_sum / self.chance_n if self.chance_n else None,
            "counts": dict(self.counts),
            "groups": self._breakdown("groups"),
            "open_ended_groups": self._breakdown("open_ended_groups"),
        }
        if self.steps:  # a method's steps that failed without failing the sample (e.g. rag's rewrite)
            results["step_failures"] = dict(sorted(self.steps.items()))
        for name, judge in judges().items():
            summary = judge.summarise(samples, rows)  # type: ignore[arg-type]
            if summary is not None:
                results[name] = summary
        for metric in metric_hooks():
            results.update(metric(samples, rows))  # type: ignore[arg-type]
        hidden: dict[str, dict[str, int]] = {}
        for field, suffix in (("groups", ""), ("open_ended_groups", " (open-ended)")):
            for group, buckets in list(results[field].items()):
                kept = {key: summary for key, summary in buckets.items() if summary["n"] >= min_group_size}
                left_out = {key: s["n"] for key, s in buckets.items() if s["n"] < min_group_size}
                if left_out:
                    hidden[group + suffix] = left_out
                if kept:
                    results[field][group] = kept
                else:
                    del results[field][group]
        results["min_group_size"] = min_group_size
        results["hidden_groups"] = hidden  # rows with fewer than min_group_size samples: {group: {key: n}}
        results["letters"] = {
            "chosen": dict(sorted(self.chosen.items())),
            "gold": dict(sorted(self.gold.items())),
        }
        if official is not None:
            results["official"] = official_results(official, {s.id: s for s in samples}, list(rows))
        results["headline"] = headline(results)
        return results
