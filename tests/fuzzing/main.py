"""``scripts/fuzz``: the targeted attacks, then many random mutations, counted.

    scripts/fuzz [--examples 500] [--seed S] [--no-attacks] [--subprocess]

Every example is a real project mutated by a hypothesis plan
(:mod:`tests.fuzzing.mutations`) and run through ``accord agreement P --json`` and
``accord label status P``. In-process by default (fast); ``--subprocess`` runs every
command as its own process (:mod:`tests.fuzzing.peak`, the CLI's ``main``), judged by
what a user would see (exit code and stderr), and measures each one's peak memory
(``VmHWM``). Prints
the count of examples and commands run, the failures found (each plan in full, to replay
with :func:`tests.fuzzing.mutations.apply_plan`), the slowest run and the peak memory.
Exit status 1 when anything failed.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from hypothesis import HealthCheck, Phase, given, seed, settings

from tests.fuzzing.attacks import ATTACKS
from tests.fuzzing.mutations import Plan, apply_plan, plans
from tests.fuzzing.projects import REPO, copy_project
from tests.fuzzing.runner import COMMANDS, Outcome, changes, check_project, tree_state

LIMIT_SECONDS = 60.0


@dataclass
class Tally:
    examples: int = 0
    commands: int = 0
    failures: list[tuple[str, list[str]]] = field(default_factory=list)
    slowest: tuple[float, str] = (0.0, "")
    peak_kb: int = 0
    exits: dict[int | None, int] = field(default_factory=dict)

    def add(self, name: str, outcomes: list[Outcome], problems: list[str],
            peak_kb: int = 0) -> None:  # fmt: skip
        self.examples += 1
        self.commands += len(outcomes)
        for outcome in outcomes:
            self.exits[outcome.code] = self.exits.get(outcome.code, 0) + 1
            if outcome.seconds > self.slowest[0]:
                self.slowest = (outcome.seconds, f"{name}: accord {' '.join(outcome.argv[:2])}")
        self.peak_kb = max(self.peak_kb, peak_kb)
        if problems:
            self.failures.append((name, problems))
            print(f"FAILED {name}\n    " + "\n    ".join(problems), flush=True)


def run_subprocess(project: Path) -> tuple[list[Outcome], list[str], int]:
    """Each command as its own process: outcomes, problems and the largest peak (KB)."""
    before = tree_state(project)
    outcomes: list[Outcome] = []
    problems: list[str] = []
    peak = 0
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    for command in COMMANDS:
        argv = [part.format(p=project) for part in command]
        start = time.perf_counter()
        with (
            tempfile.TemporaryFile() as out,
            tempfile.TemporaryFile() as err,
            tempfile.TemporaryDirectory() as scratch,
        ):
            peak_file = Path(scratch) / "peak"
            child = subprocess.Popen([sys.executable, "-m", "tests.fuzzing.peak", *argv],
                                     stdout=out, stderr=err, cwd=REPO,
                                     env={**env, "ACCORD_PEAK_FILE": str(peak_file)})  # fmt: skip
            code = _wait(child)
            out.seek(0)
            err.seek(0)
            stdout, stderr = (f.read().decode("utf-8", "replace") for f in (out, err))
            usage = int(peak_file.read_text()) if peak_file.is_file() else 0
        peak = max(peak, usage)
        escaped = stderr if "Traceback (most recent call last)" in stderr else None
        if code is None:
            escaped = f"hang: no answer within {LIMIT_SECONDS:g} s"
        outcome = Outcome(tuple(argv), code, stdout, stderr, escaped, [],
                          time.perf_counter() - start)  # fmt: skip
        outcomes.append(outcome)
        problems += [f"{command[0]}: {p}" for p in outcome.problems(project)]
    written = changes(before, tree_state(project))
    if written:
        problems.append(f"wrote to the project: {written[:5]}")
    return outcomes, problems, peak


def _wait(child: subprocess.Popen[bytes]) -> int | None:
    """The child's exit code, or ``None`` when it ran past the limit (then killed)."""
    try:
        return child.wait(timeout=LIMIT_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()
        return None


def _check(project: Path, isolated: bool) -> tuple[list[Outcome], list[str], int]:
    if isolated:
        return run_subprocess(project)
    outcomes, problems = check_project(project, timeout=LIMIT_SECONDS)
    return outcomes, problems, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def run_attacks(tally: Tally, isolated: bool) -> None:
    for attack in ATTACKS:
        if attack.needs_root and os.geteuid() != 0:
            continue
        with tempfile.TemporaryDirectory(prefix="accord-fuzz-") as folder:
            project = copy_project(attack.project, Path(folder) / "project")
            outside = Path(folder) / "outside"
            outside.mkdir()
            attack.edit(project, outside)
            outcomes, problems, peak = _check(project, isolated)
        for command, outcome in zip(("agreement", "label status"), outcomes, strict=True):
            allowed = attack.exits.get(command)
            if allowed is not None and outcome.code not in allowed:
                problems.append(f"{command}: exit {outcome.code}, expected {sorted(allowed)}")
        tally.add(f"attack '{attack.name}'", outcomes, problems, peak)


def run_random(tally: Tally, examples: int, chosen_seed: int, isolated: bool) -> None:
    @seed(chosen_seed)
    @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(plans())
    def one(plan: Plan) -> None:
        with tempfile.TemporaryDirectory(prefix="accord-fuzz-") as folder:
            project = apply_plan(plan, Path(folder))
            outcomes, problems, peak = _check(project, isolated)
        tally.add(repr(plan), outcomes, problems, peak)

    one()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/fuzz", description=__doc__.split("\n")[0])
    parser.add_argument("--examples", type=int, default=500, help="random mutated projects")
    parser.add_argument("--seed", type=int, default=None, help="hypothesis seed (random)")
    parser.add_argument("--no-attacks", action="store_true", help="skip the targeted attacks")
    parser.add_argument("--subprocess", action="store_true",
                        help="each command in its own process (memory per run)")  # fmt: skip
    args = parser.parse_args(argv)
    chosen_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    tally = Tally()
    start = time.perf_counter()
    if not args.no_attacks:
        run_attacks(tally, args.subprocess)
    attacks = tally.examples
    run_random(tally, args.examples, chosen_seed, args.subprocess)
    exits = ", ".join(f"exit {k}: {v}" for k, v in sorted(tally.exits.items(), key=str))
    mode = "one process per command" if args.subprocess else "in-process"
    print(f"\nseed {chosen_seed}; {mode}; {time.perf_counter() - start:.0f} s")
    print(
        f"ran {tally.examples} projects ({attacks} targeted attacks, "
        f"{tally.examples - attacks} random mutations), {tally.commands} commands ({exits})"
    )
    print(f"failures: {len(tally.failures)}")
    print(f"slowest command: {tally.slowest[0]:.2f} s ({tally.slowest[1][:160]})")
    what = "largest peak of one command" if args.subprocess else "peak of the whole process"
    print(f"memory: {tally.peak_kb / 1024:.0f} MB ({what})")
    return 1 if tally.failures else 0


if __name__ == "__main__":
    sys.exit(main())
