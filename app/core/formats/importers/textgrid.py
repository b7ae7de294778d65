"""Praat TextGrid files (read with praatio) → a Potato project of tiers or segments.

**Format and units.** Praat's text TextGrid, in its long (``xmin = 0.5``) or short
(bare values) form, UTF-8 or UTF-16 as Praat writes it, read with praatio; or its binary
TextGrid (a file starting ``ooBinaryFile``, Praat's "Save as binary file"), which praatio
does not read, read by :mod:`.textgrid_binary`; times in **seconds**. An interval
tier partitions the file's time into intervals; a point tier holds instants.

**Items and who is who.** One TextGrid per item; the item id is the file stem. Each
SOURCE (a ``.TextGrid`` file, or a folder of them, not recursive) is one annotator,
named by the ``--annotator`` in the same position, else by the file's stem or the
folder's name. Items are matched across annotators by that stem.

**What is read** (choices where Praat leaves room):

- An interval whose text is empty (or only spaces) is a gap, not an annotation: Praat
  fills every interval tier from ``xmin`` to ``xmax``, so the unlabelled rest of a tier
  is what is not marked. The gaps are counted in a note.
- A point is an instant (``start_time == end_time``), whatever its text: a point is
  always placed on purpose.
- Labels are the interval or point text, trimmed of surrounding spaces.
- Several tiers (in any annotator's file) make one ``tiered_annotation`` scheme whose
  tiers are the tier names, in **milliseconds** (the one conversion,
  :func:`~app.core.formats.importers.timed_items.in_ms`); one tier per file makes one
  ``audio_annotation`` scheme of segments in seconds (see
  :mod:`~app.core.formats.importers.timed_items`). TextGrid tiers carry no hierarchy:
  every tier is independent.
- Intervals of one tier never overlap in a TextGrid; a file where they do is an error,
  as is an interval that ends before it starts or a tier named twice.

**Media.** An audio file with the TextGrid's stem beside it (``clip.wav`` for
``clip.TextGrid``; ``.wav``, ``.flac``, ``.mp3``... any case) is copied when found.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from praatio import textgrid
from praatio.data_classes.interval_tier import IntervalTier
from praatio.utilities import errors

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.textgrid_binary import is_binary, read_binary
from app.core.formats.importers.timed_items import (
    AUDIO_SUFFIXES,
    Mark,
    TimedCollector,
    source_files,
)
from app.core.formats.reading.boundary import ANYWHERE, read_bytes

OVERLAP_TOLERANCE = 1e-9
"""Seconds: praatio's float round-off between one interval's end and the next's start."""
Tier = tuple[str, bool, list[Any]]
"""A tier's name, whether it holds intervals, and its entries: ``(start, end, text)``
for intervals, ``(time, text)`` for points."""


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    study = TimedCollector("textgrid", ms_per_unit=1000.0)
    counts: Counter[str] = Counter()
    for source, name in zip(sources, names, strict=True):
        for path in source_files(source, ".TextGrid", "Praat TextGrid"):
            tiers = _open(path)
            item = path.stem
            audio = study.audio_beside(path, [item + s for s in AUDIO_SUFFIXES])
            study.add_item(item, path, audio)
            answer = study.answer(name, item, path)
            for tier_name, intervals, entries in tiers:
                study.tier(tier_name)
                answer[tier_name] = _marks(intervals, entries, tier_name, path, counts)
    study.notes.append("TextGrid tiers cannot overlap: within one tier an annotator's "
                       "intervals never overlap, so overlapping events had to be put on "
                       "separate tiers; TextGrid tiers have no hierarchy, so every tier is "
                       "independent")
    if counts["gaps"]:
        study.notes.append(f"{counts['gaps']} empty intervals are gaps between annotations, "
                           "not annotations, and were not imported")
    return study.build()


def _open(path: Path) -> list[Tier]:
    """The file's tiers, from a text or a binary TextGrid."""
    data = read_bytes(path, root=ANYWHERE)  # never a FIFO or a device, bounded
    if is_binary(data):
        grid = read_binary(data, path)
        return [(t.name, t.intervals, list(t.entries)) for t in grid.tiers]
    return _praatio_tiers(path)


def _praatio_tiers(path: Path) -> list[Tier]:
    try:
        grid = textgrid.openTextgrid(str(path), includeEmptyIntervals=True,
                                     reportingMode="error", duplicateNamesMode="error")
        return [(name, isinstance(grid.getTier(name), IntervalTier),
                 list(grid.getTier(name).entries)) for name in grid.tierNames]
    except errors.DuplicateTierName:
        raise InputError("two tiers have the same name; expected unique tier names",
                         file=path) from None
    except errors.TextgridStateError as exc:
        raise InputError(f"{_sentence(exc)}; expected intervals that end after they start "
                         "and do not overlap", file=path) from None
    except errors.PraatioException as exc:
        raise InputError(f"could not be read as a TextGrid ({_sentence(exc)}); expected "
                         "Praat's long or short text TextGrid", file=path) from None
    except (OSError, UnicodeError) as exc:
        raise InputError(f"cannot be read ({exc}); expected a TextGrid text file",
                         file=path) from None
    except Exception:  # praatio's parser fails with IndexError, ValueError... on junk
        raise InputError("could not be read as a TextGrid (truncated or not a TextGrid?); "
                         "expected Praat's long or short text TextGrid", file=path) from None


def _sentence(exc: BaseException) -> str:
    text = " ".join(str(exc).split()).rstrip(".")
    return text[:1].lower() + text[1:] if text else type(exc).__name__


def _marks(intervals: bool, entries: list[Any], name: str, path: Path, counts: Counter[str]
           ) -> list[Mark]:
    out: list[Mark] = []
    if intervals:
        previous_end: float | None = None
        for start, end, text in sorted(entries, key=lambda e: (e[0], e[1])):
            start, end = float(start), float(end)
            if end < start:
                raise InputError(f"an interval of tier '{name}' ends before it starts "
                                 f"({start:g} s > {end:g} s); expected start <= end",
                                 file=path)
            if previous_end is not None and start < previous_end - OVERLAP_TOLERANCE:
                raise InputError(f"intervals of tier '{name}' overlap at {start:g} s; a "
                                 "TextGrid tier cannot overlap", file=path)
            previous_end = end
            label = str(text).strip()
            if not label:
                counts["gaps"] += 1
                continue
            out.append(Mark(start, end, label))
    else:
        for time, text in entries:
            out.append(Mark(float(time), float(time), str(text).strip()))
    return out
