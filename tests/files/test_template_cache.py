"""Compiled page templates are kept in the cache folder only where it is private to the user."""

from __future__ import annotations

import os
from pathlib import Path

import jinja2

from vqakit.files import template_cache


def test_compiled_templates_are_kept_and_loaded_again(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "pages").mkdir()
    (tmp_path / "pages/page.html").write_text("<p>{{ what }}</p>")

    def environment(**settings: bool) -> jinja2.Environment:
        return jinja2.Environment(
            loader=jinja2.FileSystemLoader(tmp_path / "pages"),
            bytecode_cache=template_cache("test", sorted(settings.items())),
            **settings,
        )

    assert environment(autoescape=True).get_template("page.html").render(what="<b>") == "<p>&lt;b&gt;</p>"
    kept = list((tmp_path / "cache/templates").glob("test-*/*.cache"))
    assert len(kept) == 1 and oct(kept[0].parent.stat().st_mode & 0o777) == "0o700"
    compiled: list[str] = []
    original = jinja2.Environment.compile

    def compile_counted(self, *args, **kwargs):
        compiled.append("compiled")
        return original(self, *args, **kwargs)

    monkeypatch.setattr(jinja2.Environment, "compile", compile_counted)
    assert environment(autoescape=True).get_template("page.html").render(what="<b>") == "<p>&lt;b&gt;</p>"
    assert compiled == []  # loaded, not compiled
    # other settings compile differently: they get a folder of their own
    assert environment(autoescape=False).get_template("page.html").render(what="<b>") == "<p><b></p>"
    assert len(list((tmp_path / "cache/templates").glob("test-*"))) == 2


def test_a_folder_others_may_write_to_is_not_used(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("VQAKIT_CACHE_DIR", str(tmp_path / "cache"))
    (tmp_path / "cache/templates").mkdir(parents=True)
    os.chmod(tmp_path / "cache/templates", 0o777)  # anyone could plant compiled code here
    assert template_cache("test") is None
    os.chmod(tmp_path / "cache/templates", 0o700)
    assert template_cache("test") is not None
