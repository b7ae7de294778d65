"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/boundary``).

Kept only while work in progress elsewhere still imports ``app.core.formats.boundary``;
new code imports the room. Remove it once ``grep -rn "formats.boundary" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.boundary import (
    ANYWHERE as ANYWHERE,
)
from app.core.formats.reading.boundary import (
    MAPPED_FROM_BYTES as MAPPED_FROM_BYTES,
)
from app.core.formats.reading.boundary import (
    MAX_FILE_BYTES as MAX_FILE_BYTES,
)
from app.core.formats.reading.boundary import (
    RELEASE_BYTES as RELEASE_BYTES,
)
from app.core.formats.reading.boundary import (
    UNBOUNDED as UNBOUNDED,
)
from app.core.formats.reading.boundary import (
    checked_file as checked_file,
)
from app.core.formats.reading.boundary import (
    open_checked as open_checked,
)
from app.core.formats.reading.boundary import (
    present as present,
)
from app.core.formats.reading.boundary import (
    read_bytes as read_bytes,
)
from app.core.formats.reading.boundary import (
    read_mapped as read_mapped,
)
