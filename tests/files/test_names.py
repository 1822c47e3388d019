"""Names of files that stand for ids: distinct ids never share a file, and the name stays
readable (the id's slug plus a digest of the whole id). Properties over random ids, with the
cases that collided before: ids that differ only in punctuation, and long ids that end alike."""

from __future__ import annotations

import hashlib
import re
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from vqakit.files import MediaPlan, file_stem, id_name, slug
from vqakit.runs import strip_path

SAFE = re.compile(r"[A-Za-z0-9._-]+")
PUNCTUATION = ["q/1", "q?1", "q 1", "q:1", "q*1", "q|1", 'q"1', "q<1", "q>1", "q\\1", "q\t1", "q_1", "q__1"]

ids = st.text(min_size=0, max_size=300)
look_alike = st.builds(
    lambda head, middle, tail: f"{head}{middle}{tail}",
    st.text(alphabet=string.ascii_letters + string.digits, max_size=20),
    st.text(alphabet=string.punctuation + " \t\u00e9\u4e2d", min_size=1, max_size=3),
    st.text(alphabet=string.ascii_letters + string.digits, max_size=20),
)


def _is_safe(name: str, limit: int) -> bool:
    return bool(SAFE.fullmatch(name)) and not name.startswith(".") and len(name) <= limit


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(ids, look_alike), min_size=2, max_size=30, unique=True))
def test_distinct_ids_get_distinct_safe_names(given_ids: list[str]):
    names = [id_name(i, 60) for i in given_ids]
    assert len(set(names)) == len(given_ids)
    assert all(_is_safe(name, 60 + 1 + 12) for name in names)
    assert [id_name(i, 60) for i in given_ids] == names  # the same id always gets the same name


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(ids, look_alike), min_size=2, max_size=30, unique=True))
def test_media_named_after_distinct_ids_never_share_a_file(tmp_path_factory, given_ids: list[str]):
    folder = tmp_path_factory.mktemp("media")
    plan = MediaPlan()
    for number, video_id in enumerate(given_ids):
        source = folder / f"{number}.mp4"
        source.write_bytes(b"x")
        plan.add(f"{file_stem(video_id)}.mp4", source)
    folded = [name.casefold() for name in plan.files]
    assert len(plan.files) == len(given_ids) and len(set(folded)) == len(folded)


@settings(max_examples=200, deadline=None)
@given(ids)
def test_a_name_is_readable_and_keeps_the_slug(text: str):
    name = id_name(text, 40)
    readable, digest = name.rsplit("-", 1)
    assert digest == hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:12]
    assert readable == (slug(text, 40).lstrip(".") or "_")


def test_punctuation_look_alikes_and_long_ids_ending_alike():
    assert len({slug(i, 120) for i in PUNCTUATION[:10]}) == 1  # what used to name the clip
    assert len({id_name(i, 120) for i in PUNCTUATION}) == len(PUNCTUATION)
    assert all(id_name(i, 120).startswith("q_1-") for i in PUNCTUATION[:10])
    first, second = "a" * 20 + "z" * 120, "b" * 20 + "z" * 120
    assert len(first) == 140 and first[-120:] == second[-120:]
    assert slug(first, 120) == slug(second, 120)
    assert id_name(first, 120) != id_name(second, 120)
    assert id_name("") == "_-" + hashlib.sha256(b"").hexdigest()[:12]
    assert not id_name("...hidden").startswith(".")


def test_file_stem_keeps_safe_ids_as_they_are():
    assert file_stem("dQw4w9WgXcQ") == "dQw4w9WgXcQ"
    assert file_stem("P02-20240203-090000") == "P02-20240203-090000"
    assert file_stem("q/1") == id_name("q/1", 100) != file_stem("q?1")
    assert file_stem(".hidden") == id_name(".hidden", 100)
    assert file_stem("x" * 101) == id_name("x" * 101, 100)


def test_ids_differing_in_case_get_two_files_on_any_file_system(tmp_path):
    plan = MediaPlan()
    for name in ("Clip", "clip"):
        (tmp_path / f"{name}-source.mp4").write_bytes(name.encode())
    first = plan.add(f"{file_stem('Clip')}.mp4", tmp_path / "Clip-source.mp4")
    second = plan.add(f"{file_stem('clip')}.mp4", tmp_path / "clip-source.mp4")
    assert (first, second) == ("Clip.mp4", "clip-2.mp4")


def test_strip_names_of_earlier_runs_are_unchanged():
    key = "q/1:report:media/x.mp4"
    assert strip_path(key) == f"frames/{slug(key, 80)}-{hashlib.sha256(key.encode()).hexdigest()[:8]}.jpg"
