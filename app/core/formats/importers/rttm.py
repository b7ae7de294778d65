"""RTTM speaker turns (own reader) → a Potato project with one scheme of speaker segments.

**Format and units.** NIST's Rich Transcription Time Marked text: one record a line, 10
fields separated by spaces or tabs,
``SPEAKER <file-id> <channel> <onset> <duration> <NA> <NA> <speaker> <NA> <NA>``, times in
**seconds** (Potato's audio unit: nothing is converted). A turn is ``[onset, onset +
duration]``; a zero duration is an instant.

**Items and who is who.** The item is the ``file-id`` field, whichever RTTM file it is
in. Each SOURCE (an ``.rttm`` file, or a folder of them, not recursive) is one
annotator, named by the ``--annotator`` in the same position, else by the file's stem
or the folder's name; an annotator's files are pooled (one RTTM per recording or one for
all). Items are matched across annotators by ``file-id``.

**Scheme.** One ``audio_annotation`` scheme ``segments`` whose labels are the speaker
names (see :mod:`~app.core.formats.importers.timed_items`).

**Choices where RTTM leaves room:**

- Blank lines and comments (``;;`` or ``#``) are skipped; records of other NIST types
  (``SPKR-INFO``, ``LEXEME``, ``NOSCORE``...) hold no speaker turn and are skipped and
  counted in a note. Any other first field, a ``SPEAKER`` line without exactly 10 fields,
  an onset or duration that is not a finite number, a negative onset or a negative
  duration is an error naming the line.
- The channel is not kept (a note says so when a recording has turns on several).
- RTTM has no turn type and no speaker identity beyond the name: the same speaker must
  have the same name in every annotator's file (a note says so).
- RTTM cannot say that a recording was annotated and holds no speech: such a recording
  is simply absent, so it counts as not annotated by that annotator (a note counts them).

**Media.** An audio file named ``<file-id>`` plus an audio extension beside the RTTM
file (``rec1.wav``...) is copied when found.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.timed_items import (
    AUDIO_SUFFIXES,
    Mark,
    TimedCollector,
    read_text,
    source_files,
)

FIELDS = 10
TIER = "speaker"
"""The one tier every turn is on (not written: one tier makes a segments scheme)."""
OTHER_TYPES = frozenset({
    "SEGMENT", "NOSCORE", "NO_RT_METADATA", "LEXEME", "NON-LEX", "NON-SPEECH", "FILLER",
    "EDIT", "IP", "SU", "CB", "A/P", "SPKR-INFO"})
"""NIST RTTM record types other than SPEAKER."""
LAYOUT = "SPEAKER file chan onset dur <NA> <NA> speaker <NA> <NA>"


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    names = annotator_names(sources, annotators)
    study = TimedCollector("rttm", ms_per_unit=1000.0)
    counts: Counter[str] = Counter()
    channels: dict[str, set[str]] = {}
    for source, name in zip(sources, names, strict=True):
        for path in source_files(source, ".rttm", "RTTM"):
            for item, channel, mark in _turns(path, counts):
                if item not in study.marks.get(name, {}):
                    audio = study.audio_beside(path, [item + s for s in AUDIO_SUFFIXES])
                    study.add_item(item, path, audio)
                answer = study.answer(name, item, path, merge=True)
                answer.setdefault(TIER, []).append(mark)
                channels.setdefault(item, set()).add(channel)
    study.notes.append("RTTM has no turn type: every turn is a SPEAKER turn labelled with its "
                       "speaker name, and speaker names are compared as labels, so the same "
                       "speaker must have the same name in every annotator's file")
    several = sum(len(c) > 1 for c in channels.values())
    if several:
        study.notes.append(f"{several} recordings have turns on several channels; channels "
                           "are not kept")
    if counts["other"]:
        study.notes.append(f"{counts['other']} records of other RTTM types than SPEAKER hold "
                           "no speaker turn and were skipped")
    absent = sum(any(item not in per_item for per_item in study.marks.values())
                 for item in study.items)
    if absent:
        study.notes.append(f"{absent} recordings have no turn in some annotator's RTTM; RTTM "
                           "cannot tell 'no speech' from 'not annotated', so they count as "
                           "not annotated by that annotator")
    return study.build()


def _turns(path: Path, counts: Counter[str]) -> list[tuple[str, str, Mark]]:
    """(file-id, channel, turn) for every SPEAKER line of ``path``."""
    out = []
    for number, raw in enumerate(read_text(path).splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith((";;", "#")):
            continue
        fields = line.split()
        kind = fields[0]
        if kind != "SPEAKER":
            if kind.upper() in OTHER_TYPES:
                counts["other"] += 1
                continue
            raise InputError(f"starts with '{kind}'; expected an RTTM record ({LAYOUT})",
                             file=path, line=number)
        if len(fields) != FIELDS:
            raise InputError(f"has {len(fields)} fields; expected {FIELDS} space-separated "
                             f"fields ({LAYOUT})", file=path, line=number)
        onset = _seconds(fields[3], "onset", path, number)
        duration = _seconds(fields[4], "duration", path, number)
        if onset < 0:
            raise InputError(f"the onset is negative ({fields[3]}); expected seconds >= 0",
                             file=path, line=number)
        if duration < 0:
            raise InputError(f"the duration is negative ({fields[4]}); expected seconds >= 0",
                             file=path, line=number)
        out.append((fields[1], fields[2], Mark(onset, onset + duration, fields[7])))
    return out


def _seconds(text: str, what: str, path: Path, line: int) -> float:
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise InputError(f"the {what} '{text}' is not a number; expected seconds",
                         file=path, line=line)
    return value
