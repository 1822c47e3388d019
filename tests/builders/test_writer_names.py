"""A folder that fails its check on the way out names the user's files, never the staging folder
the writer filled (it is gone once the write fails): a placed file by the file it was placed
from, anything else by the output folder."""

from __future__ import annotations

import pytest

from vqakit.builders import write_benchmark_folder
from vqakit.schema import BenchmarkError

CARD = {"name": "names", "version": "1", "license": "CC0", "description": "a writer's messages"}


def test_a_bad_placed_file_is_named_by_its_source(tmp_path, index_clip):
    subtitles = tmp_path / "mine" / "talk.srt"
    subtitles.parent.mkdir()
    subtitles.write_text("1\n00:00:01,000 --> later\nhello\n")
    sample = {
        "id": "s1",
        "question": "What is said?",
        "videos": [{"path": "media/index.mp4"}],
        "choices": ["hello", "bye"],
        "answer": 0,
        "subtitles": "media/talk.srt",
    }
    with pytest.raises(BenchmarkError) as raised:
        write_benchmark_folder(
            tmp_path / "bench",
            card=CARD,
            samples=[sample],
            media={"index.mp4": index_clip, "talk.srt": subtitles},
            writer="build test",
        )
    message = str(raised.value)
    assert f"unreadable subtitles: {subtitles}: line 2: cannot read the cue timing" in message
    assert ".staging" not in message
    assert not (tmp_path / "bench").exists()
