"""What the time-based importers share: ELAN ``.eaf``, Praat TextGrid and RTTM.

Each of those readers hands this module its **marks** (a start, an end, a label, and
for ELAN the annotation's id and its parent's) per annotator, item and tier, in the
format's own time unit, and :class:`TimedCollector` turns them into an
:class:`~app.core.formats.importers.model.ImportedStudy`:

- **Scheme.** When some annotator holds more than one tier on some item, the study is
  one ``tiered_annotation`` scheme ``tiers`` with every tier seen (Potato's tier config:
  ``tier_type``, ``parent_tier``, ``constraint_type``, the labels used), answered as
  ``{"annotations": {"<tier>": [{"id", "tier", "start_time", "end_time", "label",
  "parent_id"}]}}`` in **milliseconds**. Otherwise (at most one tier per annotator and
  item) it is one ``audio_annotation`` scheme ``segments``, answered as
  ``{"segments": [{"id", "start_time", "end_time", "label"}]}`` in **seconds**; the tier
  names are then not kept (a note says so when they differ).
- **Units.** The reader says how many milliseconds its unit is (ELAN 1, TextGrid and
  RTTM 1000); :func:`in_ms` and :func:`in_seconds` are the one place a time is
  converted, rounded to 9 decimals so that ``1.001 s`` is written as ``1001`` ms, not
  ``1000.9999999999999`` (whole numbers are written as integers).
- **Items.** The item id is what the reader says (the file stem, the RTTM file-id); an
  item is listed once however many annotators hold it, in the order first seen, with
  ``text`` the name of the first file that held it. An annotator who holds an item with
  nothing marked has an empty answer; an annotator who does not hold it has none.
- **Media.** An audio file found beside the source (:meth:`TimedCollector.audio_beside`)
  is copied to ``media/<item>/<file name>`` and named under the record key ``audio``
  (every scheme's ``source_field``); the first annotator's file that has one wins. Items
  with no audio are counted in a note and listed without media.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedItem, ImportedScheme, ImportedStudy
from app.core.formats.reading.boundary import ANYWHERE, read_bytes

AUDIO_SUFFIXES = (".wav", ".flac", ".mp3", ".ogg", ".opus", ".m4a", ".aac", ".aif", ".aiff",
                  ".wma")
MEDIA_KEY = "audio"
SEGMENTS_SCHEME = "segments"
TIERS_SCHEME = "tiers"
_SAFE = re.compile(r"[^\w.-]+")


@dataclass(frozen=True)
class Mark:
    """One annotation, times in the reader's unit (``start == end``: an instant)."""

    start: float
    end: float
    label: str
    ident: str | None = None
    parent: str | None = None


@dataclass(frozen=True)
class TierShape:
    """Where a tier sits in its hierarchy (ELAN); TextGrid and RTTM tiers are all plain."""

    parent: str | None = None
    constraint: str | None = None
    """Potato's ``constraint_type``: ``time_subdivision``, ``included_in``,
    ``symbolic_subdivision`` or ``symbolic_association``."""
    linguistic_type: str | None = None


def in_ms(value: float, ms_per_unit: float) -> float | int:
    """A time in the reader's unit, in milliseconds (tiered answers)."""
    return _tidy(value * ms_per_unit)


def in_seconds(value: float, ms_per_unit: float) -> float | int:
    """A time in the reader's unit, in seconds (audio segments)."""
    return _tidy(value * ms_per_unit / 1000.0 if ms_per_unit != 1000.0 else value)


def _tidy(value: float) -> float | int:
    rounded = round(value, 9)
    return int(rounded) if rounded.is_integer() and abs(rounded) < 2**53 else rounded


def source_files(source: Path, suffix: str, what: str) -> list[Path]:
    """The files of one SOURCE: the file itself, or the folder's ``*<suffix>`` files
    (case-insensitive, not recursive, sorted by name)."""
    if source.is_file():
        return [source]
    found = sorted((p for p in source.iterdir()
                    if p.is_file() and p.suffix.lower() == suffix.lower()),
                   key=lambda p: p.name)
    if not found:
        raise InputError(f"no {what} files ({suffix}) in this folder; expected one file per "
                         "item", file=source)
    return found


def read_text(path: Path) -> str:
    """A text file as UTF-8 (with or without a byte-order mark)."""
    try:
        return read_bytes(path, root=ANYWHERE).decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 text (byte {exc.start}); expected a text file",
                         file=path) from None
    except OSError as exc:
        raise InputError(f"cannot be read ({exc.strerror}); expected a readable file",
                         file=path) from None


class TimedCollector:
    """Marks per annotator, item and tier, gathered file by file (see the module)."""

    def __init__(self, format_name: str, ms_per_unit: float) -> None:
        self.format = format_name
        self.ms_per_unit = ms_per_unit
        self.items: dict[str, ImportedItem] = {}
        self.marks: dict[str, dict[str, dict[str, list[Mark]]]] = {}
        self.shapes: dict[str, TierShape] = {}
        self.notes: list[str] = []
        self._held: dict[tuple[str, str], Path] = {}
        self._folders: set[str] = set()
        self._listings: dict[Path, dict[str, Path]] = {}
        self._conflicts: set[str] = set()

    # ------------------------------------------------------------------ gathering

    def audio_beside(self, file: Path, names: Iterable[str]) -> Path | None:
        """The first of ``names`` (compared case-insensitively) that is a file in
        ``file``'s folder."""
        folder = file.parent
        listing = self._listings.get(folder)
        if listing is None:
            try:
                listing = {p.name.lower(): p for p in folder.iterdir() if p.is_file()}
            except OSError:
                listing = {}
            self._listings[folder] = listing
        for name in names:
            found = listing.get(name.lower())
            if found is not None:
                return found
        return None

    def add_item(self, item_id: str, source: Path, audio: Path | None) -> None:
        """List ``item_id`` (once), with the audio when this is the first file with one."""
        item = self.items.get(item_id)
        if item is None:
            item = self.items[item_id] = ImportedItem(item_id, {"text": source.name})
        if audio is not None and MEDIA_KEY not in item.record:
            relative = f"media/{self._folder(item_id)}/{audio.name}"
            item.record[MEDIA_KEY] = relative
            item.media[relative] = audio

    def _folder(self, item_id: str) -> str:
        """A folder name for the item's media that stays inside ``media/``."""
        base = _SAFE.sub("_", item_id).lstrip(".") or "item"
        name, n = base, 1
        while name in self._folders:
            n += 1
            name = f"{base}_{n}"
        self._folders.add(name)
        return name

    def answer(self, annotator: str, item_id: str, source: Path, *, merge: bool = False
               ) -> dict[str, list[Mark]]:
        """``annotator``'s tiers on ``item_id`` (present from now on, even if left empty).

        Without ``merge``, a second file giving the same annotator the same item is an
        error; with it (RTTM: an annotator's several files), the marks are pooled."""
        key = (annotator, item_id)
        if key in self._held and not merge:
            raise InputError(f"annotator '{annotator}' already has item '{item_id}' from "
                             f"{self._held[key]}; expected each annotator's item in one file",
                             file=source)
        self._held.setdefault(key, source)
        return self.marks.setdefault(annotator, {}).setdefault(item_id, {})

    def tier(self, name: str, shape: TierShape | None = None) -> None:
        """Record a tier's place; the first shape seen wins, later different ones are
        counted in a note."""
        shape = shape or TierShape()
        known = self.shapes.setdefault(name, shape)
        if known != shape:
            self._conflicts.add(name)

    # -------------------------------------------------------------------- building

    def build(self) -> ImportedStudy:
        tiered = any(len(tiers) > 1 for per_item in self.marks.values()
                     for tiers in per_item.values())
        scheme = self._tiers_scheme() if tiered else self._segments_scheme()
        answers: dict[str, dict[str, dict[str, Any]]] = {}
        for annotator, per_item in self.marks.items():
            answers[annotator] = {
                item: {scheme.name: self._tiered(tiers) if tiered else self._segments(tiers)}
                for item, tiers in per_item.items()}
        notes = list(self.notes)
        if self._conflicts:
            names = ", ".join(sorted(self._conflicts))
            notes.append(f"tiers {names} sit differently in different files (another parent, "
                         "constraint or linguistic type); the first file's structure is kept")
        missing = sum(MEDIA_KEY not in item.record for item in self.items.values())
        if missing:
            notes.append(f"{missing} of {len(self.items)} items have no audio file beside "
                         "their source; they are listed without media")
        return ImportedStudy(format=self.format, schemes=[scheme], items=dict(self.items),
                             answers=answers, notes=notes, text_key="text",
                             media_keys=(MEDIA_KEY,))

    def _labels(self, tier: str | None) -> list[dict[str, str]]:
        seen = {m.label for per_item in self.marks.values() for tiers in per_item.values()
                for name, marks in tiers.items() if tier is None or name == tier
                for m in marks if m.label}
        return [{"name": label} for label in sorted(seen)]

    def _segments_scheme(self) -> ImportedScheme:
        names = sorted({name for per_item in self.marks.values()
                        for tiers in per_item.values() for name in tiers})
        if len(names) > 1:
            self.notes.append(f"each annotator holds one tier per item, named differently "
                              f"({', '.join(names)}); they are compared as one set of "
                              "segments and the tier names are not kept")
        return ImportedScheme(SEGMENTS_SCHEME, "audio_annotation", {
            "description": f"Segments imported from {self.format}.",
            "source_field": MEDIA_KEY, "mode": "label", "labels": self._labels(None)})

    def _tiers_scheme(self) -> ImportedScheme:
        tiers: list[dict[str, Any]] = []
        for name, shape in self.shapes.items():
            entry: dict[str, Any] = {"name": name}
            if shape.parent is not None and shape.parent in self.shapes:
                entry["tier_type"] = "dependent"
                entry["parent_tier"] = shape.parent
                if shape.constraint:
                    entry["constraint_type"] = shape.constraint
            else:
                entry["tier_type"] = "independent"
            if shape.linguistic_type:
                entry["linguistic_type"] = shape.linguistic_type
            entry["labels"] = self._labels(name)
            tiers.append(entry)
        return ImportedScheme(TIERS_SCHEME, "tiered_annotation", {
            "description": f"Tiers imported from {self.format}.",
            "source_field": MEDIA_KEY, "media_type": "audio", "tiers": tiers})

    def _segments(self, tiers: dict[str, list[Mark]]) -> dict[str, Any]:
        marks = sorted((m for ms in tiers.values() for m in ms),
                       key=lambda m: (m.start, m.end, m.label))
        u = self.ms_per_unit
        return {"segments": [{"id": f"segment_{i + 1}", "start_time": in_seconds(m.start, u),
                              "end_time": in_seconds(m.end, u), "label": m.label}
                             for i, m in enumerate(marks)]}

    def _tiered(self, tiers: dict[str, list[Mark]]) -> dict[str, Any]:
        u = self.ms_per_unit
        out: dict[str, list[dict[str, Any]]] = {}
        n = 0
        for name in self.shapes:
            entries = []
            for m in sorted(tiers.get(name, ()), key=lambda m: (m.start, m.end)):
                n += 1
                entries.append({"id": m.ident or f"ann_{n}", "tier": name,
                                "start_time": in_ms(m.start, u), "end_time": in_ms(m.end, u),
                                "label": m.label, "parent_id": m.parent})
            out[name] = entries
        return {"annotations": out}


def check_annotator_name(name: str, file: Path, where: str) -> str:
    """An annotator name that can be a folder of ``annotation_output/``."""
    if not name or name in (".", "..") or name.startswith(".") or any(
            c in name for c in "/\\\0"):
        raise InputError(f"{where} names annotator '{name}', which cannot be an annotator's "
                         "folder name; give --annotator NAME per source", file=file)
    return name
