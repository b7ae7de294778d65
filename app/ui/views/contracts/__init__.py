"""The contracts panel: cards (``view.py``), their words (``text.py``), plots and badges."""
