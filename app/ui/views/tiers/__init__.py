"""The tiers and segments view (``view.py``) and its timeline item (``timeline.py``)."""
