"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/json_file``).

Kept only while work in progress elsewhere still imports ``app.core.formats.json_pieces``;
new code imports the room. Remove it once ``grep -rn "formats.json_pieces" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.json_file import (
    SPLIT_DEPTH as SPLIT_DEPTH,
)
from app.core.formats.reading.json_file import (
    read_json_in_pieces as read_json_in_pieces,
)
