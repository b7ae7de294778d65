"""What moved a contract's state on an explicit certify, in one sentence (issue 36).

A contract that was ``met`` and is ``insufficient`` after ``accord label certify`` (or
``infeasible`` and now ``met``) looks like an accident unless it says why. Two things can
move it: **the look** (each look tests at a smaller level, so a test that passed at look
2 can fail at look 3 on the same evidence) and **the labels that arrived** (dev labels
change the rule chosen, cert labels the test). The sentence names both: the look and its
level against the stored result's look, and the dev and cert label counts then and now
(or that the cert labels were edited, the counts unchanged). When no label moved, the
predictions or a ``--retest`` did (Accord cannot tell which from the counts alone, and
says so).

The note is written into the result before it is recorded, so ``status``, the window and
the certificate show it until the next evaluation replaces it. Where the spec is silent:
a contract evaluated for the first time has no state to move from and gets no note, and
a contract whose state stayed the same gets none either.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _labels(what: str, before: Any, now: Any) -> str | None:
    if not isinstance(before, int) or not isinstance(now, int):
        return None
    if now == before:
        return f"{what} unchanged ({now})"
    change = "arrived" if now > before else "were removed"
    return f"{abs(now - before)} {what} {change} ({before} then, {now} now)"


def state_moved(stored: Mapping[str, Any] | None, stored_counts: Mapping[str, Any],
                result: Mapping[str, Any], counts: Mapping[str, Any],
                level: float | None) -> str | None:
    """The sentence, or ``None`` when the state did not move (or nothing was stored).

    ``stored``/``result``: the stored and the new result in Potato's shape (``status``,
    ``look``); ``stored_counts``/``counts``: their ``n_dev``, ``n_cert`` (and, for
    Accord's own looks, ``cert_labels``, a digest of the cert truths); ``level``: the
    level the new look spent, ``None`` when it spent none.
    """
    if stored is None:
        return None
    before, now = stored.get("status"), result.get("status")
    if before is None or before == now:
        return None
    look = result.get("look")
    at = f"look {look}" + (f" at level {level:.6f}" if level is not None else "")
    previous = stored.get("look")
    if isinstance(previous, int) and previous > 0:
        at += f" (the stored result was look {previous})"
    parts = [p for p in (_labels("cert labels", stored_counts.get("n_cert"),
                                 counts.get("n_cert")),
                         _labels("dev labels", stored_counts.get("n_dev"),
                                 counts.get("n_dev"))) if p]
    moved = [p for p in parts if "unchanged" not in p]
    digest_then, digest_now = stored_counts.get("cert_labels"), counts.get("cert_labels")
    if not moved and digest_then is not None and digest_then != digest_now:
        parts = [f"some cert labels were edited (still {counts.get('n_cert')})",
                 *parts[1:]]
        moved = parts
    if moved:
        why = "; ".join(parts)
    elif parts:
        why = ("no label arrived (" + "; ".join(parts) + "): the look's smaller level, "
               "a --retest or changed predictions moved it")
    else:
        why = "the labels then are not known"
    return f"State moved from {before} to {now} on this certify, {at}: {why}."
