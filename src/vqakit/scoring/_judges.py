"""Judges: model-based second passes over a run's predictions, registered by name.

A judge declares which samples it grades (`wants`), grades one sample with a model (`grade`,
whose record goes to `judgments.jsonl`, one line per sample and judge, so a killed run resumes),
and how its records enter the scores: an option it read from the reply (`decides="choice"`), the
correctness of an open-ended answer (`decides="correct"`), extra per-sample fields (`fields`),
and run-level metrics (`summarise`, stored in results.json under the judge's name). The runner,
results.json and the report handle every registered judge the same way; adding one touches
only its own module.

    @register_judge
    class Politeness(Judge):
        name = "politeness"
        title = "Politeness (0-1)"
        async def grade(self, model, sample, prediction, earlier): ...
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any, ClassVar, Literal

from vqakit.plugins import load_systems
from vqakit.schema import Prediction, Sample


class Judge:
    """Base class of judges; subclasses set `name` and implement `grade`."""

    name: ClassVar[str]
    title: ClassVar[str] = ""  # heading of its section in the report
    summary_label: ClassVar[str] = "measure"  # what the rows of a table-of-means summary are
    decides: ClassVar[Literal["choice", "correct"] | None] = None
    needs: ClassVar[tuple[str, ...]] = ()  # judges whose records `grade` reads (graded first)
    legacy_option: ClassVar[str | None] = None  # its config field / flag before judges were plug-ins
    legacy_kind: ClassVar[str | None] = None  # its record kind in judgments.jsonl before then
    show_raw: ClassVar[bool] = True  # a sample card shows its raw reply (off when a detail hook shows more)
    scale: ClassVar[tuple[float, float]] = (0.0, 1.0)  # the range of the scores `headline` gives
    grades: ClassVar[bool] = False  # its record scores the answer: a sample it graded is "graded"

    def wants(self, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]) -> bool:
        """Whether this judge grades the sample (it never sees failed or empty predictions)."""
        return True

    async def grade(
        self, model: Any, sample: Sample, prediction: Prediction, earlier: dict[str, dict[str, Any]]
    ) -> dict[str, Any]:
        """The judgment record: at least `raw` (the judge's reply) and `error` (None or a message).
        `earlier` holds this sample's records of the judges in `needs`."""
        raise NotImplementedError

    def choice(self, sample: Sample, record: dict[str, Any]) -> int | None:
        """With `decides="choice"`: the option read from an MCQ reply the rules abstained on."""
        return None

    def verdict(self, sample: Sample, record: dict[str, Any]) -> bool | None:
        """With `decides="correct"`: whether an open-ended answer is right (None: no verdict)."""
        return None

    def fields(self, sample: Sample, record: dict[str, Any]) -> dict[str, Any]:
        """Per-sample values this judge adds to the sample's score row."""
        return {}

    def summarise(self, samples: list[Sample], rows: list[dict[str, Any]]) -> dict[str, Any] | None:
        """Run-level metrics from the score rows (results.json[name]); None adds nothing."""
        return None

    def headline(self, summary: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
        """The run's headline scores this judge's summary gives, as (key, label, `{n, mean,
        ci95}` on `scale`): shown first in the report, on the eval line and in `vqakit runs`."""
        return []


class _Registry(dict):
    """The judges by name, counting its changes (`judges()` orders them again only after one)."""

    changes = 0

    def _changed(self) -> None:
        type(self).changes += 1

    def __setitem__(self, key: str, value: Judge) -> None:
        super().__setitem__(key, value)
        self._changed()

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self._changed()

    def pop(self, *args: Any) -> Any:
        self._changed()
        return super().pop(*args)

    def clear(self) -> None:
        super().clear()
        self._changed()

    def update(self, *args: Any, **kwargs: Any) -> None:
        super().update(*args, **kwargs)
        self._changed()


_JUDGES: dict[str, Judge] = _Registry()


def register_judge(cls: type[Judge]) -> type[Judge]:
    """Class decorator: make the judge available by its name (`--judge NAME=SPEC`)."""
    existing = _JUDGES.get(cls.name)
    if existing is not None and type(existing).__qualname__ != cls.__qualname__:
        raise ValueError(f"a judge named {cls.name!r} is already registered ({type(existing).__qualname__})")
    _JUDGES[cls.name] = cls()
    return cls


_ORDERED: list = [None, {}]  # (the registry it was made from, the judges in order)


def judges() -> dict[str, Judge]:
    """Every registered judge by name, in an order where each comes after the judges it needs
    (worked out again only when the registry changed: scoring asks for every sample)."""
    import vqakit.scoring._builtin_judges  # noqa: F401  - registers the built-in ones

    load_systems()
    if _ORDERED[0] != _Registry.changes:
        _ORDERED[:] = [_Registry.changes, _ordered()]
    return dict(_ORDERED[1])


def _ordered() -> dict[str, Judge]:
    ordered: dict[str, Judge] = {}

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in ordered:
            return
        if name in path:
            raise ValueError(f"judges need each other in a cycle: {' -> '.join((*path, name))}")
        judge = _JUDGES.get(name)
        if judge is None:
            raise ValueError(f"judge {path[-1]!r} needs unknown judge {name!r}")
        for needed in judge.needs:
            visit(needed, (*path, name))
        ordered[name] = judge

    for name in _JUDGES:
        visit(name, ())
    return ordered


def get_judge(name: str) -> Judge:
    found = judges().get(name)
    if found is None:
        raise ValueError(f"unknown judge {name!r}; known: {', '.join(sorted(judges())) or 'none'}")
    return found


def judge_for_kind(kind: str) -> Judge | None:
    """The judge that wrote a judgments.jsonl record of this kind (names, and earlier kinds)."""
    registry = judges()
    if kind in registry:
        return registry[kind]
    return next((j for j in registry.values() if j.legacy_kind == kind), None)


def mean_summary(
    values: list[float], low: float = 0.0, high: float = 1.0, clusters: Sequence[Hashable] | None = None
) -> dict[str, Any]:
    """`{n, mean, ci95}` of scores on [low, high], with a 95% bootstrap interval: the shape the
    report shows for any judge that summarises several scores as a table of means. With
    `clusters` (each value's video, e.g. from `video_clusters`), where videos have several
    questions, the interval is clustered (`mean_interval`), and `interval` and `clusters` say so."""
    if not values:
        return {"n": 0, "mean": None, "ci95": [None, None]}
    import numpy as np  # imported when scores are summarised, not when judges are looked up

    from vqakit.scoring._intervals import mean_interval

    span = high - low
    scaled = [(value - low) / span for value in values]
    (lower, upper), kind = mean_interval(scaled, clusters)
    mean = float(np.mean(scaled))
    return {
        "n": len(values),
        "mean": low + span * mean,
        "ci95": [low + span * lower, low + span * upper],
        **kind,
    }
