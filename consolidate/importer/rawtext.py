"""Reading raw published text and cutting it into blocks (one per non-blank line)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ImportFailure, Location
from ..findings import Findings

# Whitespace that a published line may consist of: a no-break space (seeds 000,
# 003) or a zero-width space is layout, not text.
BLANKS = " \t\u00a0\u200b\u2007\u202f\ufeff"


@dataclass(frozen=True)
class Block:
    """A unit of raw text: a line, or a segment of a run-on line (`offset` into it)."""

    text: str
    line: int
    offset: int | None = None

    def where(self, path: str) -> Location:
        return Location(path, self.line, None if self.offset is None else self.offset + 1)


def read_raw(path: Path) -> str:
    """Read a raw published text; one-line errors for missing, binary or non-UTF-8 input."""
    shown = str(path)
    if not path.exists():
        raise ImportFailure("file not found; expected a UTF-8 text file", Location(shown))
    if not path.is_file():
        raise ImportFailure("not a regular file; expected a UTF-8 text file", Location(shown))
    data = path.read_bytes()
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise ImportFailure("binary file (NUL byte); expected UTF-8 text", Location(shown, line))
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ImportFailure(f"not valid UTF-8 at byte {exc.start}; expected UTF-8 text",
                            Location(shown, line)) from None
    if text.startswith("\ufeff"):
        text = text[1:]
    if not text.strip(BLANKS + "\n\r"):
        raise ImportFailure("file holds no text", Location(shown))
    return text.replace("\r\n", "\n").replace("\r", "\n")


def line_blocks(text: str, path: str, findings: Findings) -> list[Block]:
    """One block per line that holds text; whitespace-only lines are counted, not kept."""
    blocks: list[Block] = []
    whitespace_lines: list[int] = []
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.strip(BLANKS)
        if not body:
            if line:
                whitespace_lines.append(number)
            continue
        blocks.append(Block(body, number))
    if whitespace_lines:
        shown = ", ".join(map(str, whitespace_lines[:8])) + (" …" if len(whitespace_lines) > 8 else "")
        findings.add("IMPORT.BLANK_LINE_REMOVED",
                     f"{len(whitespace_lines)} line(s) holding only whitespace such as a no-break "
                     f"space were removed (lines {shown})",
                     Location(path, whitespace_lines[0]))
    return blocks
