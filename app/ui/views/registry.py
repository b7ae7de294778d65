"""View names (``accord open --view``, ``cli.md``) → view classes, imported lazily.

Each view lives in its own folder, ``app.ui.views.<name>``, with the view class in
``view.py`` and its helpers (canvas, plot, text, model) beside it; importing one can be costly
(pyqtgraph, OpenGL) or fail (a missing optional dependency, a view not written yet), so
the window asks :func:`available_views` which ones import and shows only those. A module
that fails to import is logged once and left out; it never stops the window.
"""

from __future__ import annotations

import importlib
import logging
from functools import cache

from app.ui.views.base import VIEW_NAMES, View

log = logging.getLogger(__name__)

CLASSES: dict[str, str] = {
    "overview": "OverviewView",
    "items": "ItemsView",
    "cuboids": "CuboidsView",
    "tiers": "TiersView",
    "traces": "TracesView",
    "regions": "RegionsView",
    "masks": "MasksView",
    "contracts": "ContractsView",
    "answers": "AnswersView",
    "spans": "SpansView",
    "numbers": "NumbersView",
    "rankings": "RankingsView",
    "matrices": "MatricesView",
    "volumes": "VolumesView",
    "tracks": "TracksView",
}
assert tuple(CLASSES) == VIEW_NAMES


@cache
def view_class(name: str) -> type[View] | None:
    """The class of view ``name``, or ``None`` when its module does not import."""
    if name not in CLASSES:
        raise KeyError(f"unknown view '{name}'; expected one of {', '.join(VIEW_NAMES)}")
    module_name, class_name = f"app.ui.views.{name}.view", CLASSES[name]
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as error:
        if error.name != module_name:
            log.warning("view %s left out: %s", name, error)
        return None
    except Exception as error:  # a broken view must not stop the window
        log.warning("view %s left out: %s: %s", name, type(error).__name__, error)
        return None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, View)):
        log.warning("view %s left out: %s has no View class %s", name, module_name,
                    class_name)
        return None
    return cls


def available_views() -> dict[str, type[View]]:
    """Every view that imports, in ``VIEW_NAMES`` order."""
    out: dict[str, type[View]] = {}
    for name in VIEW_NAMES:
        cls = view_class(name)
        if cls is not None:
            out[name] = cls
    return out
