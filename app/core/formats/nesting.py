"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/nesting``).

Kept only while work in progress elsewhere still imports ``app.core.formats.nesting``;
new code imports the room. Remove it once ``grep -rn "formats.nesting" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.nesting import (
    MAX_DEPTH as MAX_DEPTH,
)
from app.core.formats.reading.nesting import (
    MAX_INT_DIGITS as MAX_INT_DIGITS,
)
from app.core.formats.reading.nesting import (
    MAX_YAML_NODES as MAX_YAML_NODES,
)
from app.core.formats.reading.nesting import (
    REFUSED as REFUSED,
)
from app.core.formats.reading.nesting import (
    BoundedLoader as BoundedLoader,
)
from app.core.formats.reading.nesting import (
    YAMLLimitError as YAMLLimitError,
)
from app.core.formats.reading.nesting import (
    check_integers as check_integers,
)
from app.core.formats.reading.nesting import (
    check_json as check_json,
)
from app.core.formats.reading.nesting import (
    deeper_than as deeper_than,
)
from app.core.formats.reading.nesting import (
    has_long_integer as has_long_integer,
)
from app.core.formats.reading.nesting import (
    has_wide_number as has_wide_number,
)
from app.core.formats.reading.nesting import (
    json_depth as json_depth,
)
from app.core.formats.reading.nesting import (
    loads as loads,
)
from app.core.formats.reading.nesting import (
    orjson_value as orjson_value,
)
from app.core.formats.reading.nesting import (
    some_line_may_nest_deeper as some_line_may_nest_deeper,
)
from app.core.formats.reading.nesting import (
    standard_loads as standard_loads,
)
from app.core.formats.reading.nesting import (
    too_deep as too_deep,
)
from app.core.formats.reading.nesting import (
    value_deeper_than as value_deeper_than,
)
from app.core.formats.reading.nesting import (
    within_bounds as within_bounds,
)
