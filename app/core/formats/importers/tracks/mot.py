"""MOT Challenge ground truth (``accord import mot``): ``gt/gt.txt`` with the sequence's
``seqinfo.ini``.

**Format** (MOT16/17/20): one box a line, comma-separated, ``frame, id, bb_left, bb_top,
bb_width, bb_height, conf, class, visibility``; frames 1-based, boxes in pixels (top-left
corner and size). MOT15's ten columns (``conf, x, y, z`` after the box) and bare
six-column files are read too. ``seqinfo.ini`` (``[Sequence]`` with ``name``,
``frameRate``, ``imWidth``, ``imHeight``...) sits in the sequence folder, the parent of
``gt/``; it is looked for beside ``gt.txt`` and one folder up. Without ``imWidth`` and
``imHeight`` the import is refused: nothing else gives the frame size.

**Sources.** Per annotator: a ``gt.txt``, a sequence folder (holding ``gt/gt.txt``), or a
folder of sequence folders (a split such as ``train/``), named by ``--annotator`` or the
source's name (a bare ``gt.txt`` is called ``gt``: give ``--annotator`` for two).

**Items.** One per sequence, its id the ``seqinfo.ini`` ``name`` (else the sequence
folder's name); a video named ``<name>.mp4`` (or ``.avi``, ``.mov``, ``.webm``) beside
``seqinfo.ini`` is its media.

Choices where the format is silent:

- **Frames and pixels.** MOT frame *n* is Potato frame *n* − 1 (Potato counts from 0);
  MOT's pixels count from 1 (MATLAB's convention), so ``bb_left`` and ``bb_top`` lose 1
  before they are divided by the frame size, as py-motmetrics' reader does.
- **conf 0.** In MOT ground truth ``conf`` is a flag: 0 marks a box the evaluation
  ignores (distractors, static people, reflections, occluders). Those rows are left out
  (counted in a note): imported, they would count as misses. Any other ``conf`` is kept.
- **Labels.** The ``class`` column is named by the line *n* of a ``labels.txt`` beside
  ``gt.txt`` (as Datumaro writes it), else as the MOT16 paper names it (1 pedestrian,
  2 person on vehicle, 3 car...); an unknown class is ``class <n>``; without the column
  every box is ``object``. ``visibility`` is not carried by Potato tracks.
- **Gaps.** A track's frames not listed are frames the object is not annotated: a gap
  splits it (:mod:`.study`), since Potato would interpolate across it.
"""

from __future__ import annotations

import configparser
import math
from collections import Counter
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.tracks.study import Box, Piece, TrackStudy, check_box
from app.core.formats.reading.boundary import ANYWHERE, open_checked

GT = ("gt", "gt.txt")
SEQINFO = "seqinfo.ini"
LABELS = "labels.txt"
VIDEO_SUFFIXES = (".mp4", ".avi", ".mov", ".webm", ".mkv")
CLASSES = {1: "pedestrian", 2: "person on vehicle", 3: "car", 4: "bicycle", 5: "motorbike",
           6: "non motorized vehicle", 7: "static person", 8: "distractor", 9: "occluder",
           10: "occluder on the ground", 11: "occluder full", 12: "reflection",
           13: "crowd"}
"""MOT16's classes (Milan et al. 2016, table 2; 13 is MOT20's crowd)."""


def _gt_files(source: Path) -> list[Path]:
    """The ``gt.txt`` files of a source (see the module), in name order."""
    if source.is_file():
        return [source]
    own = source.joinpath(*GT)
    if own.is_file():
        return [own]
    if (source / GT[1]).is_file():
        return [source / GT[1]]
    found = sorted(p.joinpath(*GT) for p in source.iterdir()
                   if p.is_dir() and p.joinpath(*GT).is_file())
    if not found:
        raise InputError("no gt/gt.txt here; expected a MOT Challenge gt.txt, a sequence "
                         "folder holding gt/gt.txt, or a folder of such sequences",
                         file=source)
    return found


def _seqinfo(gt: Path) -> tuple[Path, configparser.SectionProxy]:
    for folder in (gt.parent, gt.parent.parent):
        path = folder / SEQINFO
        if path.is_file():
            parser = configparser.ConfigParser(interpolation=None)
            try:
                with open_checked(path, root=ANYWHERE, text=True) as handle:
                    parser.read_file(handle)
            except (configparser.Error, UnicodeDecodeError) as exc:
                raise InputError(f"cannot read it as an INI file ({exc}); expected MOT's "
                                 "[Sequence] section", file=path) from None
            if not parser.has_section("Sequence"):
                raise InputError("no [Sequence] section; expected MOT's seqinfo.ini",
                                 file=path)
            return path, parser["Sequence"]
    raise InputError("the video's width and height are needed to normalize the boxes and "
                     f"no {SEQINFO} was found beside this gt.txt or one folder up; expected "
                     "the sequence's seqinfo.ini with imWidth and imHeight", file=gt)


def _size(path: Path, info: configparser.SectionProxy) -> tuple[int, int]:
    out = []
    for key in ("imWidth", "imHeight"):
        text = info.get(key)
        if text is None or not text.strip().isdigit() or int(text) <= 0:
            raise InputError(f"{key} = {text!r}; the video's width and height are needed to "
                             "normalize the boxes: expected imWidth and imHeight in whole "
                             "pixels", file=path, key=key)
        out.append(int(text))
    return out[0], out[1]


def _fps(path: Path, info: configparser.SectionProxy) -> float | None:
    text = info.get("frameRate")
    if text is None:
        return None
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not (math.isfinite(value) and value > 0):
        raise InputError(f"frameRate = {text!r}; expected frames per second", file=path,
                         key="frameRate")
    return int(value) if value.is_integer() else value


def _classes(gt: Path) -> dict[int, str]:
    """Class number → label: ``labels.txt`` beside ``gt.txt`` (one name a line), else
    MOT16's table."""
    path = gt.parent / LABELS
    if not path.is_file():
        return CLASSES
    try:
        with open_checked(path, root=ANYWHERE, text=True) as handle:
            names = [line.strip() for line in handle]
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc})", file=path) from None
    return {n: name for n, name in enumerate(names, start=1) if name}


def _rows(gt: Path, size: tuple[int, int], counts: Counter[str]
          ) -> dict[str, list[tuple[str, Box]]]:
    """Track id → (label, box) in file order, conf-0 rows left out."""
    tracks: dict[str, list[tuple[str, Box]]] = {}
    classes = _classes(gt)
    seen: set[tuple[int, str]] = set()
    try:
        with open_checked(gt, root=ANYWHERE, text=True) as handle:
            lines = list(handle)
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the file ({exc})", file=gt) from None
    for n, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        fields = [f.strip() for f in line.split(",")]
        if not 6 <= len(fields) <= 10:
            raise InputError(f"{len(fields)} comma-separated fields; expected frame, id, "
                             "bb_left, bb_top, bb_width, bb_height, conf, class, visibility",
                             file=gt, line=n)
        try:
            values = [float(f) for f in fields]
        except ValueError:
            bad = next(f for f in fields if not _is_number(f))
            raise InputError(f"'{bad[:40]}' is not a number; expected frame, id, bb_left, "
                             "bb_top, bb_width, bb_height, conf, class, visibility",
                             file=gt, line=n) from None
        if not all(math.isfinite(v) for v in values):
            raise InputError("a field is not a finite number", file=gt, line=n)
        frame, ident = values[0], values[1]
        if not frame.is_integer() or frame < 1:
            raise InputError(f"frame {fields[0]}; expected a whole frame number from 1",
                             file=gt, line=n)
        if not ident.is_integer():
            raise InputError(f"id {fields[1]}; expected a whole track id", file=gt, line=n)
        if len(fields) > 6 and values[6] == 0:
            counts["conf 0"] += 1
            continue
        tid = str(int(ident))
        if (int(frame), tid) in seen:
            raise InputError(f"track {tid} has a second box on frame {int(frame)}; expected "
                             "one box per track and frame", file=gt, line=n)
        seen.add((int(frame), tid))
        label = "object"
        if len(fields) in (8, 9):
            cls = int(values[7]) if values[7].is_integer() else None
            label = classes.get(cls, f"class {fields[7]}") if cls is not None \
                else f"class {fields[7]}"
        box = Box(int(frame) - 1, values[2] - 1, values[3] - 1, values[4], values[5])
        check_box(box, size, counts, file=gt, line=n,
                  what=f"track {tid}'s box on frame {int(frame)}")
        tracks.setdefault(tid, []).append((label, box))
    return tracks


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _pieces(tracks: dict[str, list[tuple[str, Box]]], study: TrackStudy) -> list[Piece]:
    """Each track cut at its gaps (and where its class changes), in id order."""
    out: list[Piece] = []
    for tid in sorted(tracks, key=int):
        rows = sorted(tracks[tid], key=lambda r: r[1].frame)
        mine: list[Piece] = []
        for label, box in rows:
            last = mine[-1] if mine else None
            if last is None or last.label != label or box.frame != last.boxes[-1].frame + 1:
                study.color(label)
                last = Piece(tid, label)
                mine.append(last)
            last.boxes.append(box)
        study.counts["split"] += len(mine) > 1
        out.extend(mine)
    return out


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    """The study in MOT Challenge ground-truth sources, one per annotator."""
    names = annotator_names(sources, annotators)
    study = TrackStudy("mot")
    for source, name in zip(sources, names, strict=True):
        for gt in _gt_files(source):
            info_path, info = _seqinfo(gt)
            size, fps = _size(info_path, info), _fps(info_path, info)
            item = (info.get("name") or "").strip() or info_path.parent.name
            study.add_item(item, size, fps, info_path,
                           [item + suffix for suffix in VIDEO_SUFFIXES])
            study.answer(name, item, _pieces(_rows(gt, size, study.counts), study), gt)
    if study.counts["conf 0"]:
        study.notes.append(f"{study.counts['conf 0']} rows with conf 0 (MOT's flag for boxes "
                           "the evaluation ignores: distractors, static people, reflections) "
                           "were left out.")
    study.notes.append("MOT frames count from 1 and Potato's from 0: MOT frame n is frame "
                       "n - 1 here; visibility is not carried by Potato tracks.")
    return study.finish()
