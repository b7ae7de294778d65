"""The ledger in a Potato project: ``.accord/ledger.jsonl``, continuing after Potato's looks."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from app.core.contracts.ledger.chain import Ledger, LookConflictError, data_hash
from app.core.contracts.ledger.format import LEDGER_FILE, POTATO_LEDGER_FILE, ledger_file
from app.core.contracts.statistics.looks import look_level

RULE = {"tiers": {"cheap": 0.9}}


def _append(ledger: Ledger, look: int) -> None:
    ledger.append_look("acc", look=look, level=look_level(look, 0.9),
                       data_hash=data_hash({"c": look}, {"p": look}, RULE), rule=RULE,
                       result={"state": "met"}, cascade=["cheap"],
                       time="2026-12-02T00:00:00+00:00")


def test_a_potato_project_keeps_its_ledger_under_dot_accord(tmp_path: Path) -> None:
    assert ledger_file(tmp_path) == LEDGER_FILE  # Accord's own project
    (tmp_path / "engine.sqlite").write_bytes(b"")
    assert ledger_file(tmp_path) == POTATO_LEDGER_FILE
    (tmp_path / "labeling").mkdir()
    (tmp_path / LEDGER_FILE).write_text("")  # a ledger already there stays where it is
    assert ledger_file(tmp_path) == LEDGER_FILE


def test_looks_continue_after_potato_and_are_never_given_back(tmp_path: Path) -> None:
    (tmp_path / "engine.sqlite").write_bytes(b"")
    spent = math.fsum(look_level(k, 0.9) for k in (1, 2, 3))
    prior = {"acc": (3, spent)}
    ledger = Ledger.open(tmp_path, prior)
    assert ledger.looks("acc") == 3 and ledger.level_spent("acc") == spent
    with pytest.raises(LookConflictError, match="at look 4"):
        _append(ledger, 1)  # Potato's first look is spent: never again at its level
    _append(ledger, 4)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".accord", "engine.sqlite"]
    assert (tmp_path / POTATO_LEDGER_FILE).is_file()
    again = Ledger.open(tmp_path, prior)
    assert again.ok and again.looks("acc") == 4
    assert again.level_spent("acc") == math.fsum([look_level(4, 0.9), spent])
    assert Ledger.open(tmp_path).looks("acc") == 4  # the ledger alone says 4 as well


def test_damage_in_a_potato_project_names_its_own_ledger(tmp_path: Path) -> None:
    (tmp_path / "engine.sqlite").write_bytes(b"")
    ledger = Ledger.open(tmp_path, {})
    _append(ledger, 1)
    _append(Ledger.open(tmp_path, {}), 2)
    path = tmp_path / POTATO_LEDGER_FILE
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(lines[0])  # the last line deleted
    damaged = Ledger.open(tmp_path, {})
    assert not damaged.ok and damaged.damage is not None
    assert damaged.damage.startswith(".accord/ledger.jsonl ends at line 1")
    assert "labeling/ledger.jsonl" not in damaged.damage
