"""The statistics the contract kinds are built from, pure numpy/scipy and unaware of
projects: exact binomial bounds and tests (``binomial.py``), the level each look spends
(``looks.py``), prediction-powered inference (``ppi.py``), the alternative annotator
test (``annotator_test.py``), Jensen–Shannon distance, bootstrap and noise ceiling
(``jensen_shannon.py``), the distribution functions (``distributions.py``) and shared
input checks (``checks.py``)."""
