"""Benchmark: ``accord label status`` of this checkout against an older commit, in pairs.

Run on purpose::

    .venv/bin/python tests/benchmarks/bench_paired.py --base COMMIT --project FOLDER
        [--pairs N]

Why: this machine's speed changes about twofold from one hour to the next (the same
100,000-item ``label status`` took 1.45 s at one time and 3.0 s an hour later), so two
timings taken minutes apart say little about a change. Here the two checkouts run
alternately on the same project (already generated and settled on disk: the first run
of each is not timed), and the change is the median of each pair's ratio, new / old; a
slow minute slows both runs of a pair.

The older commit is checked out with ``git worktree`` into a temporary folder (removed
afterwards) and run with this checkout's virtual environment, its own ``app`` package
first on the path (the editable install's finder is taken out), with bytecode compiled
once beforehand for both. Each run's ``--json`` output must be byte-identical to the
first run's of the older commit, or the benchmark stops: a speed-up must not change a
result.

Prints one line per pair and one line with the medians and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[2]
RUNNER = """
import io, sys, contextlib
root, project = sys.argv[1], sys.argv[2]
sys.meta_path[:] = [f for f in sys.meta_path
                    if "editable" not in getattr(type(f), "__module__", "").lower()
                    and "editable" not in repr(f).lower()]
sys.path.insert(0, root)
import app
assert app.__file__.startswith(root), app.__file__
from app.cli.main import main
sys.argv = ["accord", "label", "status", project, "--json"]
sys.exit(main())
"""


def run(root: Path, project: Path, cache: Path) -> tuple[float, bytes]:
    """Wall seconds and stdout of ``label status --json`` with ``root``'s ``app``."""
    env = {"PYTHONPYCACHEPREFIX": str(cache), "PATH": "/usr/bin:/bin",
           "QT_QPA_PLATFORM": "offscreen"}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, str(root), str(project)],
                          capture_output=True, check=True, env=env)
    return time.perf_counter() - started, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True, help="the older commit")
    parser.add_argument("--project", type=Path, required=True,
                        help="a generated study (bench_label_status.generate or "
                        "engine_study.generate_engine)")
    parser.add_argument("--pairs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="accord-paired-") as folder:
        base = Path(folder) / "base"
        subprocess.run(["git", "-C", str(CHECKOUT), "worktree", "add", "--detach", "-q",
                        str(base), args.base], check=True)
        try:
            cache = Path(folder) / "pycache"
            _, expected = run(base, args.project, cache)  # untimed: bytecode, page cache
            _, first_new = run(CHECKOUT, args.project, cache)
            if first_new != expected:
                print("the outputs differ: this checkout's --json is not the base's")
                return 1
            ratios, olds, news = [], [], []
            for pair in range(args.pairs):
                old, out_old = run(base, args.project, cache)
                new, out_new = run(CHECKOUT, args.project, cache)
                if out_old != expected or out_new != expected:
                    print("the outputs changed between runs")
                    return 1
                olds.append(old)
                news.append(new)
                ratios.append(new / old)
                print(f"pair {pair + 1}: base {old:.2f} s, this checkout {new:.2f} s, "
                      f"ratio {new / old:.3f}", flush=True)
        finally:
            subprocess.run(["git", "-C", str(CHECKOUT), "worktree", "remove", "--force",
                            str(base)], check=False)
    print(f"label status on {args.project.name}: base {args.base} median "
          f"{statistics.median(olds):.2f} s, this checkout median "
          f"{statistics.median(news):.2f} s; ratio (median of pairs) "
          f"{statistics.median(ratios):.3f}, outputs identical")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
