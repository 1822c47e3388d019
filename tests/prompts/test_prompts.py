"""Prompt files: one per prompt, addressed by name across registered folders, rendered by Jinja in
its sandbox with missing fields as errors."""

from __future__ import annotations

import jinja2
import pytest
from jinja2.exceptions import SecurityError

from vqakit.prompts import prompt_hash, prompt_names, prompt_path, register_prompt_folder, render_prompt


def test_generic_and_system_prompts_are_registered():
    names = prompt_names()
    assert {"mcq", "judge_open", "structured_repair", "builder_blind_check"} <= set(names)  # generic
    assert {"rag_answer", "sufficiency", "build_verify"} <= set(names)  # EgoFact
    assert {"rubric_mira", "hint_objects"} <= set(names)  # Minerva-Ego
    assert prompt_path("rag_answer").parent.name == "prompts"
    assert len(prompt_hash("mcq")) == 16


def test_rendering_needs_every_field():
    rendered = render_prompt("mcq", context="", question="Q?", options="A. x\nB. y")
    assert rendered.endswith("correct option only.")
    with pytest.raises(jinja2.UndefinedError, match="options"):
        render_prompt("mcq", context="", question="Q?")


def test_a_folder_repeating_a_name_is_refused(tmp_path):
    (tmp_path / "mcq.txt").write_text("another mcq")
    with pytest.raises(ValueError, match="repeats prompt names already registered: mcq"):
        register_prompt_folder(tmp_path)
    with pytest.raises(ValueError, match="unknown prompt 'no-such'"):
        prompt_path("no-such")


def test_templates_cannot_reach_python_internals(tmp_path):
    (tmp_path / "sneaky_test_prompt.txt").write_text("{{ question.__class__.__mro__[1].__subclasses__() }}")
    register_prompt_folder(tmp_path)
    with pytest.raises(SecurityError):
        render_prompt("sneaky_test_prompt", question="q")


def test_conditional_wording_lives_in_the_template():
    with_passage = render_prompt("build_verify", evidence="Oil the chain.", options="A. x")
    without = render_prompt("build_verify", evidence=None, options="A. x")
    assert "Passage: Oil the chain." in with_passage and "Passage" not in without
    context = render_prompt("rag_context", captions=[], passages=["How to oil a chain."])
    assert context.startswith("No video clip could be described.") and "Passage 1: How to oil" in context
