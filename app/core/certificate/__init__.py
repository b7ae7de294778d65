"""The certificate as data: what the PDF prints and ``accord verify`` recomputes.

``build.py`` assembles it (contracts, accepted labels, inputs, content hash),
``inputs.py`` hashes the input files, ``curves.py`` adds the plots' data, and
``compare.py`` lists the differences ``verify`` reports."""
