"""Numbers (``slider``, ``number``, ``vas``, confidence slider, pairwise scale) and the
likert extras, as Potato 2.12.1's CONTINUOUS and ORDINAL blocks compute them.

``reading`` turns one annotator's stored entries into a number, ``pairs`` gathers the
items and averages over annotator pairs, ``metrics`` holds the coefficients, ``ordinal``
the weighted κ with Potato's filled scale and Spearman's ρ, ``block`` the result shape.
"""
