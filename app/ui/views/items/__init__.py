"""The items table: every scored item, worst first, and its numpy-sorted model."""
