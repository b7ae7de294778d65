"""The masks view: STAPLE consensus, outlines, and sensitivity/specificity bars."""
