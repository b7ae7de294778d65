"""Importers of other tools' exports (CVAT, Label Studio, COCO, ELAN, Praat, RTTM, KITTI,
nuScenes, agent-trace logs; ``formats.md``, "Other tools' exports").

Each importer will be one module here that reads its tool's files and writes a
Potato-layout project, so every other part of Accord reads it through
:mod:`app.core.formats.potato` with no special case. None is written yet: ``accord
import`` arrives with the importers issue.
"""
