"""Matrix schemes (``multirate``, ``constant_sum``, ``soft_label``,
``semantic_differential``, ``range_slider``, ``bws``): one block per row and one pooled."""
