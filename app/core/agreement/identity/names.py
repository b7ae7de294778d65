"""The identity metrics' names, Potato 2.12.1's (``dispatcher.py`` KIND_METRICS): the kind
table imports these when a config is read, so they live apart from the measures."""

IDENTITY_METRICS = ("identity.mota", "identity.idf1", "identity.id_switches")
