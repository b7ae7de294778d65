"""No note, message or help text cites a specification file the user does not have (issue 35,
part 8).

Accord's design follows specification files (agreement.md, contracts.md, kinds.md, cli.md,
formats.md, the contracts seed) that ship with neither the app nor its README. A lead who
reads "(agreement.md, Detection clusters)" in a report note can look nothing up. Docstrings
and comments may cite them (they are for whoever reads the code); every other string in
``app/`` (report notes, GUI text, certificate text, ``--help``) must not. The check reads
the source with :mod:`ast`, so a docstring is told from a string the program prints.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"

SPEC = re.compile(
    r"\b(?:agreement|contracts|kinds|cli|formats|architecture|potato-engine)\.md\b"
    r"|shared/spec|\bthe seed\b|\bas the seed\b|\bthe spec\b|\bspec's\b",
    re.IGNORECASE,
)


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (module, class, function, and the
    attribute docstrings that follow an assignment): statements of a lone string."""
    out = set()
    for node in ast.walk(tree):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            out.add(id(node.value))
    return out


def spec_citations(source: str) -> list[tuple[int, str]]:
    """(line, text) of every non-docstring string constant that cites a spec file."""
    tree = ast.parse(source)
    docs = _docstrings(tree)
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        and id(node) not in docs and SPEC.search(node.value)
    ]


def test_the_checker_tells_a_message_from_a_docstring() -> None:
    source = (
        '"""Module (agreement.md)."""\n'
        "def f() -> str:\n"
        '    """Why (contracts.md)."""\n'
        "    # a comment (kinds.md)\n"
        '    return f"matched {1} pairs (agreement.md, Detection clusters)"\n'
        'NOTE = ("as the seed describes")\n'
        '"""The note above (cli.md)."""\n'
    )
    assert sorted(line for line, _ in spec_citations(source)) == [5, 6]


def test_no_user_facing_string_in_app_cites_a_spec_file() -> None:
    found = [
        f"{path.relative_to(APP.parent)}:{line}: {text[:100]!r}"
        for path in sorted(APP.rglob("*.py"))
        for line, text in spec_citations(path.read_text(encoding="utf-8"))
    ]
    assert found == []
