"""The 3D cuboids view (``view.py``) and its OpenGL canvas (``canvas.py``)."""
