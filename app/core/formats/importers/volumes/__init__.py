"""Importers of 3-D label volumes (``volume_annotation`` schemes): NIfTI label maps."""
