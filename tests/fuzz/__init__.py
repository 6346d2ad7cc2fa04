"""Hypothesis fuzz tests of the parsers and loaders (issue 7, item 4)."""
