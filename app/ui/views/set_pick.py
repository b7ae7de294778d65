"""Which scheme and item a set view (3D cuboids, tiers) shows for a context.

Both views draw one item of one set scheme from its :class:`SetAgreement`; the rules
for choosing them are the same, so they live here once.

Choices (the spec is silent):

- Scheme: the context's scheme when it is of a kind the view draws, else the first such
  scheme in report order (a user who selected a categorical scheme still sees the 3D
  view of the study's cuboids).
- Item: the context's item when the scheme has answers for it; with no item selected,
  the first item the scheme scored (so ``accord open --view tiers`` without ``--item``
  shows something), and the header says it was chosen by default. A selected item the
  scheme has no answers for is a sentence, not a silent switch to another item.
- Whatever cannot be shown is a sentence (:attr:`SetPick.message`), never an empty
  canvas. When the view has nothing at all to draw (no project, no such scheme, nobody
  answered it) :attr:`SetPick.empty` is set and the view shows the empty state every
  view shares (:meth:`View.show_empty`); an item without answers stays a sentence inside
  the view, under its header, since the scheme itself has something to show.
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path

from app.core.agreement.sets.agreement import SetAgreement
from app.core.formats.media import item_media
from app.ui.views.base import NO_PROJECT, ViewContext


@dataclass(frozen=True, slots=True)
class SetPick:
    scheme: str = ""
    item: str = ""
    agreement: SetAgreement | None = None
    by_default: bool = False
    """The context selected no item; this is the scheme's first."""
    message: str = ""
    """Why nothing is drawn (empty when something is)."""
    empty: bool = False
    """Nothing of the scheme can be drawn at all: the view shows its empty state."""

    @property
    def ok(self) -> bool:
        return self.agreement is not None and not self.message


def pick_set_item(context: ViewContext, kinds: Collection[str], what: str) -> SetPick:
    """The scheme and item to draw; ``what`` names the kinds in sentences ("3D boxes")."""
    project = context.project
    if project is None:
        return SetPick(message=NO_PROJECT, empty=True)
    schemes = project.report.schemes
    candidates = [name for name, result in schemes.items()
                  if result.kind in kinds and isinstance(result.details, SetAgreement)]
    if not candidates:
        return SetPick(message=f"This project has no {what} scheme to draw.", empty=True)
    scheme = context.scheme if context.scheme in candidates else candidates[0]
    agreement = schemes[scheme].details
    assert isinstance(agreement, SetAgreement)
    if context.item is not None:
        if context.item not in agreement.objects:
            return SetPick(scheme=scheme, item=context.item, message=(
                f"Item {context.item} has no answers in the {what} scheme '{scheme}'."))
        return SetPick(scheme=scheme, item=context.item, agreement=agreement)
    ordered = agreement.items_scored or sorted(agreement.objects)
    if not ordered:
        return SetPick(scheme=scheme, empty=True,
                       message=f"Nobody answered the {what} scheme '{scheme}'.")
    return SetPick(scheme=scheme, item=ordered[0], agreement=agreement, by_default=True)


def annotator_index(context: ViewContext, name: str) -> int:
    """The annotator's position in ``study.annotators`` (its colour index)."""
    project = context.project
    annotators = project.study.annotators if project is not None else ()
    return annotators.index(name) if name in annotators else len(annotators)


def picked_media(context: ViewContext, pick: SetPick, suffixes: Collection[str]) -> Path | None:
    """The picked item's media file with one of ``suffixes`` (a point cloud, a WAV), or
    ``None`` when there is no project or the item has none."""
    project = context.project
    if project is None:
        return None
    item = project.study.items.get(pick.item)
    scheme = project.study.schemes.get(pick.scheme)
    return item_media(item, scheme, suffixes) if item is not None else None
