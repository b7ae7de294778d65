"""The overview: every scheme's headline numbers and the annotator-pair heatmap."""
