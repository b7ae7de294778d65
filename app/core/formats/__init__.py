"""Readers of files on disk → the model (:mod:`app.core.model`), one folder per source.

- ``potato/``: a Potato project folder (``config.yaml``, data files, ``user_state.json``).
- ``labeling/``: Accord's labelling files (``labeling/*.jsonl``).
- ``importers/``: other tools' exports (``formats.md``, "Other tools' exports").

Beside them, the helpers every reader shares: the one door every file is read through
(``boundary.py``: inside the project, a regular file, bounded in size), the bounds of
what is parsed (``nesting.py``: depth, integer length, YAML aliases), safe paths and
JSON/YAML with places (``files.py``, ``yaml_lines.py``, ``json_lines.py``,
``json_pieces.py``) and the media a view draws under the annotations (``media.py``).
Every reader raises :class:`~app.core.errors.InputError` naming the file, line or key.
"""
