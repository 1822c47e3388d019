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
    source = {
        "reply": "the reply",
        "thinking": "the thinking text",
        "both": "the thinking text and the reply",
    }
    read = source.get(recall.get("source", "reply"), "the reply")
    return [
        Section(
            "Object recall in the reasoning",
            Table(["category", "n", "object level", "noun level"], rows),
            f"share of the reference trace's objects named in {read}",
        )
    ]
