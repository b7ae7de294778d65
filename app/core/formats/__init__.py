"""Readers of files on disk → the model (:mod:`app.core.model`), one folder per source.

- ``potato/``: a Potato project folder (``config.yaml``, data files, ``user_state.json``).
- ``labeling/``: Accord's labelling files (``labeling/*.jsonl``).
- ``importers/``: other tools' exports (``formats.md``, "Other tools' exports").
- ``media/``: the media a view draws under the annotations (point clouds, sound).
- ``reading/``: the room every reader reads through, one entry per kind of file (a
  JSON file, JSON Lines, YAML, text, a media file, a database, a path named in a
  file), over the one door every file is opened through (``reading/boundary.py``:
  inside the project, a regular file, bounded in size) and the bounds of what is
  parsed (``reading/nesting.py``: depth, integer length, YAML aliases).

Every reader raises :class:`~app.core.errors.InputError` naming the file, line or key.
"""
