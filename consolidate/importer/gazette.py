"""Run-on gazette text: page furniture out, languages split, segmented into blocks."""

from __future__ import annotations

RUN_ON_LINE = 20000


def is_run_on(text: str) -> bool:
    """A document whose text stands on a few enormous lines (a PDF extraction)."""
    return any(len(line) > RUN_ON_LINE for line in text.split("\n"))
