"""Text in a table cell, escaped for the format it is written in: the one place that does it, so
every column of `vqakit export` and `vqakit table` (and any added later) gets it.

- LaTeX (`latex_cell`): the ten special characters become what prints them (`\\&`, `\\%`, `\\$`,
  `\\#`, `\\_`, `\\{`, `\\}`, `\\textbackslash{}`, `\\textasciitilde{}`,
  `\\textasciicircum{}`), and `<`, `>`, `|` the text commands that print them in every font
  encoding; a line break becomes a space. A category holding `\\` or `&` can no longer end a
  row or add a column.
- Markdown (`markdown_cell`): what would change a cell (`|` ends it, `\\` escapes the next
  character) or what it shows (an HTML tag or entity, emphasis, code, a link, strikethrough,
  `$` math on GitHub) is escaped with a backslash, which CommonMark allows before any ASCII
  punctuation; a line break becomes a space. Only where it could act: `_` inside a word
  (`Acc_C`), `&` that starts no entity (`Bef&Aft`), `<` before no tag (`a < b`) and brackets
  that make no link (`61.1 [44.9, 75.2]`) stay as they are, so a table printed in a terminal
  reads as written. HTML from a category value is shown as text, never rendered.
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
_MARKDOWN_SPECIAL = re.compile(
    r"[\\|`*~$]"  # wherever they stand
    r"|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])"  # `_` that can open or close emphasis
    r"|&(?=#?\w+;)"  # `&` that starts an entity (`&amp;`, `&#60;`)
    r"|<(?=[A-Za-z/!?])"  # `<` that starts a tag, a comment or an autolink
    r"|\](?=[(\[])"  # `]` that would make a link of what it closes (`[a](b)`, `[a][b]`)
)
_LINE_BREAK = re.compile(r"\s*[\r\n\u2028\u2029]+\s*")


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ", text)


def latex_cell(text: str) -> str:
    """`text` as LaTeX that prints it, in one line (one pass, so no escape is escaped again)."""
    return _LATEX_SPECIAL.sub(lambda match: _LATEX[match.group()], _one_line(text))


def markdown_cell(text: str) -> str:
    """`text` as the content of a Markdown (GFM) table cell that shows it as written."""
    return _MARKDOWN_SPECIAL.sub(lambda match: "\\" + match.group(), _one_line(text))
