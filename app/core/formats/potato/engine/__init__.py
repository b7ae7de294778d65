"""Potato 2.12.1's labelling engine database, ``engine.sqlite``: the engine reader's room.

``potato/`` holds twenty modules, the most a folder may hold; the engine's readers that
are new (``people.py``: the people who labelled in the engine, as annotators) start here,
and the older ``engine_*.py`` readers beside ``project.py`` belong here too.
"""
