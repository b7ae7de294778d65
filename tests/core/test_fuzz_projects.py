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

from hypothesis import HealthCheck, given, settings

from tests.fuzzing.mutations import Plan, apply_plan, plans
from tests.fuzzing.runner import check_project

EXAMPLES = 120


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))  # fmt: skip
@given(plans())
def test_a_mutated_project_is_read_or_refused_in_one_line(plan: Plan) -> None:
    with tempfile.TemporaryDirectory(prefix="accord-fuzz-") as folder:
        project = apply_plan(plan, Path(folder))
        _, problems = check_project(project, timeout=60)
    assert problems == [], plan
