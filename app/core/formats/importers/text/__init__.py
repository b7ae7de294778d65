"""Importers of span studies, the text formats NER teams export (``accord import brat``,
``conll``, ``doccano``; Label Studio's ``labels`` on text through
:mod:`.label_studio_spans`).

Each reads its tool's files into an :class:`~app.core.formats.importers.model.ImportedStudy`
with one Potato ``span`` scheme (:mod:`.spans` gathers the spans, checks every offset
against the item's text and builds the study), which
:mod:`~app.core.formats.importers.writer` writes as Potato's server would.
"""
