"""Exports started from the File menu that need a module of their own (``app/ui`` itself
is at its 20-module limit): :mod:`.consensus` (File › Export consensus…)."""
