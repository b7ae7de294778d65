"""The consensus export: per item and scheme, what the annotators agree on, and who.

``accord agreement PROJECT --consensus FILE.jsonl`` and File › Export consensus… write
it. Pure core (no Qt): :mod:`.export` is the generator job over a study's schemes,
:mod:`.categorical` the labels (majority with ties named, or Dawid–Skene),
:mod:`.objects` and :mod:`.geometry` the matched-object clusters and their consensus
shapes, :mod:`.masks` STAPLE's masks as COCO RLE, :mod:`.writer` the JSON Lines file
(atomic, never inside the project). Each module's docstring gives its rules.

Row shapes
----------
One JSON object per line. Every row has ``item``, ``scheme``, ``kind`` (the agreement
kind), ``method``, ``n_annotators`` (who answered the scheme on that item, or labelled
that step), ``consensus`` and ``agreed_by`` (sorted names). ``consensus`` is ``null``
only with a ``reason`` sentence (one annotator, a tie, masks of different sizes).

nominal, ordinal (and ``trace`` with ``"step": KEY``)::

    {"item": "i1", "scheme": "sentiment", "kind": "nominal", "method": "majority",
     "n_annotators": 3, "consensus": "pos", "agreed_by": ["ana", "ben"],
     "votes": {"neg": ["cy"], "pos": ["ana", "ben"]},
     "answers": {"ana": "pos", "ben": "pos", "cy": "neg"}}
    # a tie:
    {..., "consensus": null, "agreed_by": [], "tie": ["neg", "pos"],
     "reason": "the labels in 'tie' share the most votes: no majority", ...}

multilabel (``consensus``: the labels more than half chose; exactly half: ``tie``)::

    {..., "kind": "multilabel", "method": "majority", "consensus": ["a", "b"],
     "agreed_by": ["ana"], "tie": ["c"], "reason": "...",
     "votes": {"a": [...], "b": [...], "c": [...]}, "answers": {"ana": ["a", "b"], ...}}

cuboids, segments, tiers, regions (``method``: ``"matched clusters"``)::

    {..., "kind": "cuboids", "threshold": 0.25, "n_annotators": 3,
     "consensus": [{"label": "car", "label_votes": {"car": ["a", "b"]},
                    "geometry": {"type": "cuboid", "center": [x, y, z],
                                 "size": [l, w, h], "rotation": [qx, qy, qz, qw],
                                 "yaw": 0.31},
                    "rule": "median centre and size, circular mean of the yaw (upright)",
                    "agreed_by": ["a", "b"], "missed_by": ["c"]}],
     "agreed_by": [...],
     "minority": [{"label": ..., "label_votes": ..., "geometry": ..., "rule": ...,
                   "found_by": ["c"], "missed_by": ["a", "b"], "reason": "..."}]}

  ``geometry`` by type: ``segment`` (``start``, ``end`` in seconds, ``tier`` for tiers),
  ``box`` (``x``, ``y``, ``width``, ``height``, normalized, top-left), ``ellipse``
  (``cx``, ``cy``, ``rx``, ``ry``, ``angle_deg``), ``polygon`` / ``keypoints`` / ``path``
  (``points``), ``landmark`` (``x``, ``y``), ``cuboid`` (metres), ``point3d``,
  ``polyline3d``, ``segment3d``. A label tie: ``"label": null, "label_tie": [...]``.

masks (``method``: ``"staple"``; scheme ``NAME#masks`` beside a regions scheme)::

    {..., "kind": "masks", "consensus": [{"label": "road",
        "rle": {"size": [h, w], "counts": "<COCO RLE>", "area": 1234,
                "bbox": [x, y, w, h]},
        "agreed_by": [...], "missed_by": [...],
        "raters": {"ana": {"sensitivity": 0.97, "specificity": 0.99, "dice": 0.95}}}],
     "agreed_by": [...], "minority": [{"label": ..., "found_by": [...], ...}]}
"""
