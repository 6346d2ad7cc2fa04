"""Inline tokens inside source text: amendment markers, footnote references, escapes.

Syntax (documented in docs/source-format.md):
  {{amend N PRINTED}}  an amendment marker opens; PRINTED is what the source showed (e.g. `¹[`)
  {{end N PRINTED}}    it closes; `{{end N}}` alone marks an end the importer inferred
  {{fn N PRINTED}}     a footnote reference (e.g. `³`)
  {{lb}}               a literal `{{`
"""

from __future__ import annotations

import re
from dataclasses import dataclass

TOKEN_RE = re.compile(r"\{\{(lb|amend|end|fn)(?: ([^\s{}]+))?(?: ([^{}]*?))?\}\}")


@dataclass(frozen=True)
class Token:
    """One inline token; `offset` is its position in the clean text."""

    kind: str
    num: str | None
    printed: str
    offset: int


def _scan(text: str):
    pos = 0
    for match in TOKEN_RE.finditer(text):
        yield text[pos:match.start()], match
        pos = match.end()
    yield text[pos:], None


def clean(text: str) -> str:
    """The reading text: tokens removed (markers shown by the renderer, not as characters)."""
    out = []
    for chunk, match in _scan(text):
        out.append(chunk)
        if match and match.group(1) == "lb":
            out.append("{{")
    return "".join(out)


def printed(text: str) -> str:
    """The text as the source printed it, marker characters included."""
    out = []
    for chunk, match in _scan(text):
        out.append(chunk)
        if match:
            out.append("{{" if match.group(1) == "lb" else (match.group(3) or ""))
    return "".join(out)


def tokens(text: str) -> list[Token]:
    """Markers and footnote references in order, located in the clean text."""
    found, length = [], 0
    for chunk, match in _scan(text):
        length += len(chunk)
        if not match:
            continue
        kind = match.group(1)
        if kind == "lb":
            length += 2
            continue
        found.append(Token(kind, match.group(2), match.group(3) or "", length))
    return found


def escape(text: str) -> str:
    """Protect a literal `{{` in plain text."""
    return text.replace("{{", "{{lb}}")


def amend(num: str, printed_form: str) -> str:
    return f"{{{{amend {num} {printed_form}}}}}"


def end(num: str, printed_form: str = "") -> str:
    return f"{{{{end {num} {printed_form}}}}}" if printed_form else f"{{{{end {num}}}}}"


def footnote(num: str, printed_form: str) -> str:
    return f"{{{{fn {num} {printed_form}}}}}"
