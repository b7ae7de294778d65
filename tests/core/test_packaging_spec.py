"""The frozen build's lists agree with the project (issue 18), without building it.

packaging/smoke builds nothing and takes a minute; these checks take milliseconds and fail
when the project grows past what the packaging knows:

- every module a distribution of pyproject's ``test`` extra installs (pytest, hypothesis,
  Potato, the oracles...) is named in packaging/test_only.txt, which the spec excludes and
  the smoke looks for in the bundle; a distribution that is also an app dependency (pypdf)
  is the app's;
- the spec takes every app module (views, importers and contract kinds are imported by
  name) and the demo studies, and excludes the Qt modules issue 18 names (web engine, 3D,
  designer, and QtMultimedia: its list AUDIO, a choice its header explains) and the test
  tools;
- the smoke renders every view of ``VIEW_NAMES`` and imports every format whose importer
  leans on a third-party parser, from a fixture that exists.
"""

from __future__ import annotations

import ast
import re
import tomllib
from importlib.metadata import packages_distributions
from pathlib import Path
from typing import Any

from app.core.formats.importers.registry import FORMATS

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
SPEC = (PACKAGING / "accord.spec").read_text(encoding="utf-8")
SMOKE = (PACKAGING / "smoke").read_text(encoding="utf-8")
THIRD_PARTY_PARSERS = ("lxml", "pycocotools", "pympi", "praatio", "nibabel")


def _test_only() -> set[str]:
    lines = (PACKAGING / "test_only.txt").read_text(encoding="utf-8").splitlines()
    return {line.strip() for line in lines if line.strip() and not line.startswith("#")}


def _distribution(requirement: str) -> str:
    return re.split(r"[<>=!~\[; ]", requirement, maxsplit=1)[0].lower().replace("_", "-")


def _modules_of(distribution: str) -> set[str]:
    found: set[str] = set()
    for module, dists in packages_distributions().items():
        names = {d.lower().replace("_", "-") for d in dists}
        if distribution in names and module.isidentifier():
            found.add(module)
    return found


def _smoke_imports() -> set[str]:
    """The formats packaging/smoke runs ``accord import`` on: named on the command, or in
    the ``for format in ...`` loop around ``accord import "$format"`` (names may hold a
    hyphen: cvat-video)."""
    named = set(re.findall(r"accord import ([\w-]+)", SMOKE))
    for loop in re.findall(r"for format in ([\w -]+); do\n\s*accord import \"\$format\"", SMOKE):
        named |= set(loop.split())
    return named


def _spec_list(name: str) -> list[str]:
    """A list assigned in the spec (``NAME = [...]``), read without running PyInstaller."""
    for node in ast.parse(SPEC).body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return [
                e.value
                for e in ast.walk(node.value)
                if isinstance(e, ast.Constant) and isinstance(e.value, str)
            ]
    raise AssertionError(f"{name} is not assigned in packaging/accord.spec")


def test_every_module_of_the_test_extra_is_named_test_only() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    app_deps = {_distribution(r) for r in config["project"]["dependencies"]}
    test_deps = {_distribution(r) for r in config["project"]["optional-dependencies"]["test"]}
    missing = {
        (dist, module)
        for dist in sorted(test_deps - app_deps)
        for module in _modules_of(dist)
        if module not in _test_only()
    }
    assert missing == set(), "add these modules to packaging/test_only.txt"
    assert {"pytest", "hypothesis", "potato", "tests", "scripts"} <= _test_only()


def test_the_spec_takes_the_app_whole_and_leaves_out_unused_qt() -> None:
    assert 'collect_submodules("app")' in SPEC
    assert '"resources" / "demo"' in SPEC
    assert "test_only.txt" in SPEC and "excludes=TEST_ONLY + UNUSED + AUDIO" in SPEC
    assert "PySide6.QtMultimedia" in _spec_list("AUDIO")
    unused = set(_spec_list("UNUSED"))
    for module in (
        "QtWebEngineCore",
        "QtWebEngineWidgets",
        "Qt3DCore",
        "Qt3DRender",
        "QtQuick3D",
        "QtCharts",
        "QtDesigner",
    ):
        assert f"PySide6.{module}" in unused
    assert "PySide6.QtMultimedia" not in unused and "PySide6.QtOpenGL" not in unused
    assert unused.isdisjoint(
        {
            "numpy",
            "scipy",
            "shapely",
            "yaml",
            "pyqtgraph",
            "OpenGL",
            "lxml",
            "pycocotools",
            "pympi",
            "praatio",
            "nibabel",
            "pypdf",
            "cryptography",
        }
    )


def test_the_smoke_renders_every_view() -> None:
    # VIEW_NAMES read from the source: tests/core never imports Qt (app.ui does).
    base = ast.parse((ROOT / "app" / "ui" / "views" / "base.py").read_text(encoding="utf-8"))
    (names,) = [
        node.value
        for node in base.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "VIEW_NAMES"
    ]
    views = {e.value for e in ast.walk(names) if isinstance(e, ast.Constant)}
    assert len(views) >= 9
    shot = set(re.findall(r"--view (\w+)", SMOKE))
    assert views - shot == set(), "packaging/smoke must render these views"


def test_the_smoke_imports_every_format_with_a_third_party_parser() -> None:
    importers = ROOT / "app" / "core" / "formats" / "importers"
    leaning = set()
    for name, module in FORMATS.items():
        source = importers / (module.replace(".", "/") + ".py")
        tree = ast.parse(source.read_text(encoding="utf-8"))
        imported = {
            alias.name.split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        }
        imported |= {
            (node.module or "").split(".")[0]
            for node in ast.walk(tree)
            if isinstance(node, ast.ImportFrom)
        }
        if imported & set(THIRD_PARTY_PARSERS):
            leaning.add(name)
    assert {"cvat", "coco", "eaf", "textgrid", "cvat-video", "nifti"} <= leaning
    for name in leaning:
        assert any((PACKAGING / "fixtures" / name).iterdir()), f"no fixture for {name}"
        assert name in _smoke_imports(), f"packaging/smoke does not import {name}"


def _spec_function(name: str) -> Any:
    """A function defined in the spec, compiled alone (the spec itself needs PyInstaller)."""
    (node,) = [n for n in ast.parse(SPEC).body if isinstance(n, ast.FunctionDef) and n.name == name]
    namespace: dict[str, Any] = {"Path": Path}
    exec(compile(ast.Module(body=[node], type_ignores=[]), "accord.spec", "exec"), namespace)
    return namespace[name]


def _elf(loads: list[tuple[int, int, int]]) -> bytes:
    """A 64-bit little-endian ELF header with PT_LOAD segments (offset, address, align)."""
    header = bytearray(64)
    header[:6] = b"\x7fELF\x02\x01"
    header[0x20:0x28] = (64).to_bytes(8, "little")  # program headers right after
    header[0x36:0x38] = (56).to_bytes(2, "little")
    header[0x38:0x3A] = len(loads).to_bytes(2, "little")
    for offset, address, align in loads:
        entry = bytearray(56)
        entry[0:4] = (1).to_bytes(4, "little")  # PT_LOAD
        entry[8:16] = offset.to_bytes(8, "little")
        entry[16:24] = address.to_bytes(8, "little")
        entry[48:56] = align.to_bytes(8, "little")
        header += entry
    return bytes(header)


def test_the_strip_check_refuses_what_the_loader_refuses() -> None:
    """Stripping a patchelf'd library can leave a PT_LOAD whose offset and address differ
    mod its alignment; the loader refuses it ("ELF load command address/offset not
    page-aligned"), so the spec puts the original back."""
    aligned = _spec_function("loads_aligned")
    assert aligned(_elf([(0, 0, 0x1000), (0x2E10, 0x3E10, 0x1000)]))
    assert not aligned(_elf([(0, 0, 0x1000), (0x2E10, 0x3E00, 0x1000)]))
    assert not aligned(b"#!/bin/sh\n" + bytes(100))
    import numpy

    real = next(Path(numpy.__file__).parent.glob("_core/_multiarray_umath*.so"))
    assert aligned(real.read_bytes())


def _trim() -> Any:
    """packaging/trim.py, loaded by its path as the spec loads it (pure Python, no Qt)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("accord_trim", PACKAGING / "trim.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_trim_steps_keep_what_the_loader_and_icu_read() -> None:
    """The ICU repacking writes exactly what icupkg wrote (the full item list packs back to
    the wheel's own bytes); cutting the static symbols of a library strip cannot handle
    keeps its segments aligned and its dynamic dependencies; and DT_NEEDED is read right."""
    import shutil
    import subprocess

    import numpy

    trim = _trim()
    openblas = next((Path(numpy.__file__).parent.parent / "numpy.libs").glob("*openblas*"))
    original = openblas.read_bytes()
    cut = trim.cut_symbol_tables(original)
    assert cut is not None and len(cut) < len(original)
    assert _spec_function("loads_aligned")(cut)
    assert trim.elf_needed(cut) == trim.elf_needed(original)
    assert "libgfortran" in " ".join(trim.elf_needed(original))
    if shutil.which("nm") is None:
        return
    from importlib.util import find_spec

    qt = find_spec("PySide6")  # its folder only: tests/core never imports Qt
    assert qt is not None and qt.submodule_search_locations is not None
    qt_lib = Path(next(iter(qt.submodule_search_locations))) / "Qt" / "lib"
    icu = next(qt_lib.glob("libicudata.so.*"))
    listing = subprocess.run(["nm", "-D", "-S", "--defined-only", str(icu)],
                             capture_output=True, text=True, check=True).stdout
    (address, size), = [(int(f[0], 16), int(f[1], 16)) for f in map(str.split, listing.splitlines())
                        if len(f) == 4 and f[3].endswith("_dat")]
    data = icu.read_bytes()
    start = trim._file_offset(data, address)
    blob = data[start:start + size]
    header, items = trim.icu_items(blob)
    assert trim.icu_pack(blob[:header], items) == blob
    assert any(name.endswith("coll/sv.res") for name, _ in items)
