"""The certificate's inputs: every file the project's numbers were computed from, hashed.

A certificate names each input by its path relative to the project folder, its role,
its size and its SHA-256, so ``accord verify --project`` can say *which* file changed,
not only that something did. The ledger is summarised by its head hash, the SHA-256 of
its last line (what the next line would chain from), so a look added, removed or
altered changes the certificate even before the file hashes are compared.

Choices where the spec is silent:

- Roles: ``config`` (the Potato configuration), ``data`` (each data file, in the
  configuration's order), ``annotations`` (the file the reader takes from each
  annotator folder: ``user_state.json``, else ``annotated_instances.jsonl``),
  ``engine`` (``labeling/engine.yaml``), ``potato_engine`` (Potato's ``engine.sqlite``
  and its ``-wal`` as they are on disk: a checkpoint moves bytes between the two, so a
  certificate of a live project shows them changed even when no row did),
  ``labeling`` (``predictions.jsonl``, ``requests.jsonl``, ``annotators.jsonl``),
  ``ledger`` (``labeling/ledger.jsonl`` or, in a Potato project, ``.accord/ledger.jsonl``,
  and ``.accord/ledger-head``). Potato's ``labeling_engine/`` and ``pocket/`` folders
  are not annotators. A labeling file that does not exist is simply not listed (the
  readers treat it as empty); creating it later shows as a new input.
- Media files (images, audio, point clouds) are not hashed: agreement and contracts read
  the annotations, not the pixels, and hashing gigabytes of media would make a
  certificate of a 100,000-item study slow for no stated promise.
- Files are hashed after the project was read, not during: a file changed in between
  shows as a mismatch at the next ``verify --project``, never as a silent pass.
- Paths use ``/`` on every platform so a certificate verifies the same on Windows.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from app.core.contracts.config.engine_config import ENGINE_FILE
from app.core.contracts.ledger.format import GENESIS, HEAD_FILE, ledger_file, line_hash
from app.core.formats.labeling.reader import (
    ANNOTATORS_FILE,
    PREDICTIONS_FILE,
    REQUESTS_FILE,
    labeling_dir,
)
from app.core.formats.potato.config import read_config
from app.core.formats.potato.project import (
    ENGINE_DATABASE,
    LEGACY_FILE,
    NOT_ANNOTATORS,
    STATE_FILE,
)
from app.core.formats.reading.boundary import UNBOUNDED, open_checked, present, read_bytes
from app.core.progress import Job, Progress

CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class InputFile:
    role: str
    path: Path


def hash_file(path: Path, root: Path | None = None) -> tuple[str, int]:
    """(hex SHA-256, size in bytes), read in 1 MiB chunks through the reader boundary: a
    file hashed for the certificate is one the readers would read (inside ``root``, a
    regular file), so a link out of the project is refused, never hashed."""
    digest = hashlib.sha256()
    size = 0
    with open_checked(path, root=root, limit=UNBOUNDED) as handle:
        while chunk := handle.read(CHUNK):
            digest.update(chunk)
            size += len(chunk)
    return digest.hexdigest(), size


def project_root(project: Path) -> Path:
    """The folder that holds the configuration (relative paths resolve against it)."""
    return project if project.is_dir() else project.parent


def input_files(project: Path) -> list[InputFile]:
    """Every input of the project, in a fixed order (roles as in the module docstring)."""
    config = read_config(project)
    root = project_root(project)
    files = [InputFile("config", config.path)]
    files.extend(InputFile("data", p) for p in config.data_files)
    if config.output_dir.is_dir():
        for folder in sorted(config.output_dir.iterdir()):
            if not folder.is_dir() or folder.name.startswith(".") \
                    or folder.name in NOT_ANNOTATORS:
                continue
            for name in (STATE_FILE, LEGACY_FILE):
                if (folder / name).is_file():
                    files.append(InputFile("annotations", folder / name))
                    break
    engine = root / ENGINE_FILE
    if engine.is_file():
        files.append(InputFile("engine", engine))
    for name in (ENGINE_DATABASE, ENGINE_DATABASE + "-wal"):
        if (config.task_dir / name).is_file():  # Potato's engine state, hashed as it is
            files.append(InputFile("potato_engine", config.task_dir / name))
    labeling = labeling_dir(project)
    for name in (PREDICTIONS_FILE, REQUESTS_FILE, ANNOTATORS_FILE):
        if (labeling / name).is_file():
            files.append(InputFile("labeling", labeling / name))
    for path in (root / ledger_file(root), root / HEAD_FILE):
        if path.is_file():
            files.append(InputFile("ledger", path))
    return files


def relative_name(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:  # outside the project (the readers refuse this; be safe anyway)
        return path.as_posix()


def hash_inputs(project: Path) -> Job[list[dict[str, object]]]:
    """``[{"path", "role", "sha256", "bytes"}]`` for every input, yielding per file."""
    root = project_root(project)
    files = input_files(project)
    out: list[dict[str, object]] = []
    for i, f in enumerate(files):
        yield Progress(i, len(files), f"hashing {f.path.name}")
        digest, size = hash_file(f.path, root)
        out.append({"path": relative_name(f.path, root), "role": f.role, "sha256": digest,
                    "bytes": size})
    yield Progress(len(files), len(files), "inputs hashed")
    return out


def ledger_summary(project: Path) -> dict[str, object]:
    """The ledger's head: ``{"head", "lines", "head_file"}``.

    ``head`` is the SHA-256 of the last line's bytes (newline excluded), the hash the next
    look would chain from; the genesis hash when there is no ledger or it is empty.
    ``head_file`` is the text of ``.accord/ledger-head`` (``"<lines> <hash>"``) or ``None``.
    """
    root = project_root(project)
    ledger = root / ledger_file(root)
    raw = read_bytes(ledger, root=root) if present(ledger) else b""  # a FIFO is refused
    lines = [line for line in raw.split(b"\n") if line.strip()]
    head_path = root / HEAD_FILE
    head_text = read_bytes(head_path, root=root).decode("ascii", errors="replace").strip() \
        if present(head_path) else None
    return {"head": line_hash(lines[-1]) if lines else GENESIS, "lines": len(lines),
            "head_file": head_text}
