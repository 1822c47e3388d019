"""A large benchmark's samples are read from samples.jsonl as they are used (`SampleFile`), through
the same reader and checks as a small one's, and its index is kept in the cache folder."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest
import yaml

import vqakit.schema._sample_file as sample_file
import vqakit.schema._sample_stream as sample_stream
from vqakit.schema import Sample, SampleFile, SampleFileChanged, check_folder, load_folder

VIDEOS = ("a.mp4", "b.mp4", "c.mp4")


def _bench(root: Path, lines: list[str], *, ending: str = "\n", bom: bool = False) -> Path:
    (root / "media").mkdir(parents=True, exist_ok=True)
    for name in VIDEOS:
        (root / "media" / name).write_bytes(b"not decoded here")
    card = {"name": "lazy", "version": "1", "license": "CC0-1.0", "description": "Samples read as used."}
    (root / "benchmark.yaml").write_text(yaml.safe_dump(card))
    text = ending.join(lines) + ending
    (root / "samples.jsonl").write_bytes((codecs.BOM_UTF8 if bom else b"") + text.encode())
    return root


def _sample(i: int, **fields) -> str:
    record = {
        "id": f"q{i}",
        "videos": [{"path": f"media/{VIDEOS[i % 3]}", "start_s": float(10 - i % 10), "end_s": 20.0}],
        "question": f"Question {i}: ünïcode ✓ and a \\u2028 line separator?",
        "choices": ["yes", "no", f"maybe {i}"],
        "answer": i % 3,
        "metadata": {"category": f"c{i % 4}", "skills": ["s"], "extra_key": [i, {"nested": True}]},
        **fields,
    }
    return json.dumps(record)


@pytest.fixture
def lazy(monkeypatch):
    """Benchmarks of more than 5 samples are read as used."""
    monkeypatch.setattr(sample_stream, "RESIDENT_UP_TO", 5)


def test_a_large_benchmark_reads_each_sample_as_a_small_one_does(tmp_path, lazy, monkeypatch):
    lines = [_sample(i) for i in range(40)]
    lines.insert(7, "")  # a blank line: not a sample, lines after it keep their numbers
    root = _bench(tmp_path / "bench", lines, ending="\r\n", bom=True)
    big = load_folder(root, missing_media_ok=True)
    assert isinstance(big.samples, SampleFile) and len(big.samples) == 40
    monkeypatch.setattr(sample_stream, "RESIDENT_UP_TO", 10**6)
    small = load_folder(root, missing_media_ok=True)
    assert isinstance(small.samples, list)
    assert list(big.samples) == small.samples and big.samples[-1] == small.samples[-1]
    assert list(big.samples[10:20]) == small.samples[10:20] and big.samples[3:9][2] == small.samples[5]
    assert big.samples.get("q33") == small.samples[33] and big.samples.get("nope") is None
    assert dict(big.sample_lines) == small.sample_lines and big.sample_lines["q8"] == 10
    from vqakit.runner._plan import by_video

    assert [s.id for s in by_video(big.samples)] == [s.id for s in by_video(small.samples)]
    assert [s.id for s in by_video(big.samples[5:17])] == [s.id for s in by_video(small.samples[5:17])]


def test_problems_are_the_same_as_the_whole_file_readers(tmp_path, lazy, monkeypatch):
    """A bad line in the middle, a sample the model refuses, a repeated id (three times), a
    check of media: the same problems, in the same order, as reading the file whole."""
    lines = [_sample(i) for i in range(30)]
    lines[4] = '{"id": "q4", "question": '  # torn
    lines[9] = _sample(9, answer=7)  # out of range
    lines[12] = _sample(3)  # q3 again
    lines[20] = _sample(3)  # and again
    lines[25] = _sample(25, videos=[{"path": "../outside.mp4"}])
    root = _bench(tmp_path / "bench", lines)
    streamed = check_folder(root, missing_media_ok=True)[1]

    def whole(*args, **kwargs):
        raise sample_stream.Fallback

    monkeypatch.setattr("vqakit.schema._folder.stream_samples", whole)
    assert streamed == check_folder(root, missing_media_ok=True)[1]
    shown = [str(problem) for problem in streamed]
    assert "samples.jsonl:13: id: duplicate id 'q3' (first on line 4)" in shown
    assert "samples.jsonl:21: id: duplicate id 'q3' (first on line 4)" in shown
    assert any(line.startswith("samples.jsonl:5: -: malformed JSON") for line in shown)
    assert any(line.startswith("samples.jsonl:26: videos.0.path:") for line in shown)


def test_files_the_line_reader_does_not_cover_are_read_whole(tmp_path, lazy):
    """UTF-16 text and lines ended by a bare CR go to the whole-file reader: same samples."""
    lines = [_sample(i) for i in range(8)]
    utf16 = _bench(tmp_path / "utf16", [])
    (utf16 / "samples.jsonl").write_bytes(("\n".join(lines) + "\n").encode("utf-16"))
    carriage = _bench(tmp_path / "cr", lines, ending="\r")
    expected = [Sample.model_validate_json(line) for line in lines]
    for root in (utf16, carriage):
        assert list(load_folder(root, missing_media_ok=True).samples) == expected


def test_the_index_is_used_again_only_while_the_file_and_its_media_are_the_same(tmp_path, lazy, monkeypatch):
    root = _bench(tmp_path / "bench", [_sample(i) for i in range(12)])
    first = load_folder(root, missing_media_ok=True)
    assert len(list((Path(sample_stream.cache_folder()) / sample_stream.CACHE).glob("*.npz"))) == 1
    read = []
    original = sample_stream.stream_samples
    monkeypatch.setattr(
        "vqakit.schema._folder.stream_samples", lambda *a, **k: read.append(1) or original(*a, **k)
    )
    again = load_folder(root, missing_media_ok=True)
    assert read == [] and list(again.samples) == list(first.samples)  # from the cached index
    with open(root / "samples.jsonl", "a") as handle:
        handle.write(_sample(12) + "\n")
    assert len(load_folder(root, missing_media_ok=True).samples) == 13 and read == [1]
    outside = tmp_path / "elsewhere.mp4"
    outside.write_bytes(b"x")
    (root / "media" / "a.mp4").unlink()
    (root / "media" / "a.mp4").symlink_to(outside)  # a media file now leads out of the folder
    problems = check_folder(root, missing_media_ok=True)[1]
    assert read == [1, 1] and any("escapes the benchmark folder" in str(p) for p in problems)


def test_a_line_changed_after_loading_is_named(tmp_path, lazy):
    root = _bench(tmp_path / "bench", [_sample(i) for i in range(10)])
    samples = load_folder(root, missing_media_ok=True).samples
    text = (root / "samples.jsonl").read_text().replace('"q4"', '"q4', 1)
    (root / "samples.jsonl").write_text(text)
    with pytest.raises(SampleFileChanged, match=r"samples.jsonl:5: no longer the sample"):
        samples[4]


def test_digests_find_positions(tmp_path):
    keys = sample_file.SampleKeys.of(["a", "b", "c", "b-"])
    assert [keys.position(x) for x in ("c", "a", "b-", "zz")] == [2, 0, 3, None]
