"""Amendment markers `¹[ … ]` and footnote references `³`, turned into inline tokens.

A marker closes at the first `]` (outside brackets opened inside it) before the
next marker or heading; if none comes, its end is inferred at the last block before
that point and recorded as a finding (seed 001 has ten such markers).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable

import regex

from .. import inline
from ..findings import Findings
from .rawtext import Block

SUPERSCRIPT = "⁰¹²³⁴⁵⁶⁷⁸⁹"
SUP_TO_DIGIT = str.maketrans(SUPERSCRIPT, "0123456789")
OPEN_RE = regex.compile(rf"([{SUPERSCRIPT}]+)( ?)\[")
FOOTNOTE_RE = regex.compile(rf"([{SUPERSCRIPT}]+)(?! ?\[)")


def tokenise(blocks: list[Block], is_heading: Callable[[Block], bool], path: str,
             findings: Findings) -> list[Block]:
    """Replace markers and footnote references by inline tokens; infer missing ends."""
    opens = [(b, m.start(), m.end(), m.group(1).translate(SUP_TO_DIGIT), m.group(0))
             for b, block in enumerate(blocks) for m in OPEN_RE.finditer(block.text)]
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for index, (b, start, end, num, printed_form) in enumerate(opens):
        edits.setdefault(b, []).append((start, end, inline.amend(num, printed_form)))
        limit = opens[index + 1][:2] if index + 1 < len(opens) else (len(blocks), 0)
        close = _find_close(blocks, b, end, limit, is_heading)
        if close[2]:
            cb, cpos, _ = close
            edits.setdefault(cb, []).append((cpos, cpos + 1, inline.end(num, "]")))
        else:
            cb, cpos, _ = close
            edits.setdefault(cb, []).append((cpos, cpos, inline.end(num)))
            findings.add("IMPORT.UNCLOSED_MARKER",
                         f"amendment marker {printed_form!r} never closes; its end was inferred at "
                         "the end of the last block before the next marker or heading",
                         blocks[b].where(path), excerpt=blocks[b].text[:80])
        findings.add("IMPORT.MARKER_INSTRUMENT_UNKNOWN",
                     f"amendment marker {printed_form!r}: the source does not name the instrument "
                     "(its footnote body is not in the file)", blocks[b].where(path))
    out = []
    for b, block in enumerate(blocks):
        text = _apply(block.text, sorted(edits.get(b, []), key=lambda e: (e[0], e[1])))
        out.append(replace(block, text=text))
    return out


def _find_close(blocks, b, pos, limit, is_heading):
    """(block, position, found) of the closing `]`, or of the inferred end."""
    next_block, next_pos = limit
    depth = 0
    last, last_end = b, len(blocks[b].text)
    for cb in range(b, len(blocks)):
        if cb > b and (is_heading(blocks[cb]) or cb > next_block or (cb == next_block and next_pos == 0)):
            break
        text = blocks[cb].text
        stop = next_pos if cb == next_block else len(text)
        for i in range(pos if cb == b else 0, stop):
            if text[i] == "[":
                depth += 1
            elif text[i] == "]":
                if depth == 0:
                    return cb, i, True
                depth -= 1
        last, last_end = cb, len(text[:stop].rstrip())
    return last, last_end, False


def _apply(text: str, edits: list[tuple[int, int, str]]) -> str:
    out, pos = [], 0
    for start, end, token in edits:
        out.append(_footnotes(inline.escape(text[pos:start])))
        out.append(token)
        pos = end
    out.append(_footnotes(inline.escape(text[pos:])))
    return "".join(out)


def _footnotes(chunk: str) -> str:
    return FOOTNOTE_RE.sub(lambda m: inline.footnote(m.group(1).translate(SUP_TO_DIGIT), m.group(1)),
                           chunk)
