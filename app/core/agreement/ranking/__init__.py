"""Rankings (Potato's ``ranking``): Kendall's τ and Spearman's footrule per (pair, item)."""
