"""One module per view; each renders a :class:`~app.ui.views.base.ViewContext` and holds
no state of its own (architecture rule 3)."""
