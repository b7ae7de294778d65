"""Potato's project folder: ``config.yaml``, its data files and each annotator's
``user_state.json`` → a :class:`~app.core.model.Study` (``project.py`` is the entry point)."""
