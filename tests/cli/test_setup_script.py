"""scripts/setup's two modes (issue 35, part 9): `demo` installs Accord without the test tools,
`test` installs them on top, and a venv is never narrowed.

The script is run for real, in a scratch folder, with a stand-in for Python that records
the pip commands instead of downloading 1.7 GB: what is tested is which extras each mode asks
pip for and when pip runs at all. That a real `scripts/setup demo` venv holds no pytest,
SimpleITK or potato was checked once by hand in a scratch copy (the issue's closing note
has the sizes); the extras it asks for are checked here against pyproject.toml.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# A stand-in for python3 and for .venv/bin/python: `-m venv DIR` makes DIR/bin/python (this
# same script), anything else is appended to $SETUP_LOG.
FAKE_PYTHON = """#!/usr/bin/env bash
if [ "$1" = "-m" ] && [ "$2" = "venv" ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0
fi
if [ "$1" = "--version" ]; then echo "Python 3.11.0"; exit 0; fi
echo "$*" >>"$SETUP_LOG"
"""


@pytest.fixture()
def checkout(tmp_path: Path) -> Path:
    (tmp_path / "scripts").mkdir()
    shutil.copy(ROOT / "scripts" / "setup", tmp_path / "scripts" / "setup")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    fake = tmp_path / "fake-python3"
    fake.write_text(FAKE_PYTHON)
    fake.chmod(0o755)
    return tmp_path


def run_setup(checkout: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    log = checkout / "pip.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "PYTHON": str(checkout / "fake-python3"), "SETUP_LOG": str(log)}
    done = subprocess.run(
        ["bash", str(checkout / "scripts" / "setup"), *args],
        env=env, capture_output=True, text=True, timeout=60, check=False,
    )
    calls = log.read_text().splitlines() if log.exists() else []
    return done, calls


def installs(calls: list[str]) -> list[str]:
    """The `pip install -e .[extras]` targets among the recorded calls."""
    return [m.group(1) for c in calls if (m := re.search(r"-e \.\[([a-z,]*)\]", c))]


def test_demo_mode_installs_no_test_tools_and_says_what_it_does(checkout: Path) -> None:
    done, calls = run_setup(checkout, "demo")
    assert done.returncode == 0, done.stderr
    assert installs(calls) == ["audio"]
    # Progress: pip's own bar, not --quiet, and one line per step.
    assert not any("--quiet" in c or " -q" in c for c in calls)
    assert "installing Accord for the demo" in done.stdout
    assert "[2/3]" in done.stdout
    assert (checkout / ".venv" / ".accord-installed").read_text().strip() == "demo"


def test_test_mode_adds_the_test_tools_on_top_of_a_demo_venv(checkout: Path) -> None:
    run_setup(checkout, "demo")
    done, calls = run_setup(checkout, "test")
    assert done.returncode == 0, done.stderr
    assert installs(calls) == ["test,audio"]
    assert (checkout / ".venv" / ".accord-installed").read_text().strip() == "test"
    # Once installed, neither mode runs pip again (only the platform check).
    for mode in ("test", "demo"):
        done, calls = run_setup(checkout, mode)
        assert installs(calls) == [], mode
        assert any("app.platform_check" in c for c in calls)
        assert (checkout / ".venv" / ".accord-installed").read_text().strip() == "test"


def test_a_changed_pyproject_reinstalls_without_narrowing(checkout: Path) -> None:
    run_setup(checkout, "test")
    stamp = checkout / ".venv" / ".accord-installed"
    os.utime(stamp, (1_000_000, 1_000_000))  # older than pyproject.toml
    _, calls = run_setup(checkout, "demo")
    assert installs(calls) == ["test,audio"]


def test_the_stamp_of_the_setup_before_modes_means_test(checkout: Path) -> None:
    # The setup before modes wrote an empty stamp after installing the test tools:
    # such a venv (CI caches, this checkout's own) is not reinstalled.
    fake = checkout / "fake-python3"
    (checkout / ".venv" / "bin").mkdir(parents=True)
    shutil.copy(fake, checkout / ".venv" / "bin" / "python")
    (checkout / ".venv" / ".accord-installed").write_text("")
    _, calls = run_setup(checkout, "test")
    assert installs(calls) == []


def test_no_mode_is_test_and_a_wrong_mode_is_refused(checkout: Path) -> None:
    _, calls = run_setup(checkout)
    assert installs(calls) == ["test,audio"]
    done, _ = run_setup(checkout, "everything")
    assert done.returncode == 2
    assert "usage: scripts/setup [demo|test]" in done.stderr


def test_what_the_demo_installs_holds_no_test_tool() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    demo = [*project["dependencies"], *project["optional-dependencies"]["audio"]]
    names = {re.split(r"[<>=!\[; ]", d, maxsplit=1)[0].lower() for d in demo}
    test_only = {"pytest", "simpleitk", "potato-annotation", "statsmodels", "pandas",
                 "hypothesis", "krippendorff", "ruff", "mypy", "label-studio-converter"}
    assert not names & test_only
    assert test_only - {"pandas"} <= {
        re.split(r"[<>=!\[; ]", d, maxsplit=1)[0].lower()
        for d in project["optional-dependencies"]["test"]
    }


def _fake_tools(checkout: Path) -> None:
    """A venv set up for the tests, whose every tool records its call."""
    shutil.copy(ROOT / "scripts" / "test", checkout / "scripts" / "test")
    bin_dir = checkout / ".venv" / "bin"
    bin_dir.mkdir(parents=True)
    for tool in ("python", "ruff", "mypy", "lint-imports"):
        (bin_dir / tool).write_text(f'#!/usr/bin/env bash\necho "{tool} $*" >>"$SETUP_LOG"\n')
        (bin_dir / tool).chmod(0o755)
    (checkout / ".venv" / ".accord-installed").write_text("test\n")
    (checkout / "tests" / "cli").mkdir(parents=True)
    (checkout / "tests" / "cli" / "test_one.py").write_text("")


def run_test_script(checkout: Path, *args: str) -> list[str]:
    log = checkout / "pip.log"
    log.unlink(missing_ok=True)
    env = {**os.environ, "SETUP_LOG": str(log)}
    env.pop("CI", None)
    done = subprocess.run(["bash", str(checkout / "scripts" / "test"), *args], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    return [c for c in log.read_text().splitlines() if "platform_check" not in c]


def test_scripts_test_with_a_path_runs_pytest_on_it_alone(checkout: Path) -> None:
    _fake_tools(checkout)
    calls = run_test_script(checkout, "tests/cli/test_one.py::test_x", "-q")
    assert calls == ["python -m pytest tests/cli/test_one.py::test_x -q"]


def test_scripts_test_without_a_path_runs_the_whole_suite(checkout: Path) -> None:
    _fake_tools(checkout)
    calls = run_test_script(checkout, "-q")
    tools = [c.split()[0] for c in calls]
    assert tools[:3] == ["ruff", "mypy", "lint-imports"]
    assert "python -m pytest -n auto --maxprocesses=4 -q" in calls
