"""The project is self-contained: no code, test, script or page points at files outside the
repository (the reference papers and protocol checklists it was built from), the protocol facts
the code relies on are in docs/protocols/, and `vqakit systems` cites each paper by title and
link."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile("|".join(["sha" + "red/", "spe" + "cs/", "pap" + "ers/"]))  # spelled apart: not a hit
CHECKED = ("src", "docs", "tests", "scripts", "tools", "benchmarks", "README.md", "pyproject.toml", ".ci")


def test_nothing_points_outside_the_repository():
    hits = []
    for name in CHECKED:
        base = ROOT / name
        files = [base] if base.is_file() else [p for p in base.rglob("*") if p.is_file()]
        for path in files:
            if path.suffix in (".mp4", ".jpg", ".png", ".npy", ".sqlite", ".pyc") or "fixtures" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="ignore")
            hits += [f"{path.relative_to(ROOT)}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert hits == []


def test_systems_cite_papers_by_title_and_link_and_have_protocol_notes():
    listing = subprocess.run(
        [sys.executable, "-m", "vqakit", "systems"], capture_output=True, text=True, check=True
    ).stdout
    papers = re.findall(r"^    paper: (.+)$", listing, re.MULTILINE)
    links = re.findall(r"^    link: (.+)$", listing, re.MULTILINE)
    notes = re.findall(r"^    protocol notes: (\S+)", listing, re.MULTILINE)
    # the four papers' systems, each with a link; the presets of published benchmarks cite theirs
    # in docs/datasets.md
    assert len(links) == 4 and len(papers) == len(notes) == 5
    assert "docs/datasets.md" in notes
    assert not any(paper.endswith(".txt") or "/" in paper for paper in papers)
    assert "MovieRecapsQA: A Multimodal Open-Ended Video Question-Answering Benchmark" in papers
    assert all(link.startswith("https://") for link in links)
    for note in notes:
        page = ROOT / note
        assert page.is_file(), note
        if note.startswith("docs/protocols/"):
            assert "the protocol facts vqakit relies on" in page.read_text(encoding="utf-8")


def test_doc_links_between_pages_resolve():
    broken = []
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for target in re.findall(r"\]\(([^)#\s]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            if not target.startswith("http") and not (page.parent / target).is_file():
                broken.append(f"{page.relative_to(ROOT)} -> {target}")
    assert broken == []
