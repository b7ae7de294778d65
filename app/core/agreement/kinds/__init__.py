"""Agreement kinds: one module per kind, one row each in ``registry.KINDS``.

``spec.py`` says what a row holds, ``common.py`` what every kind's scoring shares
(coverage, rejected answers, the sentences for nobody and one annotator), and each
other module is one kind: the Potato types it reads, its metrics, its undefined
sentences and its scoring.
"""
