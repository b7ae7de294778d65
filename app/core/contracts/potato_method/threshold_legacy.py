"""``threshold_legacy`` as Potato 2.12.1 evaluates it: a fixed confidence rule, no test.

Configurations translated from Potato's older subsystems (a ``min_confidence`` or
``routing_thresholds``) keep their behaviour through this kind: every tier accepts a
machine label whose confidence reaches the threshold, whatever its error. Nothing is
tested, so nothing is spent (``ran`` is false) and the state is ``met`` as soon as the
cascade has a tier. So that the risk is still visible, the result reports how often the
accepted labels were wrong on the calibration items: **all** of them, dev and cert, since
no choice was made on dev that cert would have to check (``potato-engine.md`` §4,
``contracts/threshold_legacy.py:23-34``).
"""

from __future__ import annotations

from app.core.contracts.potato_method.view import MethodContract, MethodResult, MethodView


def evaluate_threshold_legacy(contract: MethodContract, view: MethodView,
                              look: int = 1) -> MethodResult:
    """Potato's verdict for a ``threshold_legacy`` contract.

    ``look`` is only echoed back: the rule is a number, not a test, so no level is
    spent and the caller records no look.
    """
    threshold = float(contract.params["threshold"])
    result = MethodResult(state="met", look=look, ran=False)
    if not view.tiers:
        # No tier could label anything: there is no rule to report on.
        result.state = "insufficient"
        return result
    rule: dict[str, dict[str, float | None]] = {tier: {"*": threshold} for tier in view.tiers}
    result.acceptance = rule
    result.metrics["route"] = {tier: {"*": threshold} for tier in view.tiers}
    wrong = 0
    measured = 0
    for item in view.calibration:
        answer = item.output
        if answer is None or not answer.answered or answer.confidence < threshold:
            continue
        measured += 1
        if not view.correct(answer.value, item.truth):
            wrong += 1
    result.metrics["measured_error"] = wrong / measured if measured else None
    result.metrics["n_measured"] = measured
    tail = (f"; {wrong} of {measured} such calibration labels were wrong." if measured
            else ".")
    result.statement = (f"Uncertified: labels with confidence at least {threshold} are "
                        f"accepted without a guarantee{tail}")
    return result
