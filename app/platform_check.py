"""Can Qt open a window here? Asked before the window starts.

Qt aborts the whole process (exit 134, "could not load the Qt platform plugin xcb") when
the X11 platform plugin cannot load one of its system libraries, and names the wrong
one; it aborts the same way with no display at all. Accord asks first, so the lead gets
one line naming exactly what to install, or what to do instead:

- the libraries come from ``ldd`` on PySide6's own ``libqxcb.so`` and ``libQt6XcbQpa``
  (the sonames reported "not found"), mapped to their Debian/Ubuntu packages
  (:data:`PACKAGES`; a soname not in the table is named as it is);
- a window needs ``DISPLAY`` (or ``WAYLAND_DISPLAY``) and an X server answering there
  (:func:`display_reachable`: Qt aborts just the same on ``DISPLAY=:99`` with nobody
  there); ``QT_QPA_PLATFORM`` set to anything but xcb is the user's choice and is left
  alone;
- ``accord open --screenshot`` needs no window: where the window could not open it uses
  the offscreen platform and says why in one line (:func:`screenshot_platform`).

``python -m app.platform_check [--install]`` prints the missing libraries (exit 1 when
some are), and with ``--install``, as root where ``apt-get`` exists, installs them
(``scripts/setup`` runs it). Only Linux is checked: elsewhere Qt brings its platform.

Audio playback (the tiers view's Play button) is checked the same way when Qt Multimedia
is installed (the ``audio`` extra): ``libQt6Multimedia`` and its FFmpeg plugin link to
PulseAudio's client library, which a bare Debian lacks (``libpulse0``). Its absence never
stops the window; it gets its own line, and the view says playback is off.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import socket
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

PACKAGES = {
    "libxcb-cursor.so.0": "libxcb-cursor0", "libxcb-icccm.so.4": "libxcb-icccm4",
    "libxcb-image.so.0": "libxcb-image0", "libxcb-keysyms.so.1": "libxcb-keysyms1",
    "libxcb-randr.so.0": "libxcb-randr0", "libxcb-render-util.so.0": "libxcb-render-util0",
    "libxcb-shape.so.0": "libxcb-shape0", "libxcb-xinerama.so.0": "libxcb-xinerama0",
    "libxcb-xkb.so.1": "libxcb-xkb1", "libxcb-util.so.1": "libxcb-util1",
    "libxcb-render.so.0": "libxcb-render0", "libxcb-shm.so.0": "libxcb-shm0",
    "libxcb-sync.so.1": "libxcb-sync1", "libxcb-xfixes.so.0": "libxcb-xfixes0",
    "libxcb-glx.so.0": "libxcb-glx0", "libxcb.so.1": "libxcb1",
    "libxkbcommon-x11.so.0": "libxkbcommon-x11-0", "libxkbcommon.so.0": "libxkbcommon0",
    "libX11-xcb.so.1": "libx11-xcb1", "libX11.so.6": "libx11-6", "libSM.so.6": "libsm6",
    "libICE.so.6": "libice6", "libdbus-1.so.3": "libdbus-1-3", "libEGL.so.1": "libegl1",
    "libGL.so.1": "libgl1", "libOpenGL.so.0": "libopengl0", "libGLX.so.0": "libglx0",
    "libfontconfig.so.1": "libfontconfig1", "libfreetype.so.6": "libfreetype6",
    "libglib-2.0.so.0": "libglib2.0-0", "libpulse.so.0": "libpulse0",
}
"""soname → the Debian/Ubuntu package that provides it."""


def xcb_libraries() -> list[Path]:
    """PySide6's X11 platform plugin and its Qt library (those that exist)."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return []
    qt = Path(spec.origin).parent / "Qt"
    candidates = [qt / "plugins" / "platforms" / "libqxcb.so", *sorted(
        (qt / "lib").glob("libQt6XcbQpa.so*"))]
    return [p for p in candidates if p.is_file()][:2]


def multimedia_libraries() -> list[Path]:
    """Qt Multimedia's library and its FFmpeg plugin, when the audio extra is installed."""
    spec = importlib.util.find_spec("PySide6")
    if spec is None or spec.origin is None:
        return []
    qt = Path(spec.origin).parent / "Qt"
    candidates = [*sorted((qt / "lib").glob("libQt6Multimedia.so*"))[:1],
                  *sorted((qt / "plugins" / "multimedia").glob("*.so"))]
    return [p for p in candidates if p.is_file()]


def not_found(ldd_output: str) -> list[str]:
    """The sonames ``ldd`` reports as ``not found``, in order, once each."""
    found: list[str] = []
    for line in ldd_output.splitlines():
        name, _, rest = line.strip().partition("=>")
        if "not found" in rest and name.strip() not in found:
            found.append(name.strip())
    return found


def missing_libraries(libraries: Sequence[Path] | None = None) -> list[str]:
    """System libraries Qt's xcb platform needs and cannot find (``[]``: none, or not
    checkable here)."""
    if not sys.platform.startswith("linux") or shutil.which("ldd") is None:
        return []
    out: list[str] = []
    for library in xcb_libraries() if libraries is None else libraries:
        try:
            run = subprocess.run(["ldd", str(library)], capture_output=True, text=True,
                                 timeout=30, check=False)
        except (OSError, subprocess.SubprocessError):
            continue
        out += [name for name in not_found(run.stdout) if name not in out]
    return out


def packages_for(sonames: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(PACKAGES.get(name, name) for name in sonames))


def install_line(sonames: Sequence[str]) -> str:
    return ("Qt's window (its xcb platform) cannot load " + ", ".join(sonames)
            + "; install them with: sudo apt-get install -y " + " ".join(packages_for(sonames)))


def audio_line(sonames: Sequence[str]) -> str:
    return ("audio playback in the tiers view (Qt Multimedia) cannot load "
            + ", ".join(sonames) + "; install with: sudo apt-get install -y "
            + " ".join(packages_for(sonames)) + " (everything else works without it)")


def display_reachable(display: str, timeout: float = 2.0) -> bool:
    """Whether an X server answers at ``display`` (``:0``, ``unix:1``, ``host:10.0``):
    the local socket (``/tmp/.X11-unix/X<n>``, or its abstract twin) or TCP port
    6000 + n. A value that does not parse is given the benefit of the doubt (Qt then
    decides): only a display that is surely absent is reported."""
    match = re.fullmatch(r"(?P<host>[^:]*):(?P<number>\d+)(?:\.\d+)?", display.strip())
    if match is None:
        return True
    host, number = match["host"], int(match["number"])
    if host in ("", "unix"):
        path = f"/tmp/.X11-unix/X{number}"
        for address in (path, "\0" + path):
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as unix:
                unix.settimeout(timeout)
                try:
                    unix.connect(address)
                except OSError:
                    continue
                return True
        if host == "unix":
            return False
        host = "localhost"
    try:
        socket.create_connection((host, 6000 + number), timeout=timeout).close()
    except OSError:
        return False
    return True


def window_problem(env: Mapping[str, str] | None = None,
                   missing: Sequence[str] | None = None,
                   reachable: bool | None = None) -> str | None:
    """Why Qt cannot open a window here, in one sentence; ``None`` when it can.
    ``missing`` and ``reachable`` stand for the checks of the libraries and of the
    display (tests); ``None`` runs them."""
    env = os.environ if env is None else env
    platform = env.get("QT_QPA_PLATFORM", "")
    if platform and not platform.startswith("xcb"):
        return None
    if not sys.platform.startswith("linux"):
        return None
    display = env.get("DISPLAY", "")
    if not display:
        if env.get("WAYLAND_DISPLAY") and not platform:
            return None
        return ("no display to open a window on (DISPLAY is not set): run Accord in a "
                "desktop session, under xvfb-run, or use 'accord open PROJECT --screenshot "
                "FILE.png', which needs none")
    reason = _display_reason(display, missing, reachable)
    if reason is None or reason.startswith("Qt's window"):
        return reason
    return (f"{reason}: start Accord in that desktop session, under xvfb-run, or use "
            "'accord open PROJECT --screenshot FILE.png', which needs none")


def _display_reason(display: str, missing: Sequence[str] | None,
                    reachable: bool | None) -> str | None:
    """Why the xcb platform cannot start on ``display``: its libraries (with the line
    that installs them), or no X server there; ``None`` when it can."""
    lacking = missing_libraries() if missing is None else list(missing)
    if lacking:
        return install_line(lacking)
    if not (display_reachable(display) if reachable is None else reachable):
        return f"no X server answers on the display DISPLAY={display}"
    return None


def screenshot_platform(env: Mapping[str, str] | None = None,
                        missing: Sequence[str] | None = None,
                        reachable: bool | None = None) -> tuple[str | None, str | None]:
    """The Qt platform ``accord open --screenshot`` should use, and a note why.

    A picture needs no window: with no display, or a display whose xcb platform cannot
    load its libraries or reach its X server, it is rendered with Qt's ``offscreen``
    platform (the note says why, in the one line ``accord open`` would print), never
    Qt's abort (exit 134). ``(None, None)``: Qt's own choice (a working display, or a
    platform the user chose). A platform set to xcb on purpose is not overridden:
    :func:`window_problem` then reports it as for a window."""
    env = os.environ if env is None else env
    if env.get("QT_QPA_PLATFORM") or not sys.platform.startswith("linux"):
        return None, None
    if not env.get("DISPLAY"):
        return (None, None) if env.get("WAYLAND_DISPLAY") else ("offscreen", None)
    reason = _display_reason(env["DISPLAY"], missing, reachable)
    if reason is None:
        return None, None
    return "offscreen", f"{reason}; the picture is rendered offscreen instead"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    lacking = missing_libraries()
    audio = missing_libraries(multimedia_libraries())
    if not lacking and not audio:
        return 0
    if "--install" in args and hasattr(os, "geteuid") and os.geteuid() == 0 \
            and shutil.which("apt-get"):
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run(["apt-get", "update", "-qq"], check=False, env=env)
        subprocess.run(["apt-get", "install", "-y", "-qq", *packages_for([*lacking, *audio])],
                       check=False, env=env)
        lacking = missing_libraries()
        audio = missing_libraries(multimedia_libraries())
        if not lacking and not audio:
            return 0
    if lacking:
        print(f"accord: {install_line(lacking)}", file=sys.stderr)
    if audio:
        print(f"accord: {audio_line(audio)}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
