"""Runtime hook of the frozen Accord: runs before the app's first import.

- Qt's OpenGL programs are cached on disk by default (``~/.cache/qtshadercache-*``, written
  when the 3D view first draws). The frozen app promises to write nothing outside the
  project folder and its own settings folder (issue 18), so the cache is off: the 3D view's
  few shaders compile in milliseconds.
- Fonts: Qt draws text (and QPdfWriter embeds it in the certificates) with the fonts
  fontconfig finds. A Linux machine without any (a bare server, a minimal container)
  would get windows and PDFs without text, so there the bundle's DejaVu fonts are used
  (``resources/fonts/fonts.conf``); on every other machine the system's fonts are left
  alone.
A user's own setting of either variable wins.
"""

import os
import sys
from pathlib import Path

os.environ.setdefault("QT_DISABLE_SHADER_DISK_CACHE", "1")

FONT_DIRS = ("/usr/share/fonts", "/usr/local/share/fonts", "~/.local/share/fonts", "~/.fonts")
FONT_SUFFIXES = (".ttf", ".otf", ".ttc", ".pfb", ".pcf", ".pcf.gz", ".otb")


def system_has_fonts() -> bool:
    """True at the first font file under the usual folders (fast: it stops there)."""
    for folder in FONT_DIRS:
        for _root, _dirs, files in os.walk(Path(folder).expanduser()):
            if any(name.lower().endswith(FONT_SUFFIXES) for name in files):
                return True
    return False


bundled = Path(getattr(sys, "_MEIPASS", "")) / "resources" / "fonts" / "fonts.conf"
if (
    sys.platform.startswith("linux")
    and "FONTCONFIG_FILE" not in os.environ
    and bundled.is_file()
    and not system_has_fonts()
):
    os.environ["FONTCONFIG_FILE"] = str(bundled)
