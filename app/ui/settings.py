"""What the desktop app remembers between runs, behind one small injected object.

The window never touches ``QSettings`` directly: it is handed a :class:`Settings`, so a
test passes one backed by a file in its temporary folder and never reads or writes the
user's real settings (``tests/ui/conftest.py`` also redirects the default location).

Choices where the design is silent:

- INI format, always (``QSettings.IniFormat``), in the user scope under the
  organization and application names of :mod:`app.ui.app`: the same on every platform
  and readable by a person.
- Recent projects: most recent first, at most ``MAX_RECENT``, folders that no longer
  exist dropped when read. The last project is the first recent one.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QByteArray, QSettings

ORGANIZATION = "Accord"
APPLICATION = "Accord"
MAX_RECENT = 8


class Settings:
    """Recent projects, the last project, window geometry and dock state."""

    def __init__(self, store: QSettings | None = None) -> None:
        self.store = store if store is not None else QSettings(
            QSettings.Format.IniFormat, QSettings.Scope.UserScope, ORGANIZATION, APPLICATION)

    @classmethod
    def at(cls, path: Path) -> Settings:
        """Settings kept in one INI file (tests, headless screenshots)."""
        return cls(QSettings(str(path), QSettings.Format.IniFormat))

    def recent_projects(self) -> list[Path]:
        value = self.store.value("recent_projects", [])
        if isinstance(value, str):
            names = [value]
        elif isinstance(value, list | tuple):
            names = [str(v) for v in value]
        else:
            names = []
        return [Path(n) for n in names if n and Path(n).is_dir()]

    def add_recent(self, path: Path) -> None:
        path = path.resolve()
        recent = [p for p in self.recent_projects() if p.resolve() != path]
        self.store.setValue("recent_projects", [str(p) for p in [path, *recent][:MAX_RECENT]])
        self.store.sync()

    def clear_recent(self) -> None:
        self.store.remove("recent_projects")
        self.store.sync()

    def last_project(self) -> Path | None:
        recent = self.recent_projects()
        return recent[0] if recent else None

    def window_geometry(self) -> QByteArray | None:
        return self._bytes("window/geometry")

    def window_state(self) -> QByteArray | None:
        return self._bytes("window/state")

    def save_window(self, geometry: QByteArray, state: QByteArray) -> None:
        self.store.setValue("window/geometry", geometry)
        self.store.setValue("window/state", state)
        self.store.sync()

    def _bytes(self, key: str) -> QByteArray | None:
        value = self.store.value(key)
        if isinstance(value, QByteArray) and not value.isEmpty():
            return value
        if isinstance(value, bytes) and value:
            return QByteArray(value)
        return None
