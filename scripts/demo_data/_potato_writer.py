"""Shared pieces of the structured demo generators (lidar, speakers, street images).

The three ``make_*.py`` scripts next to this file each write one Potato 2.x project
folder. What they have in common lives here so that the *file formats* are written in
one place: Potato's ``user_state.json``, JSON Lines data files, and the media (PNG, WAV,
``.npy`` point clouds).

Everything must come out byte for byte the same on every machine and every Python, so:

- randomness comes from :class:`Dice`, which only uses ``Random.random()`` (the one
  method Python promises to keep stable); Gaussian noise is our own Box-Muller on top;
- numbers written to JSON are rounded first, so a last-bit difference in a platform's
  ``sin``/``log`` cannot show in the output;
- PNG data is compressed by our own small DEFLATE encoder (fixed Huffman codes, run and
  row-copy matches) instead of ``zlib.compress``: the bytes ``zlib.compress`` returns
  depend on the zlib build (zlib-ng, which some distributions ship as ``libz``, compresses
  differently), and the demo's test compares bytes. ``zlib`` is still used for the CRC
  and Adler-32 checksums, which are fixed by the standards.
"""

from __future__ import annotations

import json
import math
import random
import shutil
import struct
import wave
import zlib
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")


class Dice:
    """Seeded draws built on ``Random.random()`` alone, so output is stable across Pythons.

    ``choice``/``randint``/``shuffle``/``gauss`` may change their algorithms between
    Python versions; ``random()`` may not. Everything here derives from it.
    """

    def __init__(self, seed: int) -> None:
        self._random = random.Random(seed)

    def unit(self) -> float:
        return self._random.random()

    def chance(self, p: float) -> bool:
        return self.unit() < p

    def pick(self, options: Sequence[T]) -> T:
        return options[int(self.unit() * len(options))]

    def between(self, low: int, high: int) -> int:
        """An integer in ``[low, high]``."""
        return low + int(self.unit() * (high - low + 1))

    def uniform(self, low: float, high: float) -> float:
        return low + (high - low) * self.unit()

    def gauss(self, mu: float = 0.0, sigma: float = 1.0) -> float:
        """Normal noise by Box-Muller (two uniforms per draw, no cached second value)."""
        u1 = 1.0 - self.unit()  # in (0, 1], so the log is finite
        u2 = self.unit()
        return mu + sigma * math.sqrt(-2.0 * math.log(u1)) * math.cos(2.0 * math.pi * u2)

    def shuffled(self, options: Sequence[T]) -> list[T]:
        out = list(options)
        for i in range(len(out) - 1, 0, -1):
            j = int(self.unit() * (i + 1))
            out[i], out[j] = out[j], out[i]
        return out


# ------------------------------------------------------------------------ folders


def replace_folder(out_dir: Path) -> None:
    """Empty ``out_dir`` for a fresh generation, refusing to delete what we did not write.

    A generated study always has ``config.yaml`` at its top; a non-empty folder without
    one is someone's work, and a typo in the output path must not erase it.
    """
    if out_dir.exists():
        if any(out_dir.iterdir()) and not (out_dir / "config.yaml").is_file():
            raise FileExistsError(f"{out_dir} is not empty and is not a generated study; "
                                  "refusing to replace it")
        shutil.rmtree(out_dir)
    out_dir.mkdir(parents=True)


def write_text(path: Path, text: str) -> None:
    """UTF-8 with ``\\n`` line ends on every platform (Windows would write ``\\r\\n``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")


def write_jsonl(path: Path, records: Iterable[Mapping[str, Any]]) -> None:
    """A Potato data file: one JSON object per line."""
    write_text(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))


# --------------------------------------------------------------------- user state


def compact(value: Any) -> str:
    """A structured answer as the browser's ``JSON.stringify`` writes the hidden input."""
    return json.dumps(value, separators=(",", ":"))


def data_pair(schema: str, answer: Any) -> list[Any]:
    """One ``instance_id_to_label_to_value`` entry of a media scheme.

    Potato 2.x stores image, audio, tiered and spatial answers as one JSON string under
    the label name ``_data``.
    """
    return [{"schema": schema, "name": "_data"}, compact(answer)]


def change(when: float, schema: str, value: str) -> dict[str, Any]:
    """An ``annotation_changes`` entry for a media scheme's hidden input being updated."""
    return {"timestamp": round(when, 3), "schema_name": schema, "label_name": "_data",
            "old_label": None, "action": "update", "old_value": None, "new_value": value,
            "source": "user", "phase": None, "page": None}


def behaviour(item: str, start: float, end: float, changes: list[dict[str, Any]]
              ) -> dict[str, Any]:
    """``instance_id_to_behavioral_data[item]``, in Potato's key order."""
    return {
        "instance_id": item, "session_start": round(start, 3), "session_end": round(end, 3),
        "total_time_ms": round((end - start) * 1000), "interactions": [], "ai_usage": [],
        "annotation_changes": changes, "navigation_history": [],
        "focus_time_by_element": {}, "scroll_depth_max": 0.0,
        "keyword_highlights_shown": [], "chat_history": [], "typing_summaries": {},
    }


def user_state(name: str, ordering: Sequence[str], labels: Mapping[str, list[list[Any]]],
               behaviours: Mapping[str, dict[str, Any]]) -> dict[str, Any]:
    """One annotator's ``user_state.json``, in the key order Potato's ``to_json`` uses."""
    return {
        "user_id": name,
        "instance_id_ordering": list(ordering),
        "current_instance_index": len(ordering) - 1,
        "current_phase_and_page": ["annotation", None],
        "completed_phase_and_pages": [],
        "max_assignments": -1,
        "instance_id_to_behavioral_data": dict(behaviours),
        "instance_id_to_label_to_value": dict(labels),
        "instance_id_to_span_to_value": {},
        "phase_to_page_to_label_to_value": {},
        "phase_to_page_to_span_to_value": {},
        "training_state": {
            "completed_questions": {}, "total_correct": 0, "total_attempts": 0,
            "total_mistakes": 0, "passed": False, "failed": False,
            "current_question_index": 0, "training_instances": [], "show_feedback": False,
            "feedback_message": "", "allow_retry": False, "max_mistakes": -1,
            "max_mistakes_per_question": -1, "category_scores": {}},
        "qualified_categories": [],
        "category_qualification_scores": {},
        "instance_id_to_keyword_highlight_state": {},
        "instance_id_to_link_to_value": {},
        "instance_id_to_event_to_value": {},
    }


def write_user_state(out_dir: Path, name: str, state: Mapping[str, Any]) -> None:
    """``annotation_output/<name>/user_state.json`` as Potato writes it:
    ``json.dump(state, f, indent=2)``, no trailing newline."""
    write_text(out_dir / "annotation_output" / name / "user_state.json",
               json.dumps(state, indent=2))


def sessions(dice: Dice, start: float, items: Sequence[str], seconds: tuple[float, float]
             ) -> list[tuple[str, float, float]]:
    """``(item, session start, session end)`` for items annotated one after another."""
    out = []
    clock = start
    for item in items:
        end = clock + dice.uniform(*seconds)
        out.append((item, clock, end))
        clock = end + dice.uniform(2, 8)
    return out


# ----------------------------------------------------------------------------- PNG

_LENGTH_BASE = (3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59,
                67, 83, 99, 115, 131, 163, 195, 227, 258)
_LENGTH_EXTRA = (0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4,
                 5, 5, 5, 5, 0)
_DIST_BASE = (1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513,
              769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577)
_DIST_EXTRA = (0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10,
               11, 11, 12, 12, 13, 13)
MAX_MATCH = 258


class _Bits:
    """DEFLATE's bit order: values packed from the least significant bit up."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, value: int, n: int) -> None:
        self.acc |= value << self.n
        self.n += n
        while self.n >= 8:
            self.out.append(self.acc & 0xFF)
            self.acc >>= 8
            self.n -= 8

    def code(self, code: int, n: int) -> None:
        """A Huffman code: written from its most significant bit."""
        self.put(int(format(code, f"0{n}b")[::-1], 2), n)

    def flush(self) -> bytes:
        if self.n:
            self.out.append(self.acc & 0xFF)
            self.acc = self.n = 0
        return bytes(self.out)


def _literal(bits: _Bits, symbol: int) -> None:
    """A literal/length symbol with the fixed Huffman code of RFC 1951, 3.2.6."""
    if symbol < 144:
        bits.code(0x30 + symbol, 8)
    elif symbol < 256:
        bits.code(0x190 + symbol - 144, 9)
    elif symbol < 280:
        bits.code(symbol - 256, 7)
    else:
        bits.code(0xC0 + symbol - 280, 8)


def _match(bits: _Bits, length: int, distance: int) -> None:
    i = max(k for k, base in enumerate(_LENGTH_BASE) if base <= length)
    _literal(bits, 257 + i)
    if _LENGTH_EXTRA[i]:
        bits.put(length - _LENGTH_BASE[i], _LENGTH_EXTRA[i])
    j = max(k for k, base in enumerate(_DIST_BASE) if base <= distance)
    bits.code(j, 5)
    if _DIST_EXTRA[j]:
        bits.put(distance - _DIST_BASE[j], _DIST_EXTRA[j])


def _match_length(data: bytes, i: int, distance: int) -> int:
    if i < distance:
        return 0
    limit = min(MAX_MATCH, len(data) - i)
    if data[i:i + limit] == data[i - distance:i - distance + limit]:
        return limit
    n = 0
    while n < limit and data[i + n] == data[i + n - distance]:
        n += 1
    return n


def deflate(data: bytes, distances: Sequence[int]) -> bytes:
    """A zlib stream of ``data``: one fixed-Huffman block, greedy matches at the given
    distances only (for an image: the previous pixel and the pixel above).

    Not a general compressor; enough to shrink flat-coloured synthetic images about
    twenty-fold, with output that depends on nothing but ``data``.
    """
    bits = _Bits()
    bits.put(1, 1)  # BFINAL
    bits.put(1, 2)  # BTYPE = 01, fixed Huffman codes
    i = 0
    while i < len(data):
        best, best_d = 0, 0
        for d in distances:
            n = _match_length(data, i, d)
            if n > best:
                best, best_d = n, d
        if best >= 3:
            _match(bits, best, best_d)
            i += best
        else:
            _literal(bits, data[i])
            i += 1
    _literal(bits, 256)  # end of block
    header = b"\x78\x01"  # deflate, 32 KiB window, no dictionary; (0x7801 % 31 == 0)
    return header + bits.flush() + struct.pack(">I", zlib.adler32(data))


def _chunk(kind: bytes, body: bytes) -> bytes:
    return (struct.pack(">I", len(body)) + kind + body
            + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF))


def write_png(path: Path, rows: Sequence[bytes], palette: Sequence[tuple[int, int, int]]
              ) -> None:
    """An 8-bit palette PNG: ``rows`` of palette indices, top row first.

    A palette keeps the synthetic scenes small (one byte a pixel before compression)
    and their flat colours give the run/row matches of :func:`deflate` long matches.
    """
    height, width = len(rows), len(rows[0])
    if any(len(r) != width for r in rows):
        raise ValueError("every row must have the same width")
    raw = b"".join(b"\x00" + bytes(r) for r in rows)  # filter type 0 (none) per row
    body = (b"\x89PNG\r\n\x1a\n"
            + _chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 3, 0, 0, 0))
            + _chunk(b"PLTE", b"".join(bytes(c) for c in palette))
            + _chunk(b"IDAT", deflate(raw, (1, width + 1)))
            + _chunk(b"IEND", b""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(body)


# ----------------------------------------------------------------------------- WAV


def write_wav(path: Path, samples: Sequence[int], rate: int) -> None:
    """Mono 8-bit unsigned PCM (``samples`` in 0..255, silence at 128) with ``wave``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(1)
        w.setframerate(rate)
        w.writeframes(bytes(samples))
