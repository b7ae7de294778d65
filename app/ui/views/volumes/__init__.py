"""The slice view of volume_annotation schemes (Dice over 3-D label masks)."""
