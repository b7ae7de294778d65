"""The command line: argument parsing only, one module per command group.

``main.py`` builds the parser and dispatches; ``agreement.py`` (agreement, compare),
``label.py`` (label status/certify/export/migrate-config), ``certificate.py``
(certificate, verify) and ``gui.py`` (plain ``accord``, open, demo) each add their
subcommands and run them. The core is imported inside the handlers, so ``accord
--version`` and ``--help`` stay fast."""
