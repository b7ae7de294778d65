"""The report's side of the kind table: each agreement kind's words, keyed by its name.

The core's table (``app/core/agreement/kinds/``) says what a kind reads and computes;
the words a report prints for it (which metric heads it, what its κ is called) are the
report's, so they live here, one row per kind in ``words.py``; ``potato_values.py``
writes the numbers Potato 2.12.1 itself gives a scheme (``potato_iaa``) beside Accord's.
"""
