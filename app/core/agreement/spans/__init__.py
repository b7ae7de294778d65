"""Agreement on text spans (Potato's SPAN kind, ``kinds.md`` A.2 and B §2.6).

``reading.py`` turns Potato's stored span answers (and the span-like label values of
``error_span`` and ``extractive_qa``) into one :class:`~.table.SpanTable` per scheme;
``table.py`` holds every span of a scheme as columns; ``char_tags.py`` paints each
annotator's characters with BIO tags; ``kappa.py`` (token κ, ``char_alpha``) and ``f1.py``
(exact and partial span F1) score every item at once; ``metrics.py`` gathers the per-item
values and their means with a sentence for each undefined one. Mathet's γ lives in
``gamma*.py``."""
