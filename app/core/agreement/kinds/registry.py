"""The kind table: every agreement kind, one row each, read by everyone who asks.

The report asks it how to score a scheme (:func:`spec_of`), the Potato reader which kind
a scheme is (:func:`kind_for`), and the report, the CLI, the window and the certificate
read the kind names from the results it produced. The rows are the modules of this
folder, one per kind; adding a kind is a module and a row here (ARCHITECTURE.md, "Where
a new thing goes"), and touches no other kind.

Order matters only where two kinds read one Potato type: the first row whose type and
predicate both match wins (``multiselect``: nominal when single-choice, else
multilabel). A test checks that no type is claimed twice for one config.

:func:`register` adds a row at run time: for tests (a toy kind) and for a kind that is
being built outside this folder; it refuses a second row for a kind name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.core.agreement.kinds import (
    continuous,
    cuboids,
    masks,
    matrix,
    multilabel,
    nominal,
    ordinal,
    ranking,
    regions,
    segments,
    spans,
    tiers,
    trace,
    vlm,
    volumes,
)
from app.core.agreement.kinds.spec import KindSpec
from app.core.model import Kind

KINDS: list[KindSpec] = [
    nominal.SPEC,
    ordinal.SPEC,
    multilabel.SPEC,
    cuboids.SPEC,
    segments.SPEC,
    tiers.SPEC,
    regions.SPEC,
    masks.SPEC,
    trace.SPEC,
    continuous.SPEC,
    ranking.SPEC,
    matrix.SPEC,
    spans.SPEC,
    vlm.GROUNDING,
    vlm.CAPTIONS,
    vlm.EPISODES,
    vlm.ROLLOUTS,
    volumes.SPEC,
]
"""Every kind Accord scores, in the order their predicates are asked."""


def kind_for(annotation_type: str, config: Mapping[str, Any]) -> Kind | None:
    """The agreement kind of a Potato scheme, or ``None`` when Accord has none for it.

    A ``multiselect`` that allows one choice only (``max_selections: 1`` or
    ``single_select: true``) is nominal. ``image_annotation`` is reported as regions;
    its masks additionally as ``NAME#masks`` (decided where masks are found).
    """
    for spec in KINDS:
        if spec.reads(annotation_type, config):
            return spec.kind
    return None


def spec_of(kind: Kind | str) -> KindSpec:
    """The row of ``kind`` (a :class:`Kind` or its JSON name)."""
    for spec in KINDS:
        if spec.kind == kind:
            return spec
    raise KeyError(f"no agreement kind named '{kind}'")


def potato_types() -> dict[str, list[Kind]]:
    """Every Potato type some kind reads, with the kinds that read it (table order)."""
    out: dict[str, list[Kind]] = {}
    for spec in KINDS:
        for name in sorted(spec.potato_types):
            out.setdefault(name, []).append(spec.kind)
    return out


def register(spec: KindSpec) -> None:
    """Add a row (a kind built elsewhere, or a test's toy kind); its types are asked
    after every existing row's."""
    if any(s.kind == spec.kind for s in KINDS):
        raise ValueError(f"the kind '{spec.kind}' already has a row")
    KINDS.append(spec)


def unregister(kind: Kind | str) -> None:
    """Take a row out again (a test's toy kind)."""
    KINDS[:] = [s for s in KINDS if s.kind != kind]
