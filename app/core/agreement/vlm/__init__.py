"""Grounding, region captions, robot episodes and world-model rollouts (``kinds.md`` B
§2.9-2.12): Potato 2.12.1's blob schemes of several independent layers, each scored by
its own measure so that one layer's disagreement is not hidden in another's number."""
