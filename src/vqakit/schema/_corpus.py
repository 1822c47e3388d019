"""Retrieval corpora stored beside the samples: video clips and text passages."""

from __future__ import annotations

from pydantic import Field

from vqakit.schema._sample import Metadata, NonEmpty, VideoRef, _Strict


class Clip(_Strict):
    """One retrievable video unit (`corpus/clips.jsonl`), e.g. a 30 s egocentric window."""

    id: NonEmpty
    video: VideoRef
    description: NonEmpty | None = None  # text used for retrieval when no image embedder is set
    metadata: Metadata = Field(default_factory=Metadata)


class Passage(_Strict):
    """One retrievable text passage (`corpus/passages.jsonl`), e.g. a how-to article section."""

    id: NonEmpty
    text: NonEmpty
    title: NonEmpty | None = None
    source: NonEmpty | None = None  # where it comes from (URL, book, "written for vqakit")
    metadata: Metadata = Field(default_factory=Metadata)
    tags: list[NonEmpty] = Field(default_factory=list)
