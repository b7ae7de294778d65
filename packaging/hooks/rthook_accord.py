"""Runtime hook of the frozen Accord: runs before the app's first import.

Qt's OpenGL programs are cached on disk by default (``~/.cache/qtshadercache-*``, written
when the 3D view first draws). The frozen app promises to write nothing outside the
project folder and its own settings folder (issue 18), so the cache is off: the 3D view's
few shaders compile in milliseconds. A user's own setting of the variable wins.
"""

import os

os.environ.setdefault("QT_DISABLE_SHADER_DISK_CACHE", "1")
