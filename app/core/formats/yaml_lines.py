"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/yaml_file``).

Kept only while work in progress elsewhere still imports ``app.core.formats.yaml_lines``;
new code imports the room. Remove it once ``grep -rn "formats.yaml_lines" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.yaml_file import (
    MERGE_TAG as MERGE_TAG,
)
from app.core.formats.reading.yaml_file import (
    Duplicate as Duplicate,
)
from app.core.formats.reading.yaml_file import (
    LineList as LineList,
)
from app.core.formats.reading.yaml_file import (
    LineLoader as LineLoader,
)
from app.core.formats.reading.yaml_file import (
    LineMap as LineMap,
)
from app.core.formats.reading.yaml_file import (
    read_yaml as read_yaml,
)
from app.core.formats.reading.yaml_file import (
    read_yaml_lines as read_yaml_lines,
)
from app.core.formats.reading.yaml_file import (
    yaml_error as yaml_error,
)
