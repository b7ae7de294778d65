"""2D regions beyond matching: chance-corrected detection, classification and
localization (``chance.py``) and the within- versus between-item distances the views
plot (``distances.py``)."""
