"""A re-export shim: this module moved into :mod:`app.core.formats.reading` (issue 35
part 10), the room of the reading helpers (now ``reading/paths``, ``text_file``,
``yaml_file`` and ``json_file``).

Kept only while work in progress elsewhere still imports ``app.core.formats.files``;
new code imports the room. Remove it once ``grep -rn "formats.files" app tests``
finds nothing but this file.
"""

from app.core.formats.reading.json_file import (
    parse_json_text as parse_json_text,
)
from app.core.formats.reading.json_file import (
    read_json as read_json,
)
from app.core.formats.reading.paths import (
    NAME_MAX as NAME_MAX,
)
from app.core.formats.reading.paths import (
    inside as inside,
)
from app.core.formats.reading.text_file import (
    read_text as read_text,
)
from app.core.formats.reading.yaml_file import (
    read_yaml as read_yaml,
)
from app.core.formats.reading.yaml_file import (
    yaml_error as yaml_error,
)
