"""Items Potato makes itself rather than reading them from a data file.

Potato 2.12.1 turns the data file of a best-worst scaling study into generated tuples
(``bws_tuple_0001``…) when the server starts and keeps them nowhere on disk: its
annotators' answers are to those tuples, so Accord makes the same tuples from the same
config and data (:mod:`.tuples`)."""

from app.core.formats.potato.bws.tuples import bws_tuples

__all__ = ["bws_tuples"]
