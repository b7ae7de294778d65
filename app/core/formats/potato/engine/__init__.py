"""Potato 2.12.1's labelling engine database, ``engine.sqlite``: the engine reader's room.

One folder for the reader because it is the part of ``potato/`` that grows (a million-item
database read column-wise, on threads of its own) and ``potato/`` may hold twenty modules
at most: ``store.py`` opens the database and reads it whole; ``answers.py``,
``columns.py``, ``coded.py`` and ``predictions.py`` the tiers' predictions as columns;
``items.py`` the items, ``records.py`` the requests and label versions,
``json_cells.py`` the JSON in its text columns; ``parallel.py`` the sorted queries and
SQLite's quick_check on threads of their own; ``copies.py`` the private copy of a
database with a WAL; ``people.py`` whoever labelled in the engine, as annotators.
"""
