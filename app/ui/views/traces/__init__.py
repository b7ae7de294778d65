"""The traces view: one trace's steps × annotators and the machine judge."""
