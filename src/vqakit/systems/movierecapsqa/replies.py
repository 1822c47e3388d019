"""Model replies that hold one list, e.g. `{"facts": [...]}`: models often send the bare list."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, model_validator


class ListReply(BaseModel):
    """A reply whose first field is its list; a bare JSON list is read as that field."""

    @model_validator(mode="before")
    @classmethod
    def _bare_list(cls, value: Any) -> Any:
        return {next(iter(cls.model_fields)): value} if isinstance(value, list) else value
