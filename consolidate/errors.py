"""Exceptions that stop the tool, each carrying the location of the problem."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Location:
    """A place in an input file; line and column are 1-based and optional."""

    path: str
    line: int | None = None
    col: int | None = None

    def __str__(self) -> str:
        parts = [self.path]
        if self.line is not None:
            parts.append(str(self.line))
            if self.col is not None:
                parts.append(str(self.col))
        return ":".join(parts)


class ConsolidateError(Exception):
    """Base of every error the tool reports; printed as `path:line: message`."""

    def __init__(self, message: str, location: Location | None = None):
        super().__init__(message)
        self.message = message
        self.location = location

    def __str__(self) -> str:
        if self.location is None:
            return self.message
        return f"{self.location}: {self.message}"


class SourceFormatError(ConsolidateError):
    """A treaty source file does not follow the documented source format."""


class ImportFailure(ConsolidateError):
    """Raw text could not be imported (missing, binary, unknown language…)."""


class MetadataError(ConsolidateError):
    """treaty.yaml or another metadata file is malformed."""


class OverlayError(ConsolidateError):
    """An overlay file is malformed or cannot be applied exactly."""


class DateRuleError(ConsolidateError):
    """An effect-date case or positions file is malformed."""


class UsageError(ConsolidateError):
    """The command was given arguments it cannot act on (bad treaty id, unknown version…)."""


class StrictFailure(ConsolidateError):
    """Findings were recorded while --strict was in force."""
