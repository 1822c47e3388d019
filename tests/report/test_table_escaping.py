"""`vqakit export` and `vqakit table` escape what they carry for their format: categories holding
LaTeX specials, Markdown pipes and HTML, CSV quotes and line breaks. Each format is parsed back
(CSV by the csv module, Markdown by markdown-it's GFM tables, LaTeX by a reader of TeX's rules
for a tabular row) and gives the values that were written."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner
from markdown_it import MarkdownIt

from vqakit.benchmarks import resolve_benchmark
from vqakit.cli import main
from vqakit.runner import EvalConfig, run_eval

NASTY = [
    "back\\slash & and",
    "50% _under_ #1 {brace} ~tilde^caret $dollar",
    "<b>bold</b> | pipe <script>alert(1)</script>",
    "*em* [link](http://x) `code` ~~gone~~ &amp; \\| end\\",
    "overall",  # also the name of the table's last column
    "run",  # and of its first
    'quote " and, comma',
]
NEWLINE = "line\nbreak"  # written on one line (a space) by Markdown and LaTeX, kept by CSV


@pytest.fixture(scope="module")
def run(tmp_path_factory) -> Path:
    """The sample benchmark with its categories renamed to text every format must escape."""
    root = tmp_path_factory.mktemp("escape")
    bench = Path(shutil.copytree(resolve_benchmark("sample"), root / "bench"))
    samples = [json.loads(line) for line in (bench / "samples.jsonl").read_text().splitlines()]
    names = iter([*NASTY, NEWLINE])
    renamed: dict[str, str] = {}
    for sample in samples:  # the categories of multiple-choice questions, which random answers
        category = sample["metadata"]["category"]
        if sample.get("choices") and category not in renamed:
            renamed[category] = next(names, category)
    for sample in samples:
        category = sample["metadata"]["category"]
        sample["metadata"]["category"] = renamed.get(category, category)
    (bench / "samples.jsonl").write_text("".join(json.dumps(sample) + "\n" for sample in samples))
    assert {*NASTY, NEWLINE} <= set(renamed.values())
    run_eval(EvalConfig(bench=str(bench), method="random"), root / "run")
    return root / "run"


def _invoke(*arguments: str) -> str:
    result = CliRunner().invoke(main, list(arguments))
    assert result.exit_code == 0, result.output
    return result.output


class _Cells(HTMLParser):
    """The text of each th/td of an HTML table, row by row."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.rows: list[list[str]] = []
        self.cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self.cell = []
        elif self.cell is not None:
            raise AssertionError(f"markup <{tag}> rendered inside a cell")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.cell is not None:
            self.rows[-1].append("".join(self.cell))
            self.cell = None

    def handle_data(self, data):
        if self.cell is not None:
            self.cell.append(data)


def parse_csv(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def parse_markdown(text: str) -> list[list[str]]:
    rendered = MarkdownIt("commonmark").enable(["table", "strikethrough"]).render(text)
    parser = _Cells()
    parser.feed(rendered)
    return parser.rows


_TEXT_COMMANDS = {
    "textbackslash": "\\", "textasciitilde": "~", "textasciicircum": "^",
    "textless": "<", "textgreater": ">", "textbar": "|",
}  # fmt: skip
_TOKEN = re.compile(r"\\\\|\\([A-Za-z]+)\s*(\{\})?|\\(.)|([&{}])|([%#$_^~])|([^\\&{}%#$_^~]+)", re.S)


def parse_latex(text: str) -> list[list[str]]:
    """The cells of a tabular's rows, read as TeX reads them: `\\\\` ends a row, a bare `&`
    ends a cell, a bare special character (`%`, `#`, `$`, `_`, `^`, `~`) is refused (it would
    comment out the row, need math mode...), `\\X` prints X and the text commands their
    character."""
    body = text.split("\\hline\n", 1)[1].rsplit("\\hline\n\\end{tabular}", 1)[0]
    rows: list[list[str]] = []
    row, cell = [], []
    for match in _TOKEN.finditer(body.replace("\\hline\n", "")):
        command, _, escaped, structure, special, plain = match.groups()
        if match.group() == "\\\\":
            rows.append([*row, "".join(cell).strip()])
            row, cell = [], []
        elif command is not None:
            assert command in _TEXT_COMMANDS, f"unexpected command \\{command}"
            cell.append(_TEXT_COMMANDS[command])
        elif escaped is not None:
            assert escaped in "&%$#_{} ", f"unexpected escape \\{escaped}"
            cell.append(escaped)
        elif structure == "&":
            row.append("".join(cell).strip())
            cell = []
        elif structure is not None:
            raise AssertionError(f"bare {structure} in a row")
        elif special is not None:
            raise AssertionError(f"bare {special!r} in a row: TeX would not print it")
        else:
            cell.append(plain.replace("\n", ""))
    assert not row and not "".join(cell).strip(), "text after the last row"
    return rows


def _keys(rows: list[list[str]], header: list[str]) -> set[str]:
    """The keys of the category breakdown that are among the names to escape."""
    group, key = header.index("group"), header.index("key")
    return {row[key] for row in rows if row[group] == "category"} & {*NASTY, NEWLINE, "line break"}


def test_export_csv_round_trips(run: Path):
    rows = parse_csv(_invoke("export", str(run), "--format", "csv"))
    assert _keys(rows[1:], rows[0]) == {*NASTY, NEWLINE}
    assert all(len(row) == len(rows[0]) for row in rows)


def test_export_markdown_round_trips_and_renders_no_html(run: Path):
    text = _invoke("export", str(run), "--format", "markdown")
    rows = parse_markdown(text)
    assert all(len(row) == len(rows[0]) for row in rows)
    assert _keys(rows[1:], rows[0]) == {*NASTY, "line break"}
    assert "<script>" not in MarkdownIt("commonmark").enable("table").render(text)


def test_export_latex_round_trips(run: Path):
    rows = parse_latex(_invoke("export", str(run), "--format", "latex"))
    assert all(len(row) == len(rows[0]) for row in rows)
    assert rows[0][:3] == ["run", "method", "model"] and "ci95_low" in rows[0]
    assert _keys(rows[1:], rows[0]) == {*NASTY, "line break"}


@pytest.mark.parametrize("fmt", ["csv", "markdown", "latex"])
def test_table_columns_named_by_categories_round_trip(run: Path, fmt: str):
    text = _invoke("table", str(run), "--by", "category", "--format", fmt)
    parse = {
        "csv": lambda t: list(csv.reader(io.StringIO(t))),
        "markdown": parse_markdown,
        "latex": parse_latex,
    }
    rows = parse[fmt](text)
    header = rows[0]
    expected = {*NASTY, NEWLINE if fmt == "csv" else "line break"}
    assert header[0] == "run" and header[-1] == "overall" and expected <= set(header[1:-1])
    assert len(rows) == 2 and len(rows[1]) == len(header)
    results = json.loads((run / "results.json").read_text())
    by_key = {key: bucket["accuracy"] for key, bucket in results["groups"]["category"].items()}
    for name, cell in zip(header[1:-1], rows[1][1:-1], strict=True):
        key = NEWLINE if name == "line break" else name
        value = 100 * by_key[key] if fmt != "csv" else by_key[key]
        assert float(cell) == pytest.approx(value, abs=0.06), name
    # the category named "overall" and the overall column are two cells, not one
    overall = results["overall"]["accuracy"]
    assert float(rows[1][-1]) == pytest.approx(100 * overall if fmt != "csv" else overall, abs=0.06)
