"""The real projects the fuzzer mutates, copied to a scratch folder, and edits of them.

Sources: every demo under ``resources/demo`` and the Potato 2.12.1 fixtures under
``tests/data/potato_server`` and ``tests/data/potato_engine`` (written by Potato itself,
see ``tests/potato_real/README.md``). A copy is always made first: the committed files
are never touched. The edits write raw JSON text, so that values ``json.dumps`` cannot
write (an integer of 5,000 digits, ``NaN``) can be planted exactly where wanted.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
SOURCES: tuple[Path, ...] = tuple(
    sorted(p for p in (REPO / "resources" / "demo").iterdir() if (p / "config.yaml").is_file())
    + sorted(
        p
        for folder in ("potato_server", "potato_engine")
        for p in (REPO / "tests" / "data" / folder).iterdir()
        if (p / "config.yaml").is_file()
    )
)
"""Every project a mutation starts from."""

TEXT_SUFFIXES = (".json", ".jsonl", ".yaml", ".yml", ".csv", ".tsv")


CERTIFIED = ("certified:sentiment_reviews", "certified:people_photos")
"""Demos after one ``accord label certify``, so the ledger (``labeling/ledger.jsonl``,
``.accord/ledger-head``) is among the files mutated; built once per process."""

_built: dict[str, Path] = {}
_scratch: list[tempfile.TemporaryDirectory[str]] = []


def source(name: str) -> Path:
    if name.startswith("certified:"):
        return _certified(name.removeprefix("certified:"))
    return next(p for p in SOURCES if p.name == name)


def _certified(name: str) -> Path:
    if name not in _built:
        from tests.fuzzing.runner import run_accord

        if not _scratch:
            _scratch.append(tempfile.TemporaryDirectory(prefix="accord-fuzz-sources-"))
        target = Path(_scratch[0].name) / name
        shutil.copytree(source(name), target, symlinks=True)
        outcome = run_accord(["label", "certify", str(target)])
        if outcome.code != 0 or outcome.escaped:
            raise RuntimeError(f"certify failed on {name}: {outcome.stderr or outcome.escaped}")
        _built[name] = target
    return _built[name]


def copy_project(name_or_path: str | Path, into: Path) -> Path:
    """A fresh copy of a source project inside ``into`` (returned: the copy's folder)."""
    src = source(name_or_path) if isinstance(name_or_path, str) else name_or_path
    target = into / src.name
    shutil.copytree(src, target, symlinks=True)
    return target


def files_of(project: Path) -> list[Path]:
    """Every regular file of a project under 50 MB, sorted (the mutation targets; a
    sparse file planted by an earlier edit is not read again)."""
    return sorted(
        p
        for p in project.rglob("*")
        if p.is_file() and not p.is_symlink() and p.stat().st_size < 50 * 1024 * 1024
    )


class Raw:
    """A JSON literal written as is (``Raw("1" * 5000)``, ``Raw("NaN")``)."""

    def __init__(self, text: str) -> None:
        self.text = text


def dumps(value: Any) -> str:
    """``json.dumps`` with every :class:`Raw` written as its literal text."""
    raws: list[str] = []

    def swap(v: Any) -> Any:
        if isinstance(v, Raw):
            raws.append(v.text)
            return f"\x00raw{len(raws) - 1}\x00"
        if isinstance(v, dict):
            return {k: swap(x) for k, x in v.items()}
        if isinstance(v, list):
            return [swap(x) for x in v]
        return v

    text = json.dumps(swap(value), ensure_ascii=False)
    for i, raw in enumerate(raws):
        text = text.replace(f'"\\u0000raw{i}\\u0000"', raw)
    return text


def deep_json(levels: int, kind: str = "list") -> Raw:
    """A value nested ``levels`` deep (lists ``[[[…]]]`` or objects ``{"a": {…}}``)."""
    if kind == "list":
        return Raw("[" * levels + "1" + "]" * levels)
    return Raw('{"a": ' * levels + "1" + "}" * levels)


def edit_json(path: Path, change: Callable[[Any], Any]) -> None:
    """Rewrite a JSON file with ``change(value)`` (which may edit in place and return it)."""
    value = json.loads(path.read_text(encoding="utf-8"))
    path.write_text(dumps(change(value)), encoding="utf-8")


def edit_json_line(path: Path, index: int, change: Callable[[Any], Any]) -> None:
    """Rewrite line ``index`` (of the non-blank lines) of a JSON Lines file."""
    lines = path.read_text(encoding="utf-8").splitlines()
    numbered = [i for i, line in enumerate(lines) if line.strip()]
    at = numbered[index % len(numbered)]
    lines[at] = dumps(change(json.loads(lines[at])))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def first_annotator_state(project: Path) -> Path:
    return sorted(project.glob("annotation_output/*/user_state.json"))[0]


def set_structured(state: dict[str, Any], change: Callable[[Any], Any]) -> dict[str, Any]:
    """Apply ``change`` to the first structured answer (a JSON string under ``_data``) of a
    Potato ``user_state.json`` and store it back as a string (raw literals kept)."""
    for pairs in state["instance_id_to_label_to_value"].values():
        for pair in pairs:
            if isinstance(pair, list) and pair[0].get("name") == "_data":
                pair[1] = _RawString(dumps(change(json.loads(pair[1]))))
                return state
    raise LookupError("no structured answer")


class _RawString(Raw):
    """A JSON string whose content is raw JSON text (escaped as a string when written)."""

    def __init__(self, text: str) -> None:
        super().__init__(json.dumps(text))


def int_digits(n: int, negative: bool = False) -> Raw:
    """An integer literal of ``n`` digits (beyond Python's own 4,300-digit limit too)."""
    return Raw(("-" if negative else "") + "1" + "0" * (n - 1))
