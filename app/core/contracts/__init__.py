"""Contracts: certifying machine labels against people (configuration, data, kinds)."""
