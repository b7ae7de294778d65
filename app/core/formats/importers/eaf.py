"""ELAN ``.eaf`` files (read with pympi-ling) → a Potato project of tiers or segments.

**Format and units.** EAF XML: ``TIME_ORDER`` holds time slots in **milliseconds**;
tiers hold alignable annotations (two time slots each) or reference annotations
(pointing at an annotation of the parent tier). Milliseconds are Potato's tiered unit, so
a tiered answer keeps them as they are; a single-tier study is written as audio segments
in seconds, the one conversion (:func:`~app.core.formats.importers.timed_items.in_seconds`).

**Items.** One ``.eaf`` per item; the item id is the file stem. A SOURCE is a file or a
folder of ``.eaf`` files (not recursive). The same stem in several sources is the same
item: each file adds its annotators' tiers to it.

**Who is who.** ELAN records it, per tier: the tier's ``ANNOTATOR`` attribute, else its
``PARTICIPANT`` (``ANNOTATOR`` wins when both are set: it says who annotated, the
participant may be the speaker); a dependent tier without either belongs to its parent
tier's annotator. A file where no tier names anyone has **one tier per coder**: each
independent tier is an annotator named by the tier, with its dependent tiers. In a file
that names annotators, a tier that neither names one nor descends from one that does is
skipped (counted in a note). With ``--annotator NAME`` (one per SOURCE) each source is
instead one coder's copy of the files: every tier in it is that annotator's.

**Tiers across annotators.** ELAN tier names are unique within a file, so coders' tiers
carry their name (``words_alice``, ``alice-words``, ``words (alice)``): the tier as
compared is the tier name with the annotator's name removed from its start or end, or,
when the tier is named just by the annotator, its linguistic type. Whether the scheme is
tiered or plain segments, and how tiers nest, follows
:mod:`~app.core.formats.importers.timed_items`; the constraint of a dependent tier is its
linguistic type's (``Time_Subdivision`` → ``time_subdivision``...). A dependent tier whose
parent belongs to another annotator is written as independent.

**Times** (choices where ELAN leaves room):

- An alignable annotation's time slots must be defined in ``TIME_ORDER``. A slot without
  ``TIME_VALUE`` is allowed only on a dependent tier (ELAN's unaligned slots of a time
  subdivision): it is placed evenly between the aligned slots before and after it in its
  chain of adjacent annotations; on an independent tier, or with no aligned slot on one
  side, it is an error. An annotation that ends before it starts is an error.
- A reference annotation on a ``Symbolic_Subdivision`` tier takes an equal share of its
  parent's span, in ``PREVIOUS_ANNOTATION`` order; any other reference annotation
  (``Symbolic_Association``) takes its parent's whole span. A reference to an annotation
  that does not exist is an error. ``parent_id`` is the referenced annotation; for an
  alignable annotation on a dependent tier, the parent-tier annotation it overlaps most.
- Annotation values are labels, compared exactly after trimming surrounding spaces; an
  annotation with an empty value is still an annotation (ELAN draws it).

**Media.** The first ``MEDIA_DESCRIPTOR`` that is audio (by MIME type or extension),
looked for at its ``RELATIVE_MEDIA_URL`` and then by its file name beside the ``.eaf``
(an absolute ``MEDIA_URL`` from another machine is not followed); copied when found.
"""

from __future__ import annotations

import warnings
from collections import Counter
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import unquote, urlparse
from xml.etree.ElementTree import ParseError

from pympi import Elan

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedStudy
from app.core.formats.importers.registry import annotator_names
from app.core.formats.importers.timed_items import (
    AUDIO_SUFFIXES,
    Mark,
    TierShape,
    TimedCollector,
    check_annotator_name,
    source_files,
)
from app.core.formats.reading.boundary import ANYWHERE, checked_file

SEPARATORS = " _-.:@()[]|/"
Span = tuple[float, float]


def read(sources: list[Path], annotators: list[str]) -> ImportedStudy:
    given = annotator_names(sources, annotators) if annotators else [None] * len(sources)
    study = TimedCollector("eaf", ms_per_unit=1.0)
    counts: Counter[str] = Counter()
    for source, name in zip(sources, given, strict=True):
        for path in source_files(source, ".eaf", "ELAN .eaf"):
            _read_file(path, name, study, counts)
    if counts["skipped"]:
        study.notes.append(f"{counts['skipped']} tiers name no annotator (no ANNOTATOR or "
                           "PARTICIPANT, in files whose other tiers name one) and were skipped")
    if counts["no_tiers"]:
        study.notes.append(f"{counts['no_tiers']} .eaf files hold no tier; their items have "
                           "no answers")
    if counts["subdivided"]:
        study.notes.append(f"{counts['subdivided']} symbolic-subdivision annotations have no "
                           "times in ELAN; each takes an equal share of its parent's span")
    if counts["unaligned"]:
        study.notes.append(f"{counts['unaligned']} unaligned time slots were placed evenly "
                           "between their aligned neighbours, as ELAN draws them")
    return study.build()


def _parse(path: Path) -> Any:
    checked_file(path, root=ANYWHERE)  # pympi opens it: never a FIFO or a device
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return Elan.Eaf(str(path), suppress_version_warning=True)
    except KeyError as exc:
        if "noNamespaceSchemaLocation" in str(exc):
            raise InputError("has no ELAN ANNOTATION_DOCUMENT root (with its "
                             "xsi:noNamespaceSchemaLocation); expected an ELAN .eaf file",
                             file=path) from None
        raise InputError(f"an element lacks the attribute {exc}; expected ELAN's EAF XML",
                         file=path) from None
    except Exception as exc:  # pympi raises bare Exception, ValueError, IndexError
        cause = exc.__context__
        if isinstance(cause, ParseError):
            line = cause.position[0]
            raise InputError("is not well-formed XML (truncated or damaged?); expected an "
                             "ELAN .eaf file", file=path, line=line) from None
        raise InputError(f"could not be read as EAF ({exc}); expected an ELAN .eaf file",
                         file=path) from None


def _read_file(path: Path, given: str | None, study: TimedCollector,
               counts: Counter[str]) -> None:
    eaf = _parse(path)
    tiers: dict[str, Any] = eaf.tiers
    item = path.stem
    study.add_item(item, path, _audio(eaf, path, study))
    if not tiers:
        counts["no_tiers"] += 1
        return
    spans = _Spans(eaf, path, counts)
    coders = _coders(tiers, given, path)
    keys: dict[str, str] = {}
    mine: dict[str, dict[str, str]] = {}
    for tier_id, coder in coders.items():
        if coder is None:
            counts["skipped"] += 1
            continue
        key = _tier_key(tier_id, coder, tiers[tier_id][2].get("LINGUISTIC_TYPE_REF"))
        held = mine.setdefault(coder, {})
        if key in held:
            raise InputError(f"tiers '{held[key]}' and '{tier_id}' are both annotator "
                             f"'{coder}''s tier '{key}'; expected one tier of each kind per "
                             "annotator", file=path)
        held[key] = tier_id
        keys[tier_id] = key
    for coder, held in mine.items():
        answer = study.answer(coder, item, path)
        for key, tier_id in held.items():
            attrib = tiers[tier_id][2]
            parent = attrib.get("PARENT_REF")
            same = parent is not None and coders.get(parent) == coder and parent in keys
            lt_id = attrib.get("LINGUISTIC_TYPE_REF")
            study.tier(key, TierShape(keys[parent] if same else None,
                                      _constraint(eaf, lt_id) if same else None, lt_id))
            answer[key] = spans.marks(tier_id, parent if same else None)


def _coders(tiers: dict[str, Any], given: str | None, path: Path) -> dict[str, str | None]:
    """Each tier's annotator (see the module), ``None`` for a tier to skip."""
    if given is not None:
        return dict.fromkeys(tiers, given)
    own: dict[str, str | None] = {}
    for tier_id, (_, _, attrib, _) in tiers.items():
        name = (attrib.get("ANNOTATOR") or "").strip() or (attrib.get("PARTICIPANT") or
                                                            "").strip()
        own[tier_id] = check_annotator_name(name, path, f"tier '{tier_id}'") if name else None
    named = any(own.values())
    out: dict[str, str | None] = {}
    for tier_id in tiers:
        current, seen = tier_id, {tier_id}
        coder = own[current]
        while coder is None:
            parent = tiers[current][2].get("PARENT_REF")
            if parent not in tiers or parent in seen:
                break
            seen.add(parent)
            current = parent
            coder = own[current]
        if coder is None and not named:
            coder = check_annotator_name(current, path, f"tier '{current}'")
        out[tier_id] = coder
    return out


def _tier_key(tier_id: str, coder: str, linguistic_type: str | None) -> str:
    """The tier's name with the annotator's name taken off its start or end."""
    low, name = tier_id.lower(), coder.lower()
    rest = tier_id
    if low == name:
        rest = ""
    elif low.startswith(name) and tier_id[len(name)] in SEPARATORS:
        rest = tier_id[len(name):]
    else:
        trimmed = tier_id.rstrip(" )]")
        if trimmed.lower().endswith(name) and len(trimmed) > len(name) and \
                trimmed[-len(name) - 1] in SEPARATORS:
            rest = trimmed[:-len(name)]
    rest = rest.strip(SEPARATORS)
    return rest or linguistic_type or "tier"


def _constraint(eaf: Any, lt_id: str | None) -> str | None:
    lt = eaf.linguistic_types.get(lt_id) if lt_id else None
    value = lt.get("CONSTRAINTS") if isinstance(lt, dict) else None
    return str(value).lower() if value else None


class _Spans:
    """Every annotation's span in milliseconds, resolved once per file."""

    def __init__(self, eaf: Any, path: Path, counts: Counter[str]) -> None:
        self.eaf, self.path, self.counts = eaf, path, counts
        self.spans: dict[str, Span] = {}
        self._resolving: set[str] = set()
        for tier_id, (align, _, attrib, _) in eaf.tiers.items():
            if align:
                self._align(tier_id, align, attrib.get("PARENT_REF") in eaf.tiers)

    def _error(self, problem: str) -> InputError:
        return InputError(problem, file=self.path)

    def _slot(self, slot: str, aid: str, tier_id: str) -> int | None:
        if slot not in self.eaf.timeslots:
            raise self._error(f"annotation {aid} on tier '{tier_id}' refers to time slot "
                              f"'{slot}', which TIME_ORDER does not define; expected a "
                              "defined time slot")
        value: int | None = self.eaf.timeslots[slot]
        return value

    def _align(self, tier_id: str, align: dict[str, Any], dependent: bool) -> None:
        times: dict[str, float] = {}
        following: dict[str, str] = {}
        for aid, (first, last, _, _) in align.items():
            for slot in (first, last):
                value = self._slot(slot, aid, tier_id)
                if value is not None:
                    times[slot] = float(value)
                elif not dependent:
                    raise self._error(f"time slot '{slot}' of annotation {aid} on the "
                                      f"independent tier '{tier_id}' has no TIME_VALUE; "
                                      "expected a time in milliseconds")
            following[first] = last
        if dependent:
            self._place_unaligned(tier_id, align, times, following)
        for aid, (first, last, _, _) in align.items():
            start, end = times[first], times[last]
            if end < start:
                raise self._error(f"annotation {aid} on tier '{tier_id}' ends before it "
                                  f"starts ({start:g} ms > {end:g} ms); expected start <= end")
            self.spans[aid] = (start, end)

    def _place_unaligned(self, tier_id: str, align: dict[str, Any], times: dict[str, float],
                         following: dict[str, str]) -> None:
        ends = set(following.values())
        for head in [s for s in following if s not in ends] or list(following)[:1]:
            chain, seen = [head], {head}
            while chain[-1] in following and following[chain[-1]] not in seen:
                seen.add(following[chain[-1]])
                chain.append(following[chain[-1]])
            known = [i for i, slot in enumerate(chain) if slot in times]
            for i, slot in enumerate(chain):
                if slot in times:
                    continue
                before = [k for k in known if k < i]
                after = [k for k in known if k > i]
                if not before or not after:
                    raise self._error(f"time slot '{slot}' on tier '{tier_id}' has no "
                                      "TIME_VALUE and no aligned slot on one side to place it "
                                      "by; expected a time in milliseconds")
                a, b = before[-1], after[0]
                ta, tb = times[chain[a]], times[chain[b]]
                times[slot] = ta + (tb - ta) * (i - a) / (b - a)
                self.counts["unaligned"] += 1
        missing = [s for first, last, _, _ in align.values() for s in (first, last)
                   if s not in times]
        if missing:
            raise self._error(f"time slot '{missing[0]}' on tier '{tier_id}' has no "
                              "TIME_VALUE and cannot be placed; expected a time in "
                              "milliseconds")

    def span(self, aid: str) -> Span:
        if aid in self.spans:
            return self.spans[aid]
        tier_id = self.eaf.annotations[aid]
        if aid in self._resolving:
            raise self._error(f"reference annotation {aid} refers back to itself; expected "
                              "references that end at a time-aligned annotation")
        self._resolving.add(aid)
        _, refs, attrib, _ = self.eaf.tiers[tier_id]
        parent_aid = refs[aid][0]
        if parent_aid not in self.eaf.annotations:
            raise self._error(f"reference annotation {aid} on tier '{tier_id}' points at "
                              f"annotation '{parent_aid}', which does not exist; expected an "
                              "ANNOTATION_REF to an annotation of the parent tier")
        start, end = self.span(parent_aid)
        if _constraint(self.eaf, attrib.get("LINGUISTIC_TYPE_REF")) == "symbolic_subdivision":
            siblings = _in_order({a: r for a, r in refs.items() if r[0] == parent_aid})
            i, n = siblings.index(aid), len(siblings)
            start, end = start + (end - start) * i / n, start + (end - start) * (i + 1) / n
            self.counts["subdivided"] += 1
        self.spans[aid] = (start, end)
        self._resolving.discard(aid)
        return start, end

    def marks(self, tier_id: str, parent_tier: str | None) -> list[Mark]:
        align, refs, _, _ = self.eaf.tiers[tier_id]
        out = []
        parents = [(a, self.span(a)) for a in self._annotations(parent_tier)] \
            if parent_tier is not None else []
        for aid, (_, _, value, _) in align.items():
            start, end = self.spans[aid]
            out.append(Mark(start, end, value.strip(), aid, _overlapping(start, end, parents)))
        for aid, (parent_aid, value, _, _) in refs.items():
            start, end = self.span(aid)
            out.append(Mark(start, end, value.strip(), aid,
                            parent_aid if parent_tier is not None else None))
        return out

    def _annotations(self, tier_id: str) -> list[str]:
        align, refs, _, _ = self.eaf.tiers[tier_id]
        return [*align, *refs]


def _in_order(refs: dict[str, Any]) -> list[str]:
    """Sibling reference annotations in ``PREVIOUS_ANNOTATION`` order (file order for
    those the chain does not reach)."""
    after = {r[2]: a for a, r in refs.items() if r[2]}
    firsts = [a for a, r in refs.items() if not r[2] or r[2] not in refs]
    order: list[str] = []
    for first in firsts:
        current: str | None = first
        while current is not None and current not in order:
            order.append(current)
            current = after.get(current)
    order += [a for a in refs if a not in order]
    return order


def _overlapping(start: float, end: float, parents: list[tuple[str, Span]]) -> str | None:
    """The parent annotation that holds ``[start, end]`` most (an instant: that holds it)."""
    best, best_overlap = None, -1.0
    for aid, (a, b) in parents:
        overlap = min(b, end) - max(a, start)
        if overlap < 0 or (overlap == 0 and not a <= start <= b):
            continue
        if overlap > best_overlap:
            best, best_overlap = aid, overlap
    return best


def _audio(eaf: Any, path: Path, study: TimedCollector) -> Path | None:
    for descriptor in eaf.media_descriptors:
        urls = [descriptor.get("RELATIVE_MEDIA_URL"), descriptor.get("MEDIA_URL")]
        names = [_file_name(u) for u in urls if u]
        mime = str(descriptor.get("MIME_TYPE") or "")
        if not mime.startswith("audio") and not any(
                n.lower().endswith(AUDIO_SUFFIXES) for n in names):
            continue
        relative = descriptor.get("RELATIVE_MEDIA_URL")
        if relative:
            target = (path.parent / _url_path(relative)).resolve()
            if target.is_file():
                return target
        found = study.audio_beside(path, [n for n in names if n])
        if found is not None:
            return found
    return None


def _url_path(url: str) -> str:
    parsed = urlparse(url)
    return unquote(parsed.path if parsed.scheme in ("file", "") else url).replace("\\", "/")


def _file_name(url: str) -> str:
    return PurePosixPath(_url_path(url)).name
