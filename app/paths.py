"""Where Accord's bundled resources are, from a checkout, an install or a frozen app."""

from __future__ import annotations

import sys
from pathlib import Path


def resources_dir() -> Path:
    """The ``resources/`` folder: beside the package in a checkout, in the bundle when frozen."""
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen is not None:
        return Path(frozen) / "resources"
    return Path(__file__).resolve().parent.parent / "resources"


def demo_studies() -> dict[str, Path]:
    """The bundled demo studies by name (each a Potato project folder)."""
    root = resources_dir() / "demo"
    if not root.is_dir():
        return {}
    return {p.name: p for p in sorted(root.iterdir()) if (p / "config.yaml").is_file()}
