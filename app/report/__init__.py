"""Presentation of result objects as text, HTML and PDF (no computation here)."""
