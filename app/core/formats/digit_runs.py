"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/digit_runs``).

Kept only while work in progress elsewhere still imports ``app.core.formats.digit_runs``;
new code imports the room. Remove it once ``grep -rn "formats.digit_runs" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.digit_runs import (
    DIGITS as DIGITS,
)
from app.core.formats.reading.digit_runs import (
    LONG as LONG,
)
from app.core.formats.reading.digit_runs import (
    MAX_INT_DIGITS as MAX_INT_DIGITS,
)
from app.core.formats.reading.digit_runs import (
    SCAN_SLICE as SCAN_SLICE,
)
from app.core.formats.reading.digit_runs import (
    WIDE as WIDE,
)
from app.core.formats.reading.digit_runs import (
    has_long_integer as has_long_integer,
)
from app.core.formats.reading.digit_runs import (
    has_wide_number as has_wide_number,
)
