"""Text in a table cell, escaped for the format it is written in: the one place that does it, so
every column of `vqakit export` and `vqakit table` (and any added later) gets it.

- LaTeX (`latex_cell`): the ten special characters become what prints them (`\\&`, `\\%`, `\\$`,
  `\\#`, `\\_`, `\\{`, `\\}`, `\\textbackslash{}`, `\\textasciitilde{}`,
  `\\textasciicircum{}`), and `<`, `>`, `|` the text commands that print them in every font
  encoding; a line break becomes a space. A category holding `\\` or `&` can no longer end a
  row or add a column.
- Markdown (`markdown_cell`): the characters that would change a cell (`|` ends it, `\\`
  escapes the next character) or what it shows (HTML tags and entities, emphasis, code, links,
  strikethrough, `$` math on GitHub) are escaped with a backslash, which CommonMark allows
  before any ASCII punctuation; a line break becomes a space. HTML from a category value is
  shown as text, never rendered.
- CSV is written by the csv module (quoting as needed), never by hand.
"""

from __future__ import annotations

import re

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
_LATEX_SPECIAL = re.compile("|".join(re.escape(char) for char in _LATEX))
_MARKDOWN_SPECIAL = re.compile(r"([\\|`*_\[\]<>&~$!])")
_LINE_BREAK = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ", text)


def latex_cell(text: str) -> str:
    """`text` as LaTeX that prints it, in one line (one pass, so no escape is escaped again)."""
    return _LATEX_SPECIAL.sub(lambda match: _LATEX[match.group()], _one_line(text))


def markdown_cell(text: str) -> str:
    """`text` as the content of a Markdown (GFM) table cell that shows it as written."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", _one_line(text))
