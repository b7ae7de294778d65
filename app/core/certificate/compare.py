"""What ``accord verify`` checks: a certificate's integrity and its match with a project.

:func:`integrity_problems` reads a certificate as found in a PDF: it must be an Accord
certificate (``format``) whose ``content_hash`` is the SHA-256 of the rest. An edited
embedded JSON fails here.

:func:`differences` compares a stored certificate with one recomputed from the project,
field by field, and lists every difference as a sentence naming whose field it is
("contract accuracy: state met in the PDF, insufficient now"; the words are
:mod:`app.core.certificate.wording`'s). Inputs are compared by path first, so a changed
file is named as such ("input labeling/requests.jsonl changed") rather than as a hash
deep in a list. Many small differences inside one curve, Potato's raw metrics or the
pair figures of a scheme read as one sentence with their count.

Choices where the spec is silent:

- ``generated_at`` and ``content_hash`` are not compared (the first is the stated time,
  the second follows from it).
- Numbers compare equal within a relative 1e-9 (and absolute 1e-12): the certificate
  is recomputed with the same code, but a different CPU or BLAS may move the last bit of
  a bootstrap mean; anything a reader could see in the PDF still differs.
- At most :data:`MAX_LISTED` sentences are listed, then a count of the rest. The
  dev curves come last, one sentence per tier: their coverage is a share of the whole
  population, so one added item moves every point, and those would otherwise crowd out
  the item count and the states a reader looks for first.
- The counts add up (issue 35): a difference is one field (or one input file), whether
  it has a sentence of its own or is counted inside a grouped sentence ("differs at 60
  points" is 60). :class:`Differences` keeps the three parts, listed one by one, inside
  grouped sentences, and in sentences left off the list, so ``verify`` can print a total
  a reader can check by adding the numbers on the lines below it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from app.core.certificate.build import FORMAT, VOLATILE_KEYS, content_hash
from app.core.certificate.wording import Path, field_words, subject, value_words

MAX_LISTED = 60
REL_TOL = 1e-9
ABS_TOL = 1e-12


def integrity_problems(certificate: Any) -> list[str]:
    """Empty when ``certificate`` is an Accord certificate whose hash matches its data."""
    if not isinstance(certificate, dict):
        return ["the embedded certificate is not a JSON object"]
    if certificate.get("format") != FORMAT:
        return [
            f"the embedded data is not an Accord certificate (format "
            f"{certificate.get('format')!r}, expected {FORMAT!r})"
        ]
    stored = certificate.get("content_hash")
    actual = content_hash(certificate)
    if stored != actual:
        return [
            f"content hash: the certificate states {stored}, its data hash to {actual}: "
            "the embedded data was edited after it was written"
        ]
    return []


@dataclass(frozen=True, slots=True)
class Change:
    """One difference at ``path``: ``old`` is in the PDF, ``new`` in the project now
    (:data:`ABSENT` where one side has no such field); ``length`` for lists whose
    number of entries differs."""

    path: Path
    old: Any
    new: Any
    length: bool = False


ABSENT: Any = object()


def _numbers_equal(a: Any, b: Any) -> bool:
    return math.isclose(float(a), float(b), rel_tol=REL_TOL, abs_tol=ABS_TOL)


def _diff(a: Any, b: Any, path: Path, out: list[Change]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(set(a) | set(b), key=str):
            where = (*path, key)
            if key not in b:
                out.append(Change(where, a[key], ABSENT))
            elif key not in a:
                out.append(Change(where, ABSENT, b[key]))
            else:
                _diff(a[key], b[key], where, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(Change(path, a, b, length=True))
        for i, (x, y) in enumerate(zip(a, b, strict=False)):
            _diff(x, y, (*path, i), out)
        return
    numeric = (int, float)
    if (
        isinstance(a, numeric)
        and isinstance(b, numeric)
        and not isinstance(a, bool)
        and not isinstance(b, bool)
    ):
        if not _numbers_equal(a, b):
            out.append(Change(path, a, b))
        return
    if a != b or type(a) is not type(b):
        out.append(Change(path, a, b))


def _entries(n: int) -> str:
    return f"{n} {'entry' if n == 1 else 'entries'}"


def sentence(change: Change) -> str:
    """One difference in words: "contract accuracy: state met in the PDF, insufficient now"."""
    whose, rest = subject(change.path)
    name = field_words(rest)
    lead = f"{whose}: {name}" if name else whose
    if change.length:
        return f"{lead}: {_entries(len(change.old))} in the PDF, {len(change.new)} now"
    if change.new is ABSENT:
        return f"{lead} ({value_words(change.old)}) is in the PDF, not in the project now"
    if change.old is ABSENT:
        return f"{lead} ({value_words(change.new)}) is in the project now, not in the PDF"
    return f"{lead} {value_words(change.old)} in the PDF, {value_words(change.new)} now"


def _input_differences(stored: list[Any], fresh: list[Any]) -> list[str]:
    out: list[str] = []
    old = {str(f.get("path")): f for f in stored if isinstance(f, dict)}
    new = {str(f.get("path")): f for f in fresh if isinstance(f, dict)}
    for path in sorted(set(old) | set(new)):
        if path not in new:
            out.append(f"input {path}: in the PDF, missing from the project now")
        elif path not in old:
            out.append(f"input {path}: in the project now, not in the PDF")
        elif old[path].get("sha256") != new[path].get("sha256"):
            out.append(
                f"input {path} changed: SHA-256 "
                f"{value_words(old[path].get('sha256'))} in the PDF, "
                f"{value_words(new[path].get('sha256'))} now"
            )
        elif old[path] != new[path]:
            changes: list[Change] = []
            _diff(old[path], new[path], (), changes)
            out += [f"input {path}: " + sentence(c).split(": ", 1)[-1] for c in changes]
    return out


HEADLINE = ("state", "looks", "level_spent", "rule", "ok", "head", "problem")
"""The last parts of a path a reader wants first: verdicts, looks and the ledger."""
GROUPED = {
    "dev_curve": "the dev error–coverage curve of tier {0} differs at {n}",
    "potato_metrics": "Potato's own figures differ in {n}",
    "tests": "the tests at the latest look differ in {n}",
    "estimates": "the estimates differ in {n}",
    "groups": "the figures per group differ in {n}",
    "per_annotator": "the figures per person differ in {n}",
    "pairs": "the figures per annotator pair differ in {n}",
}
"""Fields whose many small differences read as one sentence per group."""


def _group(change: Change) -> tuple[Path, str] | None:
    """The (path to the group, its sentence template), for a change inside one."""
    for i, key in enumerate(change.path):
        if isinstance(key, str) and key in GROUPED:
            extra = change.path[i + 1 : i + 2] if key == "dev_curve" else ()
            # a contract's result repeats some fields (tests): one group for both copies
            head = tuple(k for k in change.path[:i] if k != "result")
            return (*head, key, *extra), GROUPED[key]
    return None


def _rank(change: Change) -> int:
    """Where a difference is listed: verdicts and the ledger first, the numbers behind them
    next, grouped figures (curves, Potato's raw metrics, pairs) last (stable within each)."""
    last = change.path[-1] if change.path else ""
    if last in HEADLINE or change.path[:1] == ("ledger",):
        return 0
    return 2 if _group(change) else 1


def _without_copies(changes: list[Change]) -> list[Change]:
    """The changes less a contract's ``result`` copy of a field whose own change is listed
    (``rule``, ``projection``, ``accepted_by_tier`` stand beside the contract and in its
    result): one field, one sentence, counted once."""
    paths = {c.path for c in changes}
    return [
        c for c in changes
        if "result" not in c.path or tuple(k for k in c.path if k != "result") not in paths
    ]


def _count(n: int, key: str) -> str:
    """"60 points", "1 place": the unit of a grouped sentence's count."""
    unit = "point" if key == "dev_curve" else "place"
    return f"{n} {unit}{'' if n == 1 else 's'}"


def _sentences(changes: list[Change]) -> list[tuple[str, int | None]]:
    """The sentences, each with how many differences it counts (``None``: one, listed on
    its own; a number: a grouped sentence)."""
    out: list[tuple[str, int | None]] = []
    groups: dict[Path, tuple[str, int]] = {}
    for change in sorted(changes, key=_rank):
        grouped = _group(change)
        if grouped is None:
            out.append((sentence(change), None))
            continue
        path, template = grouped
        groups[path] = (template, groups.get(path, (template, 0))[1] + 1)
    for path, (template, n) in groups.items():
        whose, _ = subject(path)
        key = "dev_curve" if path[-2:-1] == ("dev_curve",) else str(path[-1])
        tier = path[-1] if key == "dev_curve" else ""
        out.append((f"{whose}: " + template.format(tier, n=_count(n, key)), n))
    return out


@dataclass(frozen=True, slots=True)
class Differences:
    """What :func:`compare` found: the sentences to print and the counts behind them.

    ``total == single + grouped + hidden``: each difference is one field or input file,
    listed in a sentence of its own (``single``), counted inside one of ``grouped_lines``
    sentences (``grouped``), or in the sentences left off the end of the list (``hidden``,
    ``hidden_lines`` of them)."""

    lines: list[str] = field(default_factory=list)
    total: int = 0
    single: int = 0
    grouped: int = 0
    grouped_lines: int = 0
    hidden: int = 0
    hidden_lines: int = 0

    def heading(self) -> str:
        """The count in words a reader can check against the lines below it."""
        if self.total == 1:
            return "1 difference"
        parts = [f"{self.single} listed one by one"] if self.single else []
        if self.grouped:
            parts.append(
                f"{self.grouped} counted in {self.grouped_lines} "
                f"grouped line{'s' if self.grouped_lines != 1 else ''}"
            )
        if self.hidden:
            parts.append(f"{self.hidden} left off the list")
        if len(parts) == 1 and not self.grouped and not self.hidden:
            return f"{self.total} differences"
        return f"{self.total} differences ({', '.join(parts)})"


def compare(stored: dict[str, Any], fresh: dict[str, Any]) -> Differences:
    """Every difference between a stored certificate and a fresh one, as sentences, with
    the counts that add up to their total (:class:`Differences`)."""
    found: list[tuple[str, int | None]] = [
        (line, None)
        for line in _input_differences(
            list(stored.get("inputs") or []), list(fresh.get("inputs") or [])
        )
    ]
    rest_a = {k: v for k, v in stored.items() if k not in (*VOLATILE_KEYS, "inputs")}
    rest_b = {k: v for k, v in fresh.items() if k not in (*VOLATILE_KEYS, "inputs")}
    changes: list[Change] = []
    _diff(rest_a, rest_b, (), changes)
    found += _sentences(_without_copies(changes))
    shown, left = found[:MAX_LISTED], found[MAX_LISTED:]
    hidden = sum(n or 1 for _, n in left)
    lines = [line for line, _ in shown]
    if left:
        noun = "difference" if hidden == 1 else "differences"
        more = "line" if len(left) == 1 else "lines"
        lines.append(f"... and {hidden} more {noun} in {len(left)} {more} not listed")
    return Differences(
        lines=lines,
        total=sum(n or 1 for _, n in found),
        single=sum(1 for _, n in shown if n is None),
        grouped=sum(n for _, n in shown if n is not None),
        grouped_lines=sum(1 for _, n in shown if n is not None),
        hidden=hidden,
        hidden_lines=len(left),
    )


def differences(stored: dict[str, Any], fresh: dict[str, Any]) -> list[str]:
    """Every difference between a stored certificate and a fresh one, as sentences."""
    return compare(stored, fresh).lines
