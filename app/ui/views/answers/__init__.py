"""The answers view: every answer on an item, side by side (``view.py``), and its table."""
