"""Shared by the overview, items and traces tests: demo projects opened once."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from app.core.progress import run
from app.core.project import ProjectData, open_project
from app.ui.views.base import ViewContext, anonymous_aliases

DEMOS = Path(__file__).resolve().parents[2] / "resources" / "demo"


@cache
def demo(name: str) -> ProjectData:
    """A bundled demo project, opened once per test session (never written to)."""
    return run(open_project(DEMOS / name))


def context(name: str, **changes: object) -> ViewContext:
    project = demo(name)
    base = ViewContext(project=project, aliases=anonymous_aliases(project.study.annotators))
    return base.with_(**changes) if changes else base
