"""Helpers for the data tests: a local mirror server and generators of source-format files."""
