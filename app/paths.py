"""Where Accord's bundled resources are, from a checkout, an install or a frozen app."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The ``resources/`` folder: in the bundle when frozen, inside the package when installed
    from a wheel (``app/resources``, see pyproject's package list), beside it in a checkout."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen is not None:
        return Path(frozen) / "resources"
    package = Path(__file__).resolve().parent
    installed = package / "resources"
    if (installed / "demo").is_dir():
        return installed
    return package.parent / "resources"


def demo_studies() -> dict[str, Path]:
    """The bundled demo studies by name (each a Potato project folder)."""
    root = resources_dir() / "demo"
    if not root.is_dir():
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "config.yaml").is_file()}
