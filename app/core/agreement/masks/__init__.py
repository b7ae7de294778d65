"""Masks: STAPLE as ITK computes it, majority vote and Dice (``staple.py``), and the masks
part of a report (``report.py``)."""
