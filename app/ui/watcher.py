"""Watch a project folder and say, once, when its annotations or labels changed.

``QFileSystemWatcher`` reports every write (an editor saving, Potato appending a line)
and one save can be several events, so :class:`ProjectWatcher` waits until the folder
has been quiet for ``DEBOUNCE_MS`` and emits ``changed`` once.

What is watched: the project folder, ``config.yaml``, every folder under the
annotation output folder (``annotations/`` by default, each annotator's folder and its
files), ``labeling/`` with its files, and Potato's ``engine.sqlite`` with its WAL (a
Potato engine project keeps its labels there). Folders are re-scanned on each change so
a new annotator's folder is picked up.

What is ignored, because Accord writes it itself and must not trigger its own reload:
``labeling/ledger.jsonl`` (and its temporary siblings from atomic writes) and anything
under ``.accord/``. A folder event does not say which child changed, so the debounced
signal is only emitted when the :func:`fingerprint` (mtime and size of every watched
file) differs from the last one. :meth:`ignore_next` lets the window mute the watcher for a moment
while a certification it started writes the ledger.
"""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

DEBOUNCE_MS = 500
IGNORED_NAMES = ("ledger.jsonl",)
IGNORED_PARTS = (".accord", "__pycache__")


def is_ignored(path: Path, root: Path) -> bool:
    """True for Accord's own writes (the ledger, its temporaries, ``.accord/``)."""
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        return True
    if any(part in IGNORED_PARTS for part in parts):
        return True
    name = path.name
    return any(name == n or (name.startswith(f".{n}") or name.startswith(f"{n}.")) for n in
               IGNORED_NAMES)


def watched_paths(root: Path) -> list[Path]:
    """The folders and files of ``root`` whose change means a reload."""
    out: list[Path] = [root]
    config = root / "config.yaml"
    if config.is_file():
        out.append(config)
    out.extend(p for p in (root / "engine.sqlite", root / "engine.sqlite-wal") if p.is_file())
    for folder in (_annotation_dir(root), root / "labeling"):
        if not folder.is_dir():
            continue
        for path in [folder, *sorted(folder.rglob("*"))]:
            if not is_ignored(path, root):
                out.append(path)
    return out


def _annotation_dir(root: Path) -> Path:
    """``output_annotation_dir`` of config.yaml when it is a plain relative path."""
    config = root / "config.yaml"
    try:
        for line in config.read_text(encoding="utf-8").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "output_annotation_dir" and value.strip():
                name = value.strip().strip("'\"")
                candidate = (root / name).resolve()
                if candidate.is_relative_to(root.resolve()):
                    return candidate
    except OSError:
        pass
    return root / "annotations"


def fingerprint(root: Path) -> dict[str, tuple[int, int]]:
    """Modification time and size of every watched file: a folder event (which does not
    say which child changed) only counts when this differs."""
    out: dict[str, tuple[int, int]] = {}
    for path in watched_paths(root):
        try:
            if path.is_file():
                stat = path.stat()
                out[str(path)] = (stat.st_mtime_ns, stat.st_size)
        except OSError:
            continue
    return out


class ProjectWatcher(QObject):
    changed = Signal()
    """The watched files changed and have been quiet for ``DEBOUNCE_MS``."""

    def __init__(self, parent: QObject | None = None, debounce_ms: int = DEBOUNCE_MS) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.fileChanged.connect(self._touched)
        self._watcher.directoryChanged.connect(self._touched)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self._fire)
        self._root: Path | None = None
        self._muted_until = 0.0
        self._fingerprint: dict[str, tuple[int, int]] = {}

    @property
    def root(self) -> Path | None:
        return self._root

    def watch(self, root: Path | None) -> None:
        """Watch ``root`` (replacing the previous folder); ``None`` stops watching."""
        self.stop()
        self._root = root.resolve() if root is not None else None
        self._rescan()
        self._fingerprint = fingerprint(self._root) if self._root is not None else {}

    def stop(self) -> None:
        self._timer.stop()
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
        self._root = None

    def ignore_next(self, seconds: float = 2.0) -> None:
        """Ignore changes for ``seconds`` (Accord is writing the ledger itself)."""
        self._muted_until = time.monotonic() + seconds

    def _rescan(self) -> None:
        if self._root is None or not self._root.is_dir():
            return
        current = set(self._watcher.files() + self._watcher.directories())
        new = [str(p) for p in watched_paths(self._root) if str(p) not in current]
        if new:
            self._watcher.addPaths(new)

    def _touched(self, name: str) -> None:
        if self._root is None or is_ignored(Path(name), self._root):
            return
        if time.monotonic() < self._muted_until:
            return
        self._timer.start()

    def _fire(self) -> None:
        self._rescan()
        if self._root is None:
            return
        now = fingerprint(self._root)
        if now != self._fingerprint:
            self._fingerprint = now
            self.changed.emit()
