"""A built wheel is a whole Accord: every package under app/ is in it, and the demo studies too.

The packages are listed in pyproject.toml (one of them, app.resources, is the top-level
resources/ folder mapped into the package), so a new package under app/ must be added
there: the first test says which. The second builds the wheel as a user would (pip wheel .),
installs it into a scratch folder and runs `accord demo --export` from outside the checkout,
which failed before the demo folders shipped as package data.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

from setuptools import find_packages

ROOT = Path(__file__).resolve().parents[2]


def test_every_package_under_app_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    found = set(find_packages(where=str(ROOT), include=["app*"]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
    assert listed - found == {"app.resources"}


def test_a_built_wheel_exports_the_demo_studies(tmp_path: Path) -> None:
    wheels = tmp_path / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(ROOT), "--no-deps", "-q", "-w", str(wheels)],
        check=True,
        capture_output=True,
    )
    (wheel,) = wheels.glob("accord-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "app/resources/demo/sentiment_reviews/config.yaml" in names
    assert "app/resources/icons/accord.png" in names  # the window's icon
    assert not any("screenshots" in name for name in names)
    target = tmp_path / "site"
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--no-deps",
            "-q",
            "--target",
            str(target),
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    out = tmp_path / "demos"
    env = {**os.environ, "PYTHONPATH": str(target), "QT_QPA_PLATFORM": "offscreen"}
    done = subprocess.run(
        [sys.executable, "-m", "app", "demo", "--export", str(out)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    bundled = sorted(
        p.name for p in (ROOT / "resources" / "demo").iterdir() if (p / "config.yaml").is_file()
    )
    assert sorted(p.name for p in out.iterdir()) == bundled
    source = subprocess.run(
        [sys.executable, "-c", "import app; print(app.__file__)"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert source.startswith(str(target)), "the test must run the installed copy, not the checkout"
