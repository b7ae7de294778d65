"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/json_lines``).

Kept only while work in progress elsewhere still imports ``app.core.formats.json_lines``;
new code imports the room. Remove it once ``grep -rn "formats.json_lines" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.json_lines import (
    CHUNK_BYTES as CHUNK_BYTES,
)
from app.core.formats.reading.json_lines import (
    CHUNK_LINES as CHUNK_LINES,
)
from app.core.formats.reading.json_lines import (
    Fields as Fields,
)
from app.core.formats.reading.json_lines import (
    iter_json_lines as iter_json_lines,
)
from app.core.formats.reading.json_lines import (
    line_chunks as line_chunks,
)
from app.core.formats.reading.json_lines import (
    loads_line_bytes as loads_line_bytes,
)
from app.core.formats.reading.json_lines import (
    loads_lines as loads_lines,
)
from app.core.formats.reading.json_lines import (
    read_json_lines as read_json_lines,
)
