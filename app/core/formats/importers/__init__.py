"""Importers of other tools' exports (``formats.md``, "Other tools' exports";
``accord import``).

Each format is one module here with ``read(sources, annotators) -> ImportedStudy``
(:mod:`.model`), listed in :mod:`.registry`; :mod:`.writer` writes the study as a
Potato-layout project, so every other part of Accord reads it through
:mod:`app.core.formats.potato` with no special case.
"""
