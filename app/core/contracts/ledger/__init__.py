"""The looks ledger, ``labeling/ledger.jsonl``: append-only and hash-chained.

A look is spent in :meth:`chain.Ledger.append_look` (``chain.py``); ``format.py`` is one
line's format and hashing, ``verify.py`` reads and checks the chain and its head."""
