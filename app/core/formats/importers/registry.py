"""The import formats by name: each is a module of this package with one function,
``read(sources, annotators) -> ImportedStudy``.

``sources`` are the files or folders as the user gave them; ``annotators`` the
``--annotator`` names given in the same positions (empty: the names come from the
format, or from each source's file or folder name). Modules are imported only when their
format is used, so a missing optional parser costs nothing until then.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from pathlib import Path

from app.core.errors import InputError
from app.core.formats.importers.model import ImportedStudy

FORMATS: dict[str, str] = {
    "labelstudio": "label_studio", "cvat": "cvat", "coco": "coco", "eaf": "eaf",
    "textgrid": "textgrid", "rttm": "rttm", "kitti": "kitti", "nuscenes": "nuscenes",
    "traces": "traces", "brat": "text.brat", "conll": "text.conll", "doccano": "text.doccano",
    "cvat-video": "tracks.cvat_video", "mot": "tracks.mot", "nifti": "volumes.nifti",
}
"""Format name (``cli.md``) → module of this package."""
FORMAT_LABELS: dict[str, str] = {
    "labelstudio": "Label Studio JSON", "cvat": "CVAT for images 1.1 XML",
    "coco": "COCO JSON", "eaf": "ELAN .eaf", "textgrid": "Praat TextGrid",
    "rttm": "RTTM speaker turns", "kitti": "KITTI 3D labels", "nuscenes": "nuScenes tables",
    "traces": "Trace review log (JSON Lines)", "brat": "brat standoff (.ann + .txt)",
    "conll": "CoNLL 2003 BIO columns", "doccano": "doccano JSONL (sequence labeling)",
    "cvat-video": "CVAT for video 1.1 XML (tracks)", "mot": "MOT Challenge gt.txt (tracks)",
    "nifti": "NIfTI label maps (volumes)",
}
"""Format name → what File › Import… calls it."""
FORMAT_HINTS: dict[str, str] = {
    "labelstudio": "The JSON or JSON-MIN export; its annotators come from the file "
                   "(completed_by, annotator).",
    "cvat": "One XML file (a job) per annotator.",
    "coco": "One JSON file per annotator; images are matched by file_name.",
    "eaf": "A folder per annotator with one .eaf per item; tiers with a PARTICIPANT or "
           "ANNOTATOR name their coders themselves.",
    "textgrid": "A folder per annotator with one .TextGrid per item (text or binary).",
    "rttm": "One .rttm file per annotator.",
    "kitti": "Per annotator: a label_2 folder (calib/ and velodyne/ beside it are used), "
             "a folder holding one, or a plain folder of <item>.txt labels (no calib).",
    "nuscenes": "A folder of nuScenes tables per annotator.",
    "traces": "One JSON Lines review log per reviewer.",
    "brat": "A folder of .ann files beside their .txt documents per annotator.",
    "conll": "One CoNLL file per annotator (token first, BIO tag last); sentences are items.",
    "doccano": "One <username>.jsonl of doccano's export per annotator.",
    "cvat-video": "One XML file (a job on one video) per annotator; the frame size comes "
                  "from its original_size.",
    "mot": "Per annotator a gt.txt, a sequence folder or a folder of sequences; the frame "
           "size comes from seqinfo.ini.",
    "nifti": "A folder of <item>.nii.gz label maps per annotator (or a user folder of "
             "Potato's volume_nifti export); names from labels.json.",
}
"""Format name → the sentence File › Import… shows under the format."""
KITTI_LABELS = "label_2"
"""The KITTI object benchmark's folder of label files."""


def read_study(format_name: str, sources: Sequence[Path], annotators: Sequence[str]
               ) -> ImportedStudy:
    """The study in ``sources``, read by the importer of ``format_name``."""
    module = FORMATS.get(format_name)
    if module is None:
        raise InputError(f"unknown format '{format_name}'; expected one of "
                         f"{', '.join(FORMATS)}", key="FORMAT")
    if annotators and len(annotators) != len(sources):
        raise InputError(f"{len(annotators)} --annotator names for {len(sources)} sources; "
                         "expected one name per source, in the same order", key="--annotator")
    for source in sources:
        if not source.exists():
            raise InputError("not found; expected a file or folder to import", file=source)
    reader = importlib.import_module(f"app.core.formats.importers.{module}")
    study: ImportedStudy = reader.read(list(sources), list(annotators))
    return study


def annotator_names(sources: Sequence[Path], annotators: Sequence[str]) -> list[str]:
    """Each source's annotator: the given name, else the file's stem or the folder's
    name (of a KITTI ``label_2`` folder, its parent's: every annotator's is called
    ``label_2``); two sources with the same name are an error."""
    names = list(annotators) if annotators else [
        s.stem if s.is_file() else s.parent.name if s.name == KITTI_LABELS else s.name
        for s in sources]
    seen: dict[str, Path] = {}
    for name, source in zip(names, sources, strict=True):
        if not name or name.startswith("."):
            raise InputError(f"'{name}' cannot be an annotator's folder name; give "
                             "--annotator NAME", file=source)
        if name in seen:
            raise InputError(f"two sources are both annotator '{name}' ({seen[name]} and "
                             f"{source}); give --annotator names", file=source)
        seen[name] = source
    return names
