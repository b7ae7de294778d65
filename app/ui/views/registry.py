"""View names (``accord open --view``, ``cli.md``) → view classes, imported lazily.

Each view lives in its own module under ``app.ui.views``; importing one can be costly
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

MODULES: dict[str, tuple[str, str]] = {
    "overview": ("overview", "OverviewView"),
    "items": ("items", "ItemsView"),
    "cuboids": ("cuboids3d", "CuboidsView"),
    "tiers": ("tiers", "TiersView"),
    "traces": ("traces", "TracesView"),
    "regions": ("regions2d", "RegionsView"),
    "masks": ("masks", "MasksView"),
    "contracts": ("contracts", "ContractsView"),
}
assert tuple(MODULES) == VIEW_NAMES


@cache
def view_class(name: str) -> type[View] | None:
    """The class of view ``name``, or ``None`` when its module does not import."""
    if name not in MODULES:
        raise KeyError(f"unknown view '{name}'; expected one of {', '.join(VIEW_NAMES)}")
    module_name, class_name = MODULES[name]
    try:
        module = importlib.import_module(f"app.ui.views.{module_name}")
    except ModuleNotFoundError as error:
        if error.name != f"app.ui.views.{module_name}":
            log.warning("view %s left out: %s", name, error)
        return None
    except Exception as error:  # a broken view must not stop the window
        log.warning("view %s left out: %s: %s", name, type(error).__name__, error)
        return None
    cls = getattr(module, class_name, None)
    if not (isinstance(cls, type) and issubclass(cls, View)):
        log.warning("view %s left out: app.ui.views.%s has no View class %s", name,
                    module_name, class_name)
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
