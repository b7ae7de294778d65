"""The README works from a fresh clone: every link and image it names is in the clone.

Issue 15 found the README linking to a spec file outside the repository (the specs live
beside it in the workplace, not in a clone) and mixing ``accord`` and ``.venv/bin/accord``.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")


def relative_targets(text: str) -> list[str]:
    """Markdown link and image targets that are paths (not URLs or anchors)."""
    out = []
    for target in LINK.findall(text):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue
        out.append(target.split("#", 1)[0])
    return out


def test_the_link_finder_finds_links() -> None:
    text = "see [spec](../shared/spec/cli.md), ![shot](resources/a.png) and [web](https://x.org)"
    assert relative_targets(text) == ["../shared/spec/cli.md", "resources/a.png"]


def test_every_relative_link_is_inside_the_clone() -> None:
    for name in ("README.md", "ARCHITECTURE.md", "tests/benchmarks/README.md"):
        path = ROOT / name
        if not path.is_file():
            continue
        for target in relative_targets(path.read_text(encoding="utf-8")):
            resolved = (path.parent / target).resolve()
            inside = ROOT in resolved.parents or resolved == ROOT
            assert inside, f"{name}: {target} leaves the clone"
            assert resolved.exists(), f"{name}: {target} does not exist"


def test_commands_say_where_accord_is() -> None:
    """Prose may say ``accord``; the README says once that it is ``.venv/bin/accord``."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`accord` is `.venv/bin/accord`" in text
