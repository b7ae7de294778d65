"""The labels the contracts read and deliver: a schema's machine and human labels as one
:class:`~app.core.contracts.kinds.base.SchemaData` (``schema_data.py``), loss families
and losses (``families.py``, ``losses.py``), and which machine labels the cascade
delivers, with every item's export status (``delivery.py``)."""
