"""Potato's view of a large population, held as columns: the table of items
(:mod:`.table`), where the cascade stops for each (:mod:`.routing`) and
``selective_risk``'s coverage (:mod:`.coverage`), each a pass of numpy per tier instead
of a walk per item."""
