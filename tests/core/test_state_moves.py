"""The sentence that says what moved a contract's state on an explicit certify (issue 36).

The expected sentences are written out in full: the counts come from the arguments, the
level from the series ``(1 − confidence)·6/(π² k²)`` written here, not from Accord.
"""

from __future__ import annotations

import math

from app.core.contracts.state_moves import state_moved


def _level(look: int, confidence: float = 0.9) -> float:
    return (1 - confidence) * 6 / (math.pi ** 2 * look ** 2)


def test_met_to_insufficient_names_the_look_and_the_labels_that_arrived() -> None:
    note = state_moved({"status": "met", "look": 1}, {"n_dev": 80, "n_cert": 120},
                       {"status": "insufficient", "look": 2}, {"n_dev": 80, "n_cert": 140},
                       _level(2))
    assert note == ("State moved from met to insufficient on this certify, look 2 at "
                    f"level {_level(2):.6f} (the stored result was look 1): 20 cert labels "
                    "arrived (120 then, 140 now); dev labels unchanged (80).")
    assert f"{_level(2):.6f}" == "0.015198"


def test_infeasible_to_met_with_new_dev_labels() -> None:
    note = state_moved({"status": "infeasible", "look": 3}, {"n_dev": 30, "n_cert": 10},
                       {"status": "met", "look": 4}, {"n_dev": 45, "n_cert": 60}, _level(4))
    assert note is not None
    assert note.startswith("State moved from infeasible to met on this certify, look 4 at "
                           f"level {_level(4):.6f} (the stored result was look 3): ")
    assert "50 cert labels arrived (10 then, 60 now)" in note
    assert "15 dev labels arrived (30 then, 45 now)" in note


def test_edited_cert_labels_and_no_label_at_all() -> None:
    edited = state_moved({"status": "met", "look": 1},
                         {"n_dev": 5, "n_cert": 9, "cert_labels": "a"},
                         {"status": "insufficient", "look": 2},
                         {"n_dev": 5, "n_cert": 9, "cert_labels": "b"}, None)
    assert edited == ("State moved from met to insufficient on this certify, look 2 (the "
                      "stored result was look 1): some cert labels were edited (still 9); "
                      "dev labels unchanged (5).")
    same = state_moved({"status": "met", "look": 1}, {"n_dev": 5, "n_cert": 9},
                       {"status": "insufficient", "look": 2}, {"n_dev": 5, "n_cert": 9},
                       _level(2))
    assert same is not None and "no label arrived (cert labels unchanged (9); dev labels " \
        "unchanged (5)): the look's smaller level, a --retest or changed predictions" in same


def test_no_note_when_nothing_moved_or_nothing_was_stored() -> None:
    assert state_moved(None, {}, {"status": "met", "look": 1}, {"n_dev": 1}, None) is None
    assert state_moved({"status": "met", "look": 1}, {"n_dev": 1, "n_cert": 2},
                       {"status": "met", "look": 2}, {"n_dev": 1, "n_cert": 9}, 0.01) is None
