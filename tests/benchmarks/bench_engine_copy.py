"""Benchmark: commands on a project whose ``engine.sqlite`` has a WAL beside it, two
``app`` trees run alternately (A, B, A, B, ...) on the same project.

Run on purpose::

    .venv/bin/python tests/benchmarks/bench_engine_copy.py --generate 100000 --project FOLDER
    .venv/bin/python tests/benchmarks/bench_engine_copy.py --old OLD_ROOT --new NEW_ROOT \\
        --project FOLDER [--pairs N] [--command agreement|open|status]

``OLD_ROOT`` and ``NEW_ROOT`` are folders holding an ``app`` package each (``git archive
COMMIT app resources | tar -x -C ROOT``); each run imports its root's ``app`` first (the
editable install's finder taken out), as ``bench_paired.py`` does, with bytecode
compiled once beforehand. ``--generate N`` makes the project with a WAL:
``engine_study.generate_engine``, then a writer that commits with
``wal_autocheckpoint=0`` and is killed (``os._exit``), which leaves ``engine.sqlite-wal``
and ``-shm`` as Potato's killed server does (the rows it rewrites are unchanged).

Why: one open of a project read ``engine.sqlite`` from two private copies (the people,
the contracts' store), now from one (:mod:`app.core.formats.potato.engine.copies`); the
machine is shared and its speed changes from one minute to the next, so the two trees
run in pairs and each pair's ratio is reported with the spread. ``agreement`` and
``status`` outputs (``--json``) must be byte-identical between the trees.

Commands: ``agreement`` (``accord agreement P --json``), ``status`` (``accord label status
P --json``), ``open`` (``accord open P --screenshot FILE``: the window opened, drawn and
saved, offscreen).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

RUNNER = """
import sys
root = sys.argv[1]
sys.meta_path[:] = [f for f in sys.meta_path
                    if "editable" not in getattr(type(f), "__module__", "").lower()
                    and "editable" not in repr(f).lower()]
sys.path.insert(0, root)
import app
assert app.__file__.startswith(root), app.__file__
from app.cli.main import main
sys.argv = ["accord", *sys.argv[2:]]
sys.exit(main())
"""


def generate(root: Path, n_items: int) -> None:
    """``engine_study``'s project of ``n_items`` items, left with a killed writer's WAL."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from engine_study import generate_engine

    generate_engine(root, n_items)
    database = root / "engine.sqlite"
    db = sqlite3.connect(database)
    db.execute("PRAGMA journal_mode=WAL")
    db.close()
    child = os.fork()
    if child == 0:  # the writer, killed after its commit: -wal and -shm stay
        writer = sqlite3.connect(database)
        writer.execute("PRAGMA wal_autocheckpoint=0")
        writer.execute("UPDATE engine_item SET ingest_seq = ingest_seq WHERE rowid <= 20000")
        writer.commit()
        os._exit(0)
    os.waitpid(child, 0)


def arguments(command: str, project: Path, png: Path) -> list[str]:
    if command == "agreement":
        return ["agreement", str(project), "--json"]
    if command == "status":
        return ["label", "status", str(project), "--json"]
    return ["open", str(project), "--screenshot", str(png)]


def run(root: Path, args: list[str], cache: Path) -> tuple[float, bytes]:
    """Wall seconds and stdout of one command with ``root``'s ``app``."""
    env = {"PYTHONPYCACHEPREFIX": str(cache), "PATH": "/usr/bin:/bin",
           "QT_QPA_PLATFORM": "offscreen", "HOME": str(cache)}
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", RUNNER, str(root), *args],
                          capture_output=True, check=True, env=env)
    return time.perf_counter() - started, done.stdout


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--old", type=Path)
    parser.add_argument("--new", type=Path)
    parser.add_argument("--project", type=Path, required=True)
    parser.add_argument("--generate", type=int, metavar="N_ITEMS",
                        help="make the project (a new folder) and stop")
    parser.add_argument("--pairs", type=int, default=4)
    parser.add_argument("--command", choices=("agreement", "status", "open"),
                        default="agreement")
    args = parser.parse_args()
    if args.generate:
        generate(args.project, args.generate)
        return 0
    if args.old is None or args.new is None:
        parser.error("--old and --new are needed to compare")
    listing = sorted(p.name for p in args.project.iterdir())
    with tempfile.TemporaryDirectory(prefix="accord-copy-bench-") as folder:
        cache, png = Path(folder) / "pycache", Path(folder) / "window.png"
        argv = arguments(args.command, args.project, png)
        _, expected = run(args.old, argv, cache)  # untimed: bytecode, page cache
        _, first_new = run(args.new, argv, cache)
        if args.command != "open" and first_new != expected:
            print("the outputs differ between the trees")
            return 1
        olds, news, ratios = [], [], []
        for pair in range(args.pairs):
            old, out_old = run(args.old, argv, cache)
            new, out_new = run(args.new, argv, cache)
            if args.command != "open" and not out_old == out_new == expected:
                print("the outputs changed between runs")
                return 1
            olds.append(old)
            news.append(new)
            ratios.append(new / old)
            print(f"pair {pair + 1}: old {old:.2f} s, new {new:.2f} s, "
                  f"new - old {new - old:+.2f} s", flush=True)
    if sorted(p.name for p in args.project.iterdir()) != listing:
        print("the project's folder changed")
        return 1
    differences = ", ".join(f"{n - o:+.2f}" for o, n in zip(olds, news, strict=True))
    print(f"{args.command} on {args.project.name}: old median {statistics.median(olds):.2f} s "
          f"(range {min(olds):.2f}-{max(olds):.2f}), new median "
          f"{statistics.median(news):.2f} s (range {min(news):.2f}-{max(news):.2f}); "
          f"new - old per pair {differences} s; ratio median {statistics.median(ratios):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
