"""The binomial arithmetic of Potato 2.12.1's ``selective_risk``, as Accord computes it.

``potato-engine.md`` §4 (``contracts/stats.py:18-66``) fixes four numbers the
selective-risk method is built from. Accord's general statistics
(:mod:`app.core.contracts.statistics.binomial`) answer slightly different questions —
:func:`~app.core.contracts.statistics.binomial.cert_labels_needed` finds the literal
smallest n and floors the implied error count, while Potato steps n by ×1.25 and rounds
it half to even — so a projection built on them would disagree with Potato's by a few
labels. The method needs Potato's numbers exactly, hence this small module.

The distribution functions are :mod:`app.core.contracts.statistics.distributions`, which
call the same ``scipy.special`` kernels as ``scipy.stats`` (bit-identical), so every
p-value and interval here equals Potato's ``scipy.stats`` ones to the last bit.
"""

from __future__ import annotations

import math

from app.core.contracts.statistics.distributions import beta_ppf, binom_cdf

#: Potato gives up projecting beyond this many accepted labels.
PROJECTION_CAP = 1_000_000
#: The factor by which the projection search grows n between tries.
PROJECTION_STEP = 1.25


def risk_p_value(errors: int, accepted: int, target: float) -> float:
    """p-value of "the error among accepted labels is above ``target``".

    ``P(Binomial(accepted, target) <= errors)``; with nothing accepted there is no
    evidence, so the p-value is 1 and no test can pass on an empty cell.
    """
    if accepted <= 0:
        return 1.0
    return float(binom_cdf(errors, accepted, target))


def fewest_certifying(target: float, level: float) -> float:
    """Fewest accepted labels that could pass at all: the smallest n with
    ``(1 - target)^n <= level`` (zero errors seen).

    A float because a target of 0 can never be certified: the answer is then ``inf``,
    which every comparison downstream treats as "never enough".
    """
    if target <= 0:
        return math.inf
    if target >= 1:
        return 1
    return math.ceil(math.log(level) / math.log(1.0 - target))


def labels_to_certify(rate: float, target: float, level: float,
                      cap: int = PROJECTION_CAP) -> int | None:
    """Accepted labels a test at ``level`` would need if the error rate were ``rate``.

    Potato's projection: starting from :func:`fewest_certifying`, try n, then
    ``int(1.25 n) + 1``, …, and return the first n at which ``round(rate · n)`` errors
    (Python's half-to-even rounding) pass. The geometric steps make it an upper-ish
    estimate rather than the exact minimum; that is deliberate here, because the
    projection must be the number Potato shows. ``None`` when the rate is not below the
    target (no amount of labels certifies a labeller worse than the target) or the
    search passes ``cap``.
    """
    if rate >= target:
        return None
    start = fewest_certifying(target, level)
    if math.isinf(start):
        return None
    n = max(1, int(start))
    while n <= cap:
        if risk_p_value(round(rate * n), n, target) <= level:
            return n
        n = int(n * PROJECTION_STEP) + 1
    return None


def exact_interval(errors: int, accepted: int, level: float) -> tuple[float, float]:
    """Two-sided Clopper–Pearson interval of the error rate at ``level``.

    The certified cell reports it at ``1 - 2·alpha`` so that its upper end is the
    one-sided bound the test used. The tail mass is taken as ``1 - level`` (not rebuilt
    from alpha) so the quantiles are the very ones Potato evaluates.
    """
    if accepted <= 0:
        return 0.0, 1.0
    tail = 1 - level
    low = 0.0 if errors == 0 else beta_ppf(tail / 2, errors, accepted - errors + 1)
    high = 1.0 if errors == accepted else beta_ppf(1 - tail / 2, errors + 1,
                                                    accepted - errors)
    return low, high
