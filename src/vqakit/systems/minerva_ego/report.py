"""The report section of object recall in reasoning traces."""

from __future__ import annotations

from typing import Any

from vqakit.report import Section, Table, percent, register_section


@register_section
def recall_section(results: dict[str, Any]) -> list[Section]:
    recall = results.get("object_recall")
    if not recall:
        return []
    rows = [
        [name, str(entry["n"]), percent(entry["object"]), percent(entry["noun"])]
        for name, entry in [("all", recall), *recall["by_category"].items()]
    ]
    return [
        Section(
            "Object recall in the reasoning",
            Table(["category", "n", "object level", "noun level"], rows),
        )
    ]
