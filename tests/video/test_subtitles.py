from __future__ import annotations

import pytest

from vqakit.video import VideoError, cues_between, parse_subtitles, read_subtitles


def test_shipped_srt(media_dir):
    cues = read_subtitles(media_dir / "s1.srt")
    assert [c.text for c in cues[:6]] == list("ABCDEF")
    assert cues[6].start_s == 3.0 and cues[6].end_s == 10.0
    assert "salad dressing" in cues[6].text and cues[6].text.count("\n") == 2
    assert cues[0].line == 2


def test_shipped_vtt(media_dir):
    cues = read_subtitles(media_dir / "s2.vtt")
    assert [c.text for c in cues] == ["一", "二", "三", "四", "中文測試"]
    assert cues[-1].start_s == 2.0


def test_vtt_details_are_tolerated():
    text = (
        "\ufeffWEBVTT - title\r\n\r\nNOTE a comment\r\nspanning lines\r\n\r\n"
        "STYLE\r\n::cue { color: red }\r\n\r\n"
        "intro\r\n00:01.500 --> 00:03.000 align:start position:10%\r\n<v Anna>Hello <i>there</i></v>\r\n\r\n"
        "01:00:00.000 --> 01:00:01.250\r\nLate line\r\n"
    )
    cues = parse_subtitles(text)
    assert [(c.start_s, c.end_s, c.text) for c in cues] == [
        (1.5, 3.0, "Hello there"),
        (3600.0, 3601.25, "Late line"),
    ]


def test_srt_comma_millis_and_window():
    text = "1\n00:00:01,000 --> 00:00:02,500\nfirst\n\n2\n00:00:04,000 --> 00:00:05,000\nsecond\n"
    cues = parse_subtitles(text)
    assert [c.text for c in cues_between(cues, 2.0, 4.5)] == ["first", "second"]
    assert cues_between(cues, 2.5, 4.0) == []


def test_bad_timing_names_file_and_line():
    with pytest.raises(VideoError, match=r"^x\.srt: line 2: cannot read the cue timing"):
        parse_subtitles("1\n00:00:01 --> 00:00:02\nno millis\n", "x.srt")
    with pytest.raises(VideoError, match=r"line 2: cue ends"):
        parse_subtitles("1\n00:00:05,000 --> 00:00:02,000\nbackwards\n", "y.srt")
    with pytest.raises(VideoError, match="no subtitle cues"):
        parse_subtitles("just some text\nwithout timings\n", "z.srt")
