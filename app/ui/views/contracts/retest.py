"""The words of a card's **Retest** action (``contracts.md``, "When only dev labels
arrived"): its button, its confirmation, and the certify note the window shows.

A certify that finds only dev labels arrived, and dev now choosing another rule, returns
the stored result with Potato's note and ``retest_available``
(:mod:`app.core.contracts.potato_method.same_cert`). ``accord label certify --retest``
then tests that rule at the next look; in the window the card carries a button that
does the same for its one contract, after a confirmation that says what the look costs,
as Certify's does (:mod:`app.core.contracts.look_cost`).

Choices where the spec is silent:

- The button names the look it would be (``Retest at look N…``), the look after the
  contract's count (:func:`~app.core.contracts.look_cost.next_look_cost`).
- The confirmation says "at most", as Certify's does: a ``selective_risk`` rule whose
  look reaches no test (no cell tested) spends nothing, which the window cannot know
  before it runs (``accuracy`` of the ``potato_reviews`` demo after one dev label is
  such a case; its estimate ``prevalence`` spends its look). Only a ``selective_risk``
  confirmation says so: an estimate always tests.
- The core's note names the CLI flag (the CLI and the certificate show it as Potato
  words it). The card shows it with the window's way beside it, so nobody looks for a
  command line to run: the note's first clause, then the button to press.
"""

from __future__ import annotations

from app.core.contracts.look_cost import LookCost
from app.core.contracts.potato_method.same_cert import DEV_NOTE


def button_text(cost: LookCost) -> str:
    """The Retest button's label: the look it would be, when the kind spends looks."""
    return "Retest…" if cost.look is None else f"Retest at look {cost.look}…"


def retest_message(cost: LookCost) -> str:
    """The confirmation text: the rule dev now chooses, tested at the next look, and
    the level that look spends."""
    head = (f"'{cost.contract}': dev labels now choose a different rule than the stored "
            "result's.")
    if cost.level is None or cost.look is None:
        return f"{head} Retesting it spends no look ({cost.kind} tests nothing)."
    unspent = ("; a rule whose look reaches no test spends nothing"
               if cost.kind == "selective_risk" else "")
    return (f"{head} Retesting tests that rule at look {cost.look}, which spends at most "
            f"level {cost.level:.6f} of its error budget {cost.budget:g} "
            f"({cost.spent:.6f} spent so far){unspent}. Its result then replaces the "
            "stored one.")


def window_note(note: str, cost: LookCost) -> str:
    """``note`` as the card shows it: Potato's dev-labels note with the window's way to
    retest (the button beside Certify) instead of the command line's; others as they are."""
    if not note.startswith(DEV_NOTE):
        return note
    first = note.split(";", 1)[0]
    return (f"{first}: '{button_text(cost).rstrip('…')}' above tests it "
            "(the command line's 'accord label certify --retest').")
