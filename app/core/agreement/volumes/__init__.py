"""Volumes: Dice per label over ``volume_annotation`` label masks (``kinds.md`` B §2.7)."""
