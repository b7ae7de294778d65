"""The looks ledger, ``labeling/ledger.jsonl``: append-only and hash-chained.

A look is spent in :meth:`chain.Ledger.append_look` (``chain.py``); ``format.py`` is one
line's format and hashing, ``verify.py`` reads and checks the chain and its head,
``recovery.py`` puts right what a killed write leaves (stray temporary files, a head one
line behind) and ``lock.py`` keeps certify runs one at a time."""
