"""Every shell block of README.md and docs/**/*.md runs, in order, as a user pasting the page into
one terminal would: a page that cannot be pasted fails CI.

Conventions for pages (new ones included; nothing here needs editing for a page that follows them):

- Blocks fenced as ```bash, ```sh or ```shell run; any other language (output, JSON, trees) does not.
- A page's blocks run in order in one bash session (a variable set in one block is seen by the
  next), in a fresh folder where the repository's `docs/`, `scripts/` and `src/` are linked, so
  paths like `docs/examples/...` work as from the repository root. `vqakit` and `python` are on
  PATH. Each block runs with `set -e`: any failing command fails the page.
- Markers, an HTML comment on the line right before a block (invisible when rendered):
  - `<!-- docs-test: skip="why" -->`: not run; say why (e.g. the README's install line, which CI
    runs on a clean clone).
  - `<!-- docs-test: exit=75 -->`: the block's last command is expected to exit with 75.
  - `<!-- docs-test: background=8000 -->`: the block starts a long-running server (a web app);
    it runs in the background, the next block starts once 127.0.0.1:8000 accepts connections,
    and it is stopped when the page is done.
- Models: pages are written to run offline. Builders and evaluations read recorded replies
  (`--llm replay:docs/examples/...`, see docs/try-offline.md); every page also gets a loopback
  fake OpenAI-compatible server (tests/models/fake_server.py, replying "yes"), whose URL is in
  `VQAKIT_DOCS_SERVER` and in `OPENAI_BASE_URL` with a dummy `OPENAI_API_KEY`, so an `openai:`
  spec on a page never leaves the machine.
- Per-page setup: `SETUPS` maps a page to a context manager that gets the session's folder and
  yields extra environment variables (a fake batch server for docs/judge-batches.md, a tiny local
  CLIP folder in `$CLIP` for pages that embed frames). A page reads them as `${NAME:-default}`,
  the default being what a user would type.

How the README's two set-up commands are checked: they install vqakit into a fresh virtual
environment, which the suite cannot do from inside itself. tests/test_readme.py checks that the
test command is the line CI (`.ci/run`) runs verbatim on a clean clone, and that the first one
ends with `vqakit eval sample`; tests/test_terminal_screen.py runs that `vqakit eval sample` in
a real terminal and checks the screen. Both blocks carry a `skip` marker saying so.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import pytest
from doc_blocks import ROOT, Block, Session, pages, shell_blocks
from fake_batch_server import FakeBatchServer
from fake_server import FakeServer


@contextmanager
def _batch_server(work: Path) -> Iterator[dict[str, str]]:
    """OpenAI's chat and batch endpoints on loopback; a batch ends at its first poll."""
    with FakeBatchServer(polls_to_end=1) as server:
        yield {"OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-docs-test"}


@contextmanager
def _tiny_clip(work: Path) -> Iterator[dict[str, str]]:
    """A tiny random CLIP saved to a folder (no hub), for the pages' `--image-embedder clip:$CLIP`."""
    from tiny_models import build_tiny_clip

    yield {"CLIP": str(build_tiny_clip(work / ".tiny-clip"))}


SETUPS = {
    "docs/judge-batches.md": _batch_server,
    "docs/movierecapsqa.md": _tiny_clip,
    "docs/try-offline.md": _tiny_clip,
}

PAGES = [page for page in pages() if shell_blocks(page)]


def test_every_page_with_blocks_is_run_here():
    """A page whose blocks are all skipped says why in each marker."""
    for page in PAGES:
        for block in shell_blocks(page):
            assert block.skip is None or len(block.skip) > 20, f"{block}: say why it is skipped"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT)) for p in PAGES])
def test_page_blocks_run(page: Path, tmp_path: Path):
    blocks: list[Block] = shell_blocks(page)
    if all(block.skip for block in blocks):
        pytest.skip("every block of this page is checked elsewhere (see its markers)")
    session = Session(tmp_path)
    session.prepare()
    with ExitStack() as stack:
        server = stack.enter_context(FakeServer(default="ok:yes"))
        session.env.update(
            {"VQAKIT_DOCS_SERVER": server.url, "OPENAI_BASE_URL": server.url, "OPENAI_API_KEY": "sk-docs"}
        )
        setup = SETUPS.get(str(page.relative_to(ROOT)))
        if setup is not None:
            session.env.update(stack.enter_context(setup(tmp_path)))
        stack.callback(session.stop)
        session.run(blocks)


def test_a_page_that_cannot_be_pasted_fails(tmp_path: Path):
    """The harness itself: a block with a broken continuation fails and is named."""
    page = tmp_path / "broken.md"
    page.write_text(
        "```sh\nvqakit validate sample \\\n    # a comment breaks the continuation\n    --no-media\n```\n"
    )
    session = Session(tmp_path / "work")
    (tmp_path / "work").mkdir()
    session.prepare()
    blocks = [Block(page, 1, b.code) for b in shell_blocks(page)]
    with pytest.raises(AssertionError, match="the block failed"):
        session.run(blocks)
