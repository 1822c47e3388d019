"""Reading one fact from H.264 / HEVC packets: is this frame never used as a reference?

A frame that no other frame references ("disposable") can be left undecoded when it is not
itself wanted: dropping its packet changes no other picture. libx264 with B-frames marks about
half of all frames this way, which is where the exact sampler saves decode work.
"""

from __future__ import annotations

from collections.abc import Iterator

_H264_SLICE_TYPES = {1, 5}


def nal_length_size(codec: str, extradata: bytes | None) -> int | None:
    """Bytes of the NAL length prefix for MP4-style (AVCC / HVCC) packets; None for Annex B."""
    if not extradata or extradata[0] != 1:
        return None
    if codec == "h264" and len(extradata) > 4:
        return (extradata[4] & 0x03) + 1
    if codec == "hevc" and len(extradata) > 21:
        return (extradata[21] & 0x03) + 1
    return None


def _length_prefixed(data: memoryview, size: int) -> Iterator[int]:
    offset = 0
    while offset + size < len(data):
        length = int.from_bytes(data[offset : offset + size], "big")
        if length <= 0:
            return
        yield data[offset + size]
        offset += size + length


def _annex_b(data: bytes) -> Iterator[int]:
    start = data.find(b"\x00\x00\x01")
    while start != -1 and start + 3 < len(data):
        yield data[start + 3]
        start = data.find(b"\x00\x00\x01", start + 3)


def _first_slice_header(codec: str, headers: Iterator[int]) -> int | None:
    for byte in headers:
        if codec == "h264" and byte & 0x1F in _H264_SLICE_TYPES:
            return byte
        if codec == "hevc" and (byte >> 1) & 0x3F < 32:
            return byte
    return None


def is_disposable(codec: str, data: memoryview, length_size: int | None) -> bool:
    """True when the packet's picture is never referenced by another picture."""
    if codec not in ("h264", "hevc"):
        return False
    headers = _length_prefixed(data, length_size) if length_size else _annex_b(bytes(data))
    byte = _first_slice_header(codec, headers)
    if byte is None:
        return False
    if codec == "h264":
        return (byte >> 5) & 0x03 == 0
    nal_type = (byte >> 1) & 0x3F
    return nal_type <= 14 and nal_type % 2 == 0
