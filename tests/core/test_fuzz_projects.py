"""Mutated real projects never end in a traceback, a warning, a hang or a write.

Hypothesis draws a plan (``tests/fuzzing/mutations.py``): one of the demos or Potato
2.12.1 fixtures, and one to three edits (truncation, byte flips, a nasty value planted in
JSON, JSON Lines or YAML, a special file or a link). The plan is applied to a fresh copy
and ``accord agreement P --json`` and ``accord label status P`` run in this process; the
property (``tests/fuzzing/runner.py``): exit 0, or exit 2 with one stderr line naming a
file of the project; no traceback, no warning, no write, no hang.

The suite runs :data:`EXAMPLES` derandomized examples (the same ones every run, about
20 s); ``scripts/fuzz --examples N`` runs many more with a random seed.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings

from tests.fuzzing.mutations import Plan, Step, apply_plan, plans
from tests.fuzzing.runner import check_project

EXAMPLES = 120


# Plans scripts/fuzz found failing (a traceback, or a message naming no file, each),
# kept as fixed examples: a config label renamed under engine.sqlite's labels (InputError
# without a file), an emptied engine.sqlite-wal (a stored ppi result of another shape),
# a display field whose type is a mapping (unhashable).
@example(
    Plan(
        project="potato_reviews",
        steps=(
            Step(
                kind="value",
                target="config",
                index=15,
                where=0.3134183911745443,
                payload=864,
                descend=False,
            ),
        ),
    )
)
@example(
    Plan(
        project="server_engine",
        steps=(
            Step(kind="special", target="any", index=644, where=0.0, payload=7, descend=False),
            Step(
                kind="truncate",
                target="labeling",
                index=176,
                where=0.9953571172042522,
                payload=387936,
                descend=False,
            ),
            Step(
                kind="truncate",
                target="data",
                index=821,
                where=0.5821564231790541,
                payload=2618,
                descend=False,
            ),
        ),
    )
)
@example(
    Plan(
        project="people_photos",
        steps=(
            Step(
                kind="truncate",
                target="config",
                index=1000,
                where=0.5802692321505198,
                payload=740328,
                descend=True,
            ),
            Step(
                kind="value",
                target="config",
                index=101,
                where=0.5406056641248635,
                payload=1000,
                descend=True,
            ),
            Step(
                kind="truncate",
                target="ledger",
                index=707,
                where=0.05790945244604751,
                payload=978125,
                descend=True,
            ),
        ),
    )
)
@example(
    Plan(
        project="support_triage",
        steps=(
            Step(
                kind="value",
                target="labeling",
                index=192,
                where=0.8520061203293482,
                payload=205088,
                descend=True,
            ),
            Step(
                kind="value",
                target="any",
                index=192,
                where=0.5348809447674499,
                payload=245,
                descend=True,
            ),
            Step(
                kind="value",
                target="any",
                index=230,
                where=0.8520061203293482,
                payload=245,
                descend=True,
            ),
        ),
    )
)  # a 5,000-digit step index (traces.py: keys at most 100 long)
@example(
    Plan(
        project="cascade_fixture",
        steps=(
            Step(
                kind="value",
                target="state",
                index=491,
                where=0.14061886681832592,
                payload=3281,
                descend=True,
            ),
            Step(
                kind="value",
                target="state",
                index=0,
                where=0.14061886681832592,
                payload=0,
                descend=True,
            ),
        ),
    )
)  # a radio scheme's labels: null (config.py: refused)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(plans())
def test_a_mutated_project_is_read_or_refused_in_one_line(plan: Plan) -> None:
    with tempfile.TemporaryDirectory(prefix="accord-fuzz-") as folder:
        project = apply_plan(plan, Path(folder))
        _, problems = check_project(project, timeout=60)
    assert problems == [], plan
