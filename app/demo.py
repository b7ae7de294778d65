"""Write the bundled demo studies out as project folders (``accord demo --export DIR``).

Each study is copied to a temporary folder beside its target and renamed into place, so
an interrupted export leaves no half-written project under the target name. An existing
target is never overwritten.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from app.core.errors import InputError


def export_demo(studies: dict[str, Path], target: Path) -> dict[str, Path]:
    target.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    for name, source in studies.items():
        final = target / name
        if final.exists():
            raise InputError("already exists; expected a new folder (Accord never overwrites "
                             "a project)", file=final)
        staging = Path(tempfile.mkdtemp(prefix=f".{name}-", dir=target))
        try:
            shutil.copytree(source, staging, dirs_exist_ok=True,
                            ignore=shutil.ignore_patterns("__pycache__", ".accord"))
            staging.rename(final)
        except BaseException:
            shutil.rmtree(staging, ignore_errors=True)
            raise
        written[name] = final
    return written
