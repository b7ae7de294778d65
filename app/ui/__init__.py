"""The Qt shell: PySide6 and pyqtgraph live here and nowhere else (architecture rule 1)."""
