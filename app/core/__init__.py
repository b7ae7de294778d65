"""The pure computational core: files → model → computation → result objects.

Nothing under ``app.core`` may import PySide6, pyqtgraph or OpenGL; a test imports this
package in a fresh interpreter and checks that none of them was loaded.
"""
