"""A window that cannot open is one line naming what to do, never Qt's abort (exit 134)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

from app.platform_check import (
    audio_line,
    display_reachable,
    install_line,
    missing_libraries,
    multimedia_libraries,
    not_found,
    packages_for,
    screenshot_platform,
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
    assert window_problem({"DISPLAY": ":0"}, missing=[], reachable=True) is None
    nobody = window_problem({"DISPLAY": ":0"}, missing=[], reachable=False)
    assert (nobody is not None and "no X server" in nobody and "--screenshot" in nobody
            ) if linux else True
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


def test_a_screenshot_falls_back_to_offscreen_where_a_window_could_not_open() -> None:
    if not sys.platform.startswith("linux"):
        return
    assert screenshot_platform({}, missing=[]) == ("offscreen", None)  # headless
    platform, note = screenshot_platform({"DISPLAY": ":0"}, missing=["libxcb-cursor.so.0"])
    assert platform == "offscreen" and note is not None and "\n" not in note
    assert "libxcb-cursor0" in note and note.endswith("rendered offscreen instead")
    platform, note = screenshot_platform({"DISPLAY": ":0"}, missing=[], reachable=False)
    assert platform == "offscreen" and note is not None and "no X server" in note
    assert screenshot_platform({"DISPLAY": ":0"}, missing=[], reachable=True) == (None, None)
    # a platform chosen on purpose is the user's
    assert screenshot_platform({"QT_QPA_PLATFORM": "xcb", "DISPLAY": ":0"},
                               missing=["x.so"]) == (None, None)
    assert screenshot_platform({"WAYLAND_DISPLAY": "w"}, missing=[]) == (None, None)


def test_a_display_is_reachable_only_when_something_listens() -> None:
    """Oracle: a TCP listener opened here on port 6000 + n is display host:n."""
    if not sys.platform.startswith("linux"):
        return
    for number in range(60, 100):
        server = socket.socket()
        try:
            server.bind(("127.0.0.1", 6000 + number))
        except OSError:
            server.close()
            continue
        server.listen(1)
        try:
            assert display_reachable(f"127.0.0.1:{number}")
            assert display_reachable(f"127.0.0.1:{number}.0")
        finally:
            server.close()
        assert not display_reachable(f"127.0.0.1:{number}", timeout=0.5)
        break
    free = next(n for n in range(200, 300) if not Path(f"/tmp/.X11-unix/X{n}").exists())
    assert not display_reachable(f":{free}") and not display_reachable(f"unix:{free}")
    assert display_reachable("not a display")  # Qt decides what it cannot parse


def _unused_display() -> str:
    return f":{next(n for n in range(200, 300) if not Path(f'/tmp/.X11-unix/X{n}').exists())}"


PATCHED_LIBRARIES = (
    "import sys, app.platform_check as check\n"
    "check.missing_libraries = lambda libraries=None: "
    "['libxcb-cursor.so.0'] if libraries is None else []\n"
    "from app.cli.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n")


def test_open_with_a_display_qt_cannot_use_is_one_line_or_offscreen(tmp_path: Path) -> None:
    """``DISPLAY`` set, but nobody answers there (or, patched in, xcb's libraries are
    missing): ``accord open`` is one line and exit 2, ``--screenshot`` renders offscreen
    with one note, never Qt's abort (exit 134)."""
    if not sys.platform.startswith("linux"):
        return
    root = Path(__file__).resolve().parents[2]
    demo = str(root / "resources" / "demo" / "support_triage")
    env = {**_without_display(), "DISPLAY": _unused_display()}
    for prefix, says in ((["-m", "app"], "no X server"),
                         (["-c", PATCHED_LIBRARIES], "libxcb-cursor0")):
        window = subprocess.run([sys.executable, *prefix, "open", demo], capture_output=True,
                                text=True, env=env, timeout=120, check=False)
        assert window.returncode == 2, window.stderr
        lines = window.stderr.strip().splitlines()
        assert len(lines) == 1 and says in lines[0] and lines[0].startswith("accord: error:")
        png = tmp_path / f"{len(prefix[1])}.png"
        shot = subprocess.run([sys.executable, *prefix, "open", demo, "--screenshot",
                               str(png), "--size", "640x400"], capture_output=True,
                              text=True, env=env, timeout=180, check=False)
        assert shot.returncode == 0, shot.stderr
        notes = [line for line in shot.stderr.splitlines() if line.startswith("accord:")]
        assert len(notes) == 1 and says in notes[0] and "offscreen" in notes[0]
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
