"""Importers of video track studies (``accord import cvat-video``, ``mot``).

Each reads its tool's files into an :class:`~app.core.formats.importers.model.ImportedStudy`
with one Potato ``video_annotation`` scheme in tracking mode (:mod:`.study` gathers the
tracks, checks every box against the frame and builds Potato's stored shape), which
:mod:`~app.core.formats.importers.writer` writes as Potato's server would.
"""
