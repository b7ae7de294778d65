"""Agreement on coded units (nominal, ordinal, multilabel, agent-trace steps).

``units.py`` turns a scheme's answers into coded units, ``alpha.py`` is Krippendorff's
α for any distance, ``kappa.py`` Cohen's and Fleiss' κ and pooled agreement, and
``schemes.py`` puts them together into one scheme's result."""
