"""A problem of a benchmark folder, on one line: `FILE:LINE: field: what is wrong`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from pydantic import ValidationError

from vqakit.files import one_line


@dataclass(frozen=True, order=True)
class Problem:
    file: str
    line: int  # 1-based; 0 when the problem concerns the whole file
    field: str  # dotted path such as "videos.0.start_s", or "-"
    message: str

    def __str__(self) -> str:
        return one_line(f"{self.file}:{self.line}: {self.field}: {self.message}")


_UNION_TAG = re.compile(r"[\[\-]|^(int|str|float|bool|list|dict|tuple|none|constrained-str)$")


def _problems_from(error: ValidationError, file: str, line: int, prefix: str = "") -> list[Problem]:
    problems: dict[str, Problem] = {}
    for detail in error.errors():
        loc = [str(part) for part in detail["loc"] if not _UNION_TAG.search(str(part))]
        message = str(detail["msg"]).removeprefix("Value error, ")
        if match := re.match(r"^([a-z_]+): (.*)$", message, re.DOTALL):
            loc.append(match[1])
            message = match[2]
        if detail["type"] == "missing":
            message = "missing required field"
        elif detail["type"] == "extra_forbidden":
            message = "unknown field"
        name = ".".join(([prefix] if prefix else []) + loc) or "-"
        problems.setdefault(name, Problem(file, line, name, message))
    return list(problems.values())
