"""The tree's rules (ARCHITECTURE.md), made executable.

- no module of ``app/`` over 400 lines, no folder with more than 20 modules;
- no import cycle between modules of ``app/``, counting every import: at the top, inside
  functions and under ``TYPE_CHECKING`` (a cycle hidden there still couples the two);
- the layer rules themselves are import-linter contracts in ``pyproject.toml``
  (``[tool.importlinter]``), run by ``scripts/test``; the last test here checks that
  those contracts can fail.
"""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

APP = Path(__file__).resolve().parents[2] / "app"
MAX_LINES = 400
MAX_MODULES_PER_FOLDER = 20


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(APP.rglob("*.py")):
        parts = path.relative_to(APP.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def test_no_module_is_over_400_lines() -> None:
    long = {str(p.relative_to(APP.parent)): n for p in APP.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"split these by idea: {long}"


def test_no_folder_holds_more_than_20_modules() -> None:
    crowded = {str(d.relative_to(APP.parent)): n for d in [APP, *APP.rglob("*")]
               if d.is_dir() and (n := len(list(d.glob("*.py")))) > MAX_MODULES_PER_FOLDER}
    assert not crowded, f"give these folders sub-packages: {crowded}"


def _imports(module: str, path: Path, known: set[str]) -> set[str]:
    """Every ``app`` module that ``module`` imports, wherever the import stands."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[:len(package.split(".")) - node.level + 1]
                                + ([base] if base else []))
            names = [base] + [f"{base}.{alias.name}" for alias in node.names]
        else:
            continue
        found.update(n for n in names if n in known and n != module)
    return found


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    # Raised for the walk only and put back: a higher limit left in place changes what
    # other tests in the same process see (the JSON readers' depth checks).
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 10_000))
    try:
        for v in graph:
            if v not in index:
                visit(v)
    finally:
        sys.setrecursionlimit(limit)
    return out


def _graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    # A package's __init__ is not a module that imports its children: skip the edge from
    # a child to its own package (importing app.x.y runs app/x/__init__.py first).
    return {m: {d for d in _imports(m, p, known) if not m.startswith(d + ".")}
            for m, p in modules.items()}


def test_no_import_cycle_between_modules() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_graph_sees_imports_inside_functions_and_type_checking() -> None:
    graph = _graph()
    assert "app.core.contracts.potato_method.from_labeling" in graph[
        "app.core.contracts.potato_method.engine"]
    assert "app.core.agreement.sets.structured" in graph["app.cli.agreement"]  # TYPE_CHECKING


@pytest.mark.skipif(shutil.which("lint-imports", path=str(Path(sys.executable).parent))
                    is None, reason="import-linter is not installed")
def test_the_layer_contracts_break_on_a_forbidden_import(tmp_path: Path) -> None:
    """A copy of ``app`` whose core imports the UI: lint-imports must say BROKEN."""
    copy = tmp_path / "app"
    shutil.copytree(APP, copy, ignore=shutil.ignore_patterns("__pycache__"))
    errors = copy / "core" / "errors.py"
    errors.write_text(errors.read_text(encoding="utf-8") + "\nimport app.ui.palette\n",
                      encoding="utf-8")
    shutil.copy(APP.parent / "pyproject.toml", tmp_path / "pyproject.toml")
    tool = Path(sys.executable).parent / "lint-imports"
    run = subprocess.run([str(tool), "--no-logo", "--no-cache", "pyproject.toml"],
                         cwd=tmp_path, capture_output=True, text=True,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "core is pure" in run.stdout and "BROKEN" in run.stdout
