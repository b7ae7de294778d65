"""``accord open``: headless screenshots of the window or of one view, and its errors."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from app.cli.gui import parse_size
from app.core.errors import InputError
from app.ui.views.registry import view_class
from tests.ui.shell_helpers import DEMO, copy_demo

NON_GL_VIEWS = ("overview", "items", "tiers", "traces", "regions", "masks", "contracts",
                "answers", "spans", "numbers", "rankings", "matrices")
"""Views that render offscreen (the 3D view needs a real OpenGL context: tests/gl)."""


def accord(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "QT_QPA_PLATFORM": "offscreen"}
    return subprocess.run([sys.executable, "-m", "app", *args], capture_output=True,
                          text=True, env=env, timeout=timeout, check=False)


def _png_size(path: Path) -> tuple[int, int]:
    image = QImage(str(path))
    assert not image.isNull(), f"{path} is not a readable image"
    return image.width(), image.height()


def test_the_whole_window_at_a_given_size(tmp_path: Path) -> None:
    out = tmp_path / "window.png"
    done = accord("open", str(DEMO), "--screenshot", str(out), "--size", "1024x640")
    assert done.returncode == 0, done.stderr
    assert _png_size(out) == (1024, 640)
    assert done.stdout.strip() == str(out)


def test_one_view_with_an_item(tmp_path: Path) -> None:
    view = next((v for v in NON_GL_VIEWS if view_class(v) is not None), None)
    if view is None:
        pytest.skip("no view module that renders offscreen is importable yet")
    out = tmp_path / "view.png"
    done = accord("open", str(DEMO), "--screenshot", str(out), "--view", view,
                  "--item", "conv-001", "--size", "800x500")
    assert done.returncode == 0, done.stderr
    assert _png_size(out) == (800, 500)


def test_a_bad_project_is_exit_2_and_one_line(tmp_path: Path) -> None:
    bad = copy_demo(tmp_path)
    (bad / "config.yaml").write_text("annotation_schemes: [unclosed\n")
    done = accord("open", str(bad), "--screenshot", str(tmp_path / "x.png"))
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("accord: error: ")
    assert "config.yaml" in lines[0]
    assert not (tmp_path / "x.png").exists()


def test_an_unknown_item_or_view_is_bad_input(tmp_path: Path) -> None:
    done = accord("open", str(DEMO), "--screenshot", str(tmp_path / "x.png"),
                  "--item", "no-such-item")
    assert done.returncode == 2
    assert "no item 'no-such-item'" in done.stderr
    done = accord("open", str(DEMO), "--screenshot", str(tmp_path / "x.png"),
                  "--view", "pie")
    assert done.returncode == 2
    assert "key '--view'" in done.stderr


@pytest.mark.parametrize("text", ["12x800", "wide", "1280*800", "0x0"])
def test_sizes_are_checked(text: str) -> None:
    with pytest.raises(InputError, match="expected WxH"):
        parse_size(text)


def test_sizes_are_parsed() -> None:
    assert parse_size("1280x800") == (1280, 800)
    assert parse_size(" 640 X 480 ") == (640, 480)


def test_help_lists_open_and_the_demo_json_still_works() -> None:
    done = accord("--help")
    assert done.returncode == 0 and "open" in done.stdout
    done = accord("demo", "--json")
    assert done.returncode == 0 and '"schemes"' in done.stdout
