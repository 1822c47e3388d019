"""The keyword step of the retrieval methods (EgoFact): a model lists the concrete words of the
question that can be seen on camera (people, objects, places, actions; the option objects of a
one-hop question), and clips are retrieved with the rewritten "A video that ..." description
followed by those keywords.

    prompt = keywords_prompt(sample)                     # prompt `rag_keywords`
    found = ... a structured step with schema ClipKeywords, sub-id `ID:keywords` ...
    text = clip_query(rewritten_query, found.keywords if found else [])

The keywords also steer the clip descriptions: `rag_caption` gets them as `keywords` ("Look
especially for: ...").
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, field_validator

from vqakit.prompts import render_prompt
from vqakit.schema import Sample

MAX_KEYWORDS = 12  # more would drown the description in the retrieval text
OPTION_WORDS = 4  # options this short are things to look for, longer ones are statements


class ClipKeywords(BaseModel):
    """The keyword step's reply: `{"keywords": ["...", ...]}`; blanks and repeats dropped (case
    ignored), order kept, at most `MAX_KEYWORDS`."""

    keywords: list[str] = Field(min_length=1)

    @field_validator("keywords", mode="before")
    @classmethod
    def _clean(cls, value: Any) -> Any:
        if isinstance(value, str):  # "a, b, c" instead of a list
            value = value.split(",")
        if not isinstance(value, list):
            return value
        kept: dict[str, str] = {}
        for item in value:
            word = str(item).strip().strip(".").strip()
            if word and word.lower() not in kept:
                kept[word.lower()] = word
        return list(kept.values())[:MAX_KEYWORDS]


def keywords_prompt(sample: Sample) -> str:
    """The keyword step's prompt: the question, and the options when they name things (a one-hop
    question's objects, at most `OPTION_WORDS` words each), not when they are statements."""
    choices = list(sample.choices or [])
    short = all(len(choice.split()) <= OPTION_WORDS for choice in choices)
    return render_prompt("rag_keywords", question=sample.question, options=choices if short else [])


def clip_query(query: str, keywords: list[str]) -> str:
    """The text clips are retrieved with: the rewritten query, then the keywords it does not
    already contain."""
    text = query.strip()
    extra = [word for word in keywords if word.lower() not in text.lower()]
    if not extra:
        return text
    return f"{text.rstrip('.')}. {', '.join(extra)}."
