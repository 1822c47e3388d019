"""Which questions share a video: the clusters that intervals and paired tests resample.

Two samples are in one cluster when they share a video file (under any window of it) or, for
samples whose video is retrieved, a gold clip; clusters are the connected groups of that
relation, so a question over two videos joins both videos' questions. A sample with neither is
a cluster of its own. A cluster is named by the id of one of its samples.
"""

from __future__ import annotations

from collections.abc import Iterable

from vqakit.schema import Sample


def _keys(sample: Sample) -> list[str]:
    return [f"video:{ref.path}" for ref in sample.videos] + [f"clip:{clip}" for clip in sample.gold_clips]


def video_clusters(samples: Iterable[Sample]) -> dict[str, str]:
    """{sample id: its cluster's name} (union-find over shared videos and gold clips)."""
    parent: dict[str, str] = {}

    def root(item: str) -> str:
        parent.setdefault(item, item)
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    ids = []
    for sample in samples:
        ids.append(sample.id)
        mine = root(f"sample:{sample.id}")
        for key in _keys(sample):
            other = root(key)
            if other != mine:  # roots are samples: a video or clip is joined under one
                first, second = (other, mine) if other.startswith("sample:") else (mine, other)
                parent[second] = first
                mine = first
    return {sample_id: root(f"sample:{sample_id}").removeprefix("sample:") for sample_id in ids}


class ClusterForest:
    """The clusters of `video_clusters`, found as samples stream by: a union-find over the
    videos and gold clips they name (bounded by the number of videos, not of samples). `add`
    gives the key a sample's outcome is counted under (its first video or clip; a sample with
    neither is its own), and `root(key)` the cluster that key belongs to once every sample is in:
    counts kept by key and added up by root are the counts by `video_clusters`' clusters."""

    def __init__(self) -> None:
        self.parent: dict[str, str] = {}

    def root(self, key: str) -> str:
        parent = self.parent
        parent.setdefault(key, key)
        while parent[key] != key:
            parent[key] = parent[parent[key]]
            key = parent[key]
        return key

    def add(self, sample: Sample) -> str:
        keys = _keys(sample)
        if not keys:
            return f"sample:{sample.id}"
        first = self.root(keys[0])
        for key in keys[1:]:
            other = self.root(key)
            if other != first:
                self.parent[other] = first
        return keys[0]
