"""Packed label sets: ``hierarchical_multiselect`` and ``card_sort`` read as sets."""
