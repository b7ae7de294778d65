"""Agreement on sets of objects: cuboids, segments, tiers, regions.

``matching.py`` matches two annotators' objects one to one, ``agreement.py`` scores the
matched sets (mean agreement, count difference, F1, matched IoU, the comparison budget),
and ``structured.py`` chooses per kind which objects, similarity and threshold."""
