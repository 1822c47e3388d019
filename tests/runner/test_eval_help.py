"""`vqakit eval --help` lists the methods a user runs (vqakit's and every system's, from their
declarations, so a new one is listed without editing the command line), not those whose answers
come from elsewhere (`human`, `imported`), and every answer prompt, the presets' own included."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

import vqakit
from vqakit.cli import main
from vqakit.methods import methods, user_methods
from vqakit.prompts import answer_prompt_names


def option_help(option: str, following: str) -> str:
    text = CliRunner().invoke(main, ["eval", "--help"], terminal_width=100).output
    flat = re.sub(r"-\s+", "-", re.sub(r"\s+", " ", text))  # help wraps lines, also after a hyphen
    return flat.split(option, 1)[1].split(following, 1)[0]


def listed(name: str, text: str) -> bool:
    return f" {name}," in text or f" {name} (" in text or f" {name}, or" in text


def test_eval_help_lists_every_method_a_user_runs():
    text = option_help("--method TEXT", "--frames")
    missing = [name for name in user_methods() if not listed(name, text)]
    assert not missing, f"not in `vqakit eval --help`: {missing}\n{text}"
    assert {"direct", "blind", "random", "rag", "hints", "movierecaps"} <= set(user_methods())
    # every registered method is offered but those whose answers come from elsewhere
    assert set(methods()) - set(user_methods()) == {"human", "imported"}
    assert not listed("human", text) and not listed("imported", text)


def test_eval_help_lists_every_answer_prompt_the_presets_own_included():
    text = option_help("--prompt TEXT", "--input")
    presets = sorted(
        path.stem for path in (Path(vqakit.__file__).parent / "systems/presets/prompts").glob("*.txt")
    )
    assert len(presets) == 7 and set(presets) <= set(answer_prompt_names())
    assert {"mcq", "mcq_numbered", "mcq_reasoning", "open_short", "ib_mcq_eval"} <= set(answer_prompt_names())
    missing = [name for name in answer_prompt_names() if not listed(name, text)]
    assert not missing, f"not in `vqakit eval --help`: {missing}\n{text}"
    assert not listed("judge_open", text) and not listed("rag_answer", text)  # steps, not answer prompts
