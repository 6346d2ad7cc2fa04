"""Hostile inputs through the command line (issue 7, item 3)."""
