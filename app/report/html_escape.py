"""Escaping for the HTML that Accord writes (agreement report, certificate).

Every string that comes from a user's files (scheme, label, annotator and item names,
notes, file paths, reader messages) passes through :func:`text` before it is placed in
HTML, so a name like ``<img src="file:///etc/hostname">`` shows as those characters and
loads nothing. Quotes are escaped too (``quote=True``), so the same helper is safe
inside an attribute value. Attribute *names*, tag names, ``id`` values and CSS are
never built from user data: writers use fixed strings or counters for those.

A second layer for reports opened in a browser: :data:`CONTENT_SECURITY_POLICY` forbids
every fetch (no scripts, no images other than ``data:``, no frames, no forms) while
allowing the inline stylesheet, so even a mistake in escaping could not load anything.
"""

from __future__ import annotations

import html

CONTENT_SECURITY_POLICY = ("default-src 'none'; style-src 'unsafe-inline'; img-src data:; "
                           "base-uri 'none'; form-action 'none'")
"""For ``<meta http-equiv="Content-Security-Policy" content="...">`` in the head."""


def text(value: object) -> str:
    """``str(value)`` escaped for HTML text and for a quoted attribute value."""
    return html.escape(str(value), quote=True)


def csp_meta() -> str:
    """The ``<meta>`` tag that applies :data:`CONTENT_SECURITY_POLICY`."""
    return f'<meta http-equiv="Content-Security-Policy" content="{CONTENT_SECURITY_POLICY}">'
