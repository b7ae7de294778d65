"""The frozen app's entry point: the same as ``python -m app`` and the ``accord`` command.

PyInstaller needs a script, not a module path; this one only hands over to the CLI, so the
frozen executable and the installed console script share every line that matters.
"""

from app.cli.main import main

if __name__ == "__main__":
    raise SystemExit(main())
