"""A selective_risk rule's coverage and the machine labels delivered, in one sentence.

A lead read "accepted by tier: gemma-12b 88.8%" on the card and "279 machine labels"
above it, and could not tell which was true (issue 35 part 8). Both are: the share is
the rule's coverage of the whole population (``cli.md``: ``accepted_by_tier`` is shares
of the population, ``accepted_by_tier_counts`` the items), while the count is the machine
labels actually delivered, which leaves out the covered items that people labelled
(calibration and verification answers win over the machine's) and those waiting for a
person's check. :func:`coverage_sentence` says both, with the difference named.

Where the spec is silent: when more labels are delivered on the schema than the rule
covers (another contract, e.g. a legacy threshold, delivers some too) the sentence says
so instead of a negative difference; the population is recovered from a tier's count and
share (the result carries no population of its own).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def rule_coverage(result: Mapping[str, Any]) -> tuple[dict[str, int], int | None]:
    """(items the rule covers per tier, the population) from a selective_risk result in
    ``cli.md``'s names; the population is ``None`` when no tier covers an item."""
    counts = {str(t): int(n) for t, n in (result.get("accepted_by_tier_counts") or {}).items()
              if isinstance(n, int | float)}
    shares = result.get("accepted_by_tier") or {}
    population = next((round(counts[t] / float(s)) for t, s in shares.items()
                       if counts.get(str(t)) and isinstance(s, int | float) and s > 0), None)
    return counts, population


def coverage_sentence(result: Mapping[str, Any], delivered: int | None = None) -> str | None:
    """The rule's coverage and, when ``delivered`` is known, the machine labels
    delivered on its schema, reconciled; ``None`` for a result without a coverage."""
    counts, population = rule_coverage(result)
    if not counts:
        return None
    covered = sum(counts.values())
    if covered == 0 or population is None:
        where = "none of the items"
        return f"The rule covers {where}" + ("" if delivered is None else
                                             f"; {delivered:,} machine labels delivered")
    used = [(t, n) for t, n in counts.items() if n]
    tiers = (f"all by {used[0][0]}" if len(used) == 1
             else "by tier: " + ", ".join(f"{t} {n:,}" for t, n in used))
    share = f"{covered / population:.1%}"
    cover = f"the rule covers {covered:,} of the {population:,} items ({share}, {tiers})"
    if delivered is None:
        return cover[0].upper() + cover[1:]
    if delivered > covered:
        return (f"{delivered:,} machine labels delivered on this schema, more than the "
                f"{covered:,} items the rule covers ({share} of {population:,}, {tiers}): "
                "another contract delivers the rest")
    rest = covered - delivered
    return (f"{delivered:,} machine labels delivered of the {covered:,} items the rule "
            f"covers ({share} of {population:,}, {tiers})"
            + ("" if rest == 0 else
               f"; the other {rest:,} are labelled by people or wait for a person's check"))
