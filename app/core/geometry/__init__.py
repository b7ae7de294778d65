"""Geometry of annotated objects: IoU of cuboids, time segments and image regions."""
