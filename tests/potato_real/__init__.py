"""Builders of real Potato 2.12.1 projects, written by Potato itself (run on purpose only).

Potato is GPL-3.0: these scripts only *call* it (its CLI, its engine API, its server);
none of its code is copied here.
"""
