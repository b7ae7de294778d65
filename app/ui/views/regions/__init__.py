"""The 2D regions view and its within- versus between-item distance plot."""
