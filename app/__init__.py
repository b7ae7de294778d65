"""Accord: agreement and certification for annotation studies, offline."""

__version__ = "0.1.0"
