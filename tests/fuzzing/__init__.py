"""Fuzzing Accord's readers with mutated real projects (issue 16).

``runner`` runs a command in-process and judges it; ``projects`` copies and edits the
real projects; ``attacks`` holds the targeted attacks; ``mutations`` the hypothesis
strategies. Used by ``tests/core/test_reader_boundary.py``,
``tests/core/test_fuzz_projects.py`` and ``scripts/fuzz``.
"""
