"""Subtitle files as found in the wild (read with pysubs2): encodings, broken numbering, WebVTT
details, styling, and cutting cues to a window on its own clock."""

from __future__ import annotations

import codecs

import pytest

from vqakit.video import Cue, VideoError, cut_cues, decode_subtitles, parse_subtitles, read_subtitles

SRT = "1\n00:00:01,000 --> 00:00:02,500\nCafé at noon?\n\n2\n00:00:03,000 --> 00:00:04,000\n“Don’t” – go\n"


def texts(cues: list[Cue]) -> list[str]:
    return [cue.text for cue in cues]


def test_utf8_with_and_without_bom(tmp_path):
    for name, raw in (("plain.srt", SRT.encode()), ("bom.srt", codecs.BOM_UTF8 + SRT.encode())):
        (tmp_path / name).write_bytes(raw)
        cues = read_subtitles(tmp_path / name)
        assert texts(cues) == ["Café at noon?", "“Don’t” – go"]
        assert [cue.line for cue in cues] == [2, 6]


def test_utf16_by_its_bom(tmp_path):
    (tmp_path / "wide.srt").write_bytes(SRT.encode("utf-16"))  # Python writes the BOM
    assert texts(read_subtitles(tmp_path / "wide.srt"))[0] == "Café at noon?"


def test_cp1252_is_the_first_legacy_guess(tmp_path):
    (tmp_path / "legacy.srt").write_bytes(SRT.encode("cp1252"))
    assert texts(read_subtitles(tmp_path / "legacy.srt")) == ["Café at noon?", "“Don’t” – go"]
    assert decode_subtitles(SRT.encode("cp1252"))[1] == "cp1252"


def test_latin1_reads_what_cp1252_cannot(tmp_path):
    # 0x81 and 0x9d are undefined in cp1252, so only latin-1 reads this file
    raw = "1\n00:00:01,000 --> 00:00:02,000\nNaïve \x81 \x9d\n".encode("latin-1")
    (tmp_path / "latin.srt").write_bytes(raw)
    assert texts(read_subtitles(tmp_path / "latin.srt")) == ["Naïve \x81 \x9d"]
    assert decode_subtitles(raw)[1] == "latin-1"


def test_a_forced_encoding_wins(tmp_path):
    (tmp_path / "cyrillic.srt").write_bytes("1\n00:00:01,000 --> 00:00:02,000\nПривет\n".encode("cp1251"))
    assert texts(read_subtitles(tmp_path / "cyrillic.srt", encoding="cp1251")) == ["Привет"]
    with pytest.raises(VideoError, match="cannot decode as nonsense"):
        read_subtitles(tmp_path / "cyrillic.srt", encoding="nonsense")


def test_broken_numbering():
    text = (
        "7\n00:00:01,000 --> 00:00:02,000\nnumbered seven\n\n"
        "7\n00:00:02,000 --> 00:00:03,000\nrepeated number\n"
        "00:00:03,000 --> 00:00:04,000\nno number, no blank line before\n\n\n\n"
        "x12\n00:00:04,000 --> 00:00:05,000\nthe id was not a number\n\n"
        "00:00:05,000 --> 00:00:06,000\nthe answer is\n42\n\n"
        "3\n00:00:06,000 --> 00:00:07,000\nfirst part\n\nafter a blank line inside the cue\n"
    )
    cues = parse_subtitles(text, "broken.srt")
    assert texts(cues) == [
        "numbered seven",
        "repeated number",
        "no number, no blank line before",
        "the id was not a number",
        "the answer is\n42",
        "first part\nafter a blank line inside the cue",
    ]
    assert [cue.start_s for cue in cues] == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert [cue.line for cue in cues] == [2, 6, 8, 14, 17, 22]


def test_styling_tags_are_dropped():
    text = '1\n00:00:01,000 --> 00:00:02,000\n{\\an8}<i>Look</i> <font color="#ff0">up</font>!\n'
    assert texts(parse_subtitles(text)) == ["Look up!"]


def test_a_time_in_the_dialogue_stays_text():
    text = "1\n00:00:01,000 --> 00:00:02,000\nMeet at 10:30:00.000 or 11:00:00.000\n"
    cues = parse_subtitles(text)
    assert texts(cues) == ["Meet at 10:30:00.000 or 11:00:00.000"] and len(cues) == 1


def test_vtt_identifiers_notes_and_entities():
    text = (
        "WEBVTT\nKind: captions\nLanguage: en\n\n"
        "opening\n00:01.000 --> 00:02.000 line:0\n<v.loud Sam>Fish &amp; chips</v>\n\n"
        "NOTE a remark between cues\nover two lines\n\n"
        "second-id\n00:02.500 --> 00:04.000\nWord <00:03.000>by <c.yellow>word</c>&nbsp;&lt;3\n\n"
        "1:02:03.4 --> 1:02:05.000\nHours of one digit, one digit of millis\n"
    )
    cues = parse_subtitles(text, "talk.vtt")
    assert [(c.start_s, c.end_s, c.text, c.line) for c in cues] == [
        (1.0, 2.0, "Fish & chips", 6),
        (2.5, 4.0, "Word by word\xa0<3", 13),
        (3723.4, 3725.0, "Hours of one digit, one digit of millis", 16),
    ]


def test_empty_and_odd_files(tmp_path):
    assert parse_subtitles("") == [] and parse_subtitles("WEBVTT\n\n") == []
    assert texts(
        parse_subtitles("1\n00:00:01,000 --> 00:00:02,000\n\n2\n00:00:02,000 --> 00:00:03,000\nx\n")
    ) == [
        "",
        "x",
    ]
    with pytest.raises(VideoError, match=r"^.*folder\.srt: cannot read the subtitle file"):
        (tmp_path / "folder.srt").mkdir()
        read_subtitles(tmp_path / "folder.srt")
    with pytest.raises(VideoError, match="subtitle file not found"):
        read_subtitles(tmp_path / "absent.srt")


def test_cut_cues_clips_and_shifts_to_the_window():
    cues = [
        Cue(0.0, 2.0, "before", 2),
        Cue(9.0, 11.0, "straddles the start", 6),
        Cue(12.0, 13.5, "inside", 10),
        Cue(19.0, 25.0, "straddles the end", 14),
        Cue(20.0, 21.0, "starts at the end", 18),
    ]
    cut = cut_cues(cues, 10.0, 20.0)
    assert [(c.start_s, c.end_s, c.text, c.line) for c in cut] == [
        (0.0, 1.0, "straddles the start", 6),
        (2.0, 3.5, "inside", 10),
        (9.0, 10.0, "straddles the end", 14),
    ]
    assert cut_cues(cues, 2.0, 9.0) == []  # touching a window's edge is not overlapping it


def test_cut_cues_of_a_shipped_file(media_dir):
    cut = cut_cues(read_subtitles(media_dir / "s1.srt"), 2.25, 9.0)
    assert [(c.start_s, c.end_s, c.text.split("\n")[0]) for c in cut] == [
        (0.0, 0.25, "E"),
        (0.25, 0.75, "F"),
        (0.75, 6.75, "This is multiple line test."),
    ]
