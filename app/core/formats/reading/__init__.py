"""The reading helpers' room: every file Accord reads comes through here, one entry per
kind of file.

Why one room: the guarded helpers grew one by one beside the readers, and a reader
visited several of them (the door, the bounds, a parser) for one file. A reader now asks
the entry for its kind of file, in one call, and gets every guarantee at once:

==========================  ==========================================================
kind of file                entry
==========================  ==========================================================
a JSON file                 :mod:`.json_file`: ``read_json``, ``read_json_in_pieces``
                            (the same value, parsed in pieces for the window),
                            ``parse_json_text`` (JSON stored in a string)
JSON Lines                  :mod:`.json_lines`: ``read_json_lines``,
                            ``iter_json_lines``, ``Fields`` (a line's typed fields)
a YAML file                 :mod:`.yaml_file`: ``read_yaml``, ``read_yaml_lines``
                            (values that remember their lines)
a text file                 :mod:`.text_file`: ``read_text`` (UTF-8)
a media file                :mod:`.media_file`: ``media_file``, ``named_media_file``,
                            ``open_media_file`` (any size, never read whole)
a database                  :mod:`.database_file`: ``named_database_file``,
                            ``at_rest`` (no SQLite side file beside it)
a path named in a file      :mod:`.paths`: ``inside`` (it stays inside the project)
==========================  ==========================================================

Under the entries, what they guarantee: :mod:`.boundary` is the one door every file is
opened through (links resolved and the real file inside the project; a regular file,
never a FIFO, a device or a folder, checked before and after opening; at most 512 MiB
unless the entry says otherwise), :mod:`.nesting` what a parse may hold (100 levels,
300-digit integers, YAML aliases up to a million values) and :mod:`.digit_runs` the digit
scans it uses. A reader that streams a file its own way (a CSV, an XML export) opens it
with :func:`.boundary.open_checked`. Every failure is one
:class:`~app.core.errors.InputError` naming the file, the line or the key.
"""
