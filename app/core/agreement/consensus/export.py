"""The consensus of a whole study: every scheme's rows, as one generator job.

A job (:mod:`app.core.progress`) yielding progress per scheme and returning a
:class:`Consensus`; the CLI draws it as a bar, the GUI runs it on its worker pool.
Nothing here writes a file (:mod:`.writer` does, atomically, outside the project).

Schemes, in the project's order, each by its kind's ``consensus`` (the kind table,
``app/core/agreement/kinds/``):

- nominal, ordinal, multilabel, trace → :mod:`.categorical` (``method`` applies);
- cuboids, segments, tiers, regions → :mod:`.objects`;
- an ``image_annotation`` scheme holding masks → :mod:`.masks`, as ``NAME#masks`` beside
  its regions (as the agreement report names it), or as ``NAME`` alone when it holds
  masks only;
- a scheme Accord has no kind for (free text, numbers, spans), or whose kind has no
  consensus, has no rows and a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from app.core.agreement.consensus.categorical import METHODS
from app.core.agreement.kinds.registry import spec_of
from app.core.agreement.sets.structured import SetOptions
from app.core.errors import InputError
from app.core.model import Study
from app.core.progress import Job, Progress, scaled


@dataclass(slots=True)
class Consensus:
    """The rows of a consensus export, how many per scheme, and what was left out."""

    method: str
    rows: list[dict[str, Any]] = field(default_factory=list)
    per_scheme: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def n_decided(self) -> int:
        """Rows with a consensus (a label, a set, a list of objects or masks)."""
        return sum(1 for row in self.rows if row.get("consensus") is not None)


def check_method(method: str) -> None:
    if method not in METHODS:
        raise InputError(
            f"expected one of {', '.join(METHODS)}, found '{method}'", key="--consensus-method"
        )


def consensus_job(
    study: Study,
    *,
    method: str = "majority",
    scheme: str | None = None,
    options: SetOptions | None = None,
) -> Job[Consensus]:
    """Every scheme's consensus rows (or only ``scheme``'s)."""
    check_method(method)
    options = options or SetOptions(thresholds={})
    names = list(study.schemes)
    for name in options.thresholds:
        if name not in study.schemes:
            raise InputError(
                f"no scheme named '{name}'; the project has: {', '.join(names)}", key="--threshold"
            )
    if scheme is not None:
        if scheme not in study.schemes:
            raise InputError(
                f"no scheme named '{scheme}'; the project has: {', '.join(names)}", key="--scheme"
            )
        names = [scheme]
    out = Consensus(method)
    for i, name in enumerate(names):
        yield Progress(i, len(names), f"consensus of {name}")
        job = _scheme_rows(study, name, method, options, out.notes)
        rows = yield from scaled(job, i, i + 1, len(names))
        for row in rows:
            out.per_scheme[row["scheme"]] = out.per_scheme.get(row["scheme"], 0) + 1
        out.rows.extend(rows)
    yield Progress(len(names), len(names), "done")
    return out


def _scheme_rows(
    study: Study, name: str, method: str, options: SetOptions, notes: list[str]
) -> Job[list[dict[str, Any]]]:
    scheme = study.schemes[name]
    answers = study.answers_for(name)
    if scheme.kind is None:
        notes.append(
            f"{name}: no consensus for '{scheme.annotation_type}' answers "
            "(Accord has no agreement kind for them)"
        )
        return []
    if not answers:
        notes.append(f"{name}: nobody answered this scheme")
        return []
    consensus = spec_of(scheme.kind).consensus
    if consensus is None:
        notes.append(f"{name}: no consensus for {scheme.kind.value} answers yet")
        return []
    return (yield from consensus(study, scheme, method, options, notes))
