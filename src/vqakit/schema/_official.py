"""A benchmark's own results table, as its evaluation script or leaderboard reports it: the
card's `official` field. Scoring computes it into results.json (`official`) and `vqakit table`
prints it by default, with the benchmark's column names, order and merges.

```yaml
official:
  source: "doc-doc/NExT-QA eval_mc.py at 6b92588"   # where the definition comes from
  headline: All                                     # the column that is the headline number
  columns:
    - {name: Why, group: type, keys: [CW]}          # questions whose `type` is CW
    - {name: Bef&Aft, group: type, keys: [TN, TP]}  # a merge: both codes pooled
    - {name: M-Avg, group: question_type, mean: keys}   # the mean of each key's accuracy
    - {name: Skill, group: skills, each: true}      # one column per key of the group
    - {name: All}                                   # every question
  setting: {key: subtitles, labels: {"false": w/o subs, "true": w subs}}
  notes: ["G-Avg: MLVU's generation tasks are not imported"]
```

A column reads the MCQ samples scored: those with at least one of its `keys` in its `group` (a
metadata key, as `vqakit table --by` takes; a list value counts once however many of its items
match), every key of the group when `keys` is empty, every sample without a group. `mean:
questions` pools those samples; `mean: keys` averages each key's accuracy (keys with no sample
in the run left out). `setting` names a protocol setting the benchmark reports as separate
column blocks (Video-MME with and without subtitles): a run fills the block of its setting.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from vqakit.schema._sample import NonEmpty


class OfficialColumn(BaseModel):
    """One column of a benchmark's own table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: NonEmpty  # as the benchmark's table prints it (for `each`, a label for the block)
    group: NonEmpty | None = None  # the breakdown it reads; none: every question
    keys: list[NonEmpty] = []  # the group's keys it takes (several: a merge); empty: every key
    mean: Literal["questions", "keys"] = "questions"  # pool the questions, or average the keys
    each: bool = False  # one column per key of the group, named by the key

    @model_validator(mode="after")
    def _needs_a_group(self) -> OfficialColumn:
        if self.group is None and (self.keys or self.each or self.mean == "keys"):
            raise ValueError(f"column {self.name!r}: keys, each and mean: keys need a group")
        if self.each and self.mean == "keys":
            raise ValueError(f"column {self.name!r}: each gives one column per key; mean: keys averages them")
        return self


class OfficialSetting(BaseModel):
    """A protocol setting the benchmark reports as separate blocks of columns."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: NonEmpty  # a key of the run's protocol (config.yaml), e.g. subtitles
    labels: dict[str, NonEmpty]  # its value, as lower-case text ("true", "false") -> the block's label


class OfficialTable(BaseModel):
    """What the benchmark's own evaluation code or leaderboard reports, and where that is from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: NonEmpty  # the script or leaderboard and its version (repository, file, commit)
    headline: NonEmpty  # the name of the column that is the benchmark's headline number
    columns: list[OfficialColumn] = Field(min_length=1)
    setting: OfficialSetting | None = None
    notes: list[NonEmpty] = []  # what the table leaves out, or where vqakit differs, in a line each

    @model_validator(mode="after")
    def _headline_is_a_column(self) -> OfficialTable:
        names = [column.name for column in self.columns]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"columns named twice: {', '.join(repeated)}")
        headline = next((column for column in self.columns if column.name == self.headline), None)
        if headline is None:
            raise ValueError(f"headline {self.headline!r} is not a column ({', '.join(names)})")
        if headline.each:
            raise ValueError(f"headline {self.headline!r} must be one column, not one per key")
        return self
