"""A window that cannot open is one line naming what to do, never Qt's abort (exit 134)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.platform_check import (
    audio_line,
    install_line,
    missing_libraries,
    multimedia_libraries,
    not_found,
    packages_for,
    window_problem,
    xcb_libraries,
)

# ldd's own output on a machine without three of the xcb libraries (trimmed)
LDD = """\
\tlinux-vdso.so.1 (0x00007ffd6a3f5000)
\tlibQt6XcbQpa.so.6 => /venv/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f1c)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-xinerama.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007f1b)
"""


def test_the_missing_libraries_are_named_with_their_packages() -> None:
    missing = not_found(LDD)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-xinerama.so.0"]
    assert packages_for(missing) == ["libxcb-icccm4", "libxcb-keysyms1", "libxcb-xinerama0"]
    line = install_line(missing)
    assert "\n" not in line
    assert line.endswith("sudo apt-get install -y libxcb-icccm4 libxcb-keysyms1 "
                         "libxcb-xinerama0")
    assert packages_for(["libunknown.so.7"]) == ["libunknown.so.7"]  # named as it is


def test_a_window_needs_a_display_and_its_libraries() -> None:
    linux = sys.platform.startswith("linux")
    no_display = window_problem({}, missing=[])
    assert (no_display is not None and "--screenshot" in no_display) if linux else True
    assert window_problem({"DISPLAY": ":0"}, missing=[]) is None
    lacking = window_problem({"DISPLAY": ":0"}, missing=["libxcb-cursor.so.0"])
    assert (lacking is not None and "libxcb-cursor0" in lacking) if linux else True
    # another platform chosen on purpose is left alone
    assert window_problem({"QT_QPA_PLATFORM": "offscreen"}, missing=["x.so"]) is None
    assert window_problem({"WAYLAND_DISPLAY": "wayland-0"}, missing=[]) is None


def test_this_machine_has_what_the_window_needs() -> None:
    # The test machines install Qt's xcb libraries (.ci/run): the real check finds none
    # missing on PySide6's own plugin.
    if sys.platform.startswith("linux"):
        assert xcb_libraries(), "PySide6's libqxcb.so was not found"
        assert missing_libraries() == []


def test_audio_playback_libraries_are_named_apart() -> None:
    """A bare Debian lacks PulseAudio's client library, which Qt Multimedia links to; it
    gets its own line, which says the rest works."""
    line = audio_line(["libpulse.so.0"])
    assert "\n" not in line and "sudo apt-get install -y libpulse0 " in line
    assert "everything else works" in line


def test_this_machine_can_load_qt_multimedia() -> None:
    # scripts/setup installs the audio extra and .ci/run libpulse0: nothing is missing.
    if sys.platform.startswith("linux"):
        assert multimedia_libraries(), "Qt Multimedia (PySide6-Addons) is not installed"
        assert missing_libraries(multimedia_libraries()) == []


def _without_display() -> dict[str, str]:
    return {k: v for k, v in os.environ.items()
            if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}


def test_accord_demo_without_a_display_is_one_line_not_an_abort() -> None:
    if not sys.platform.startswith("linux"):
        return
    run = subprocess.run([sys.executable, "-m", "app", "demo"], capture_output=True,
                         text=True, env=_without_display(), timeout=120, check=False)
    assert run.returncode == 2, run.stderr
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and "no display" in lines[0]


def test_a_screenshot_needs_no_display(tmp_path: Path) -> None:
    root = Path(__file__).resolve().parents[2]
    png = tmp_path / "window.png"
    run = subprocess.run([sys.executable, "-m", "app", "open",
                          str(root / "resources" / "demo" / "support_triage"),
                          "--screenshot", str(png), "--size", "640x400"],
                         capture_output=True, text=True, env=_without_display(),
                         timeout=180, check=False)
    assert run.returncode == 0, run.stderr
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
