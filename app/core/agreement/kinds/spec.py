"""What one agreement kind is, as data: a row of the kind table (``registry.py``).

A kind answers these questions, each a field of :class:`KindSpec` but one:

- **what it reads**: the Potato ``annotation_type`` names it scores and, where one type
  can be two kinds, a predicate on the scheme's config (a ``multiselect`` with
  ``max_selections: 1`` is nominal, any other multilabel);
- **which metrics**: the names its report entry can carry (a kind whose blocks depend
  on the scheme, as matrices, declares every name one can carry);
- **its undefined sentences**: not a field but a rule its scoring keeps: a number it
  cannot compute is ``Coefficient.undefined(sentence)`` (``null`` plus the sentence,
  never NaN, never 1.0 for no data); the shared sentences (nobody answered, one
  annotator only) are in ``common.py``, the kind's own beside its formulas.
  ``tests/core/test_kind_registry.py`` holds every row to it: a scheme nobody answered
  reports each of its metrics ``null`` with a sentence, none outside ``metrics``;
- **how it is scored**: a generator job that fills the scheme's result (and may add
  derived entries, as regions add ``NAME#masks``), and, optionally, a pass over the
  whole report once every scheme is scored (traces add their categorical reference);
- **its consensus** (``accord agreement --consensus``), when it has one.

The card and the view a kind has in the window, and its words in the reports, are
Qt- or format-side facts that the core must not import; they live in parallel tables
keyed by the same kind name (``app/report/kinds/`` and ``app/ui/views/kinds.py``).

The specs hold functions, not results: a kind's measures are imported when a scheme of
that kind is scored, so reading a config (which asks :func:`registry.kind_for`) imports
no measure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.core.model import Kind

if TYPE_CHECKING:
    from app.core.agreement.result import SchemeResult
    from app.core.agreement.sets.structured import SetOptions
    from app.core.model import Scheme, Study
    from app.core.progress import Job

Score = Callable[["Study", "Scheme", "SchemeResult", "SetOptions"], "Job[list[SchemeResult]]"]
"""Fill a scheme's result (coverage already counted); return every entry it yields."""
Complete = Callable[["Study", "dict[str, SchemeResult]"], None]
"""A pass over the finished report (every scheme scored), for cross-scheme numbers."""
ConsensusRows = Callable[["Study", "Scheme", str, "SetOptions", "list[str]"],
                         "Job[list[dict[str, Any]]]"]
"""A scheme's consensus rows (``--consensus``): study, scheme, method, options, and the
export's notes to add to."""
Claims = Callable[[str, Mapping[str, Any]], bool]
"""Does this kind read a scheme of this type (one of its types) with this config?"""


def always(annotation_type: str, config: Mapping[str, Any]) -> bool:
    """The default predicate: every scheme of the kind's types."""
    return True


@dataclass(frozen=True, slots=True)
class KindSpec:
    """One kind, one row of the table. ``kind`` is its JSON name (a :class:`Kind`)."""

    kind: Kind
    potato_types: frozenset[str]
    """Potato 2.12.1 ``annotation_type`` names it reads; empty for a kind derived from
    another's schemes (masks, found inside ``image_annotation`` schemes)."""
    metrics: tuple[str, ...]
    """The metric names its report entry can carry."""
    score: Score
    claims: Claims = always
    complete: Complete | None = None
    consensus: ConsensusRows | None = None
    """Its consensus rows; ``None``: the export names the scheme in a note instead."""
    summary: str = ""
    """What the kind compares, in a few words (agreement.md's table)."""

    def reads(self, annotation_type: str, config: Mapping[str, Any]) -> bool:
        return annotation_type in self.potato_types and self.claims(annotation_type, config)
