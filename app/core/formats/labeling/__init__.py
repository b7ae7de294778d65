"""Accord's labelling files, ``labeling/*.jsonl`` (``formats.md``, ``contracts.md``): the
readers (``reader.py``), the predictions as columns (``table.py``), the data in memory
(``data.py``) and labels → model answers (``answers.py``)."""
