"""Run-on gazette text: page furniture out, languages split, cut into blocks, Hindi repaired.

A Gazette of India PDF extraction holds the whole notification on one enormous line,
Hindi first and English after, with page headers glued into the text. Every removal
and every repair is counted and reported; the raw Hindi is kept beside the repair.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import regex
import yaml

from ..errors import ImportFailure, Location
from ..findings import Findings
from .rawtext import BLANKS, Block

RUN_ON_LINE = 20000
DEVANAGARI = regex.compile(r"\p{Devanagari}")
LATIN_WORD = regex.compile(r"[A-Za-z]{2,}")


@lru_cache(maxsize=None)
def spec() -> dict:
    """Furniture patterns and cut patterns, from the package's data/gazette.yaml."""
    return yaml.safe_load(resources.files("consolidate").joinpath("data/gazette.yaml").read_text("utf-8"))


def is_run_on(text: str) -> bool:
    """A document whose text stands on a few enormous lines (a PDF extraction)."""
    return any(len(line) > RUN_ON_LINE for line in text.split("\n"))


@dataclass(frozen=True)
class Piece:
    """Text kept from a run-on line, with its offset in that line."""

    start: int
    text: str


@dataclass(frozen=True)
class GazetteText:
    """One language of a run-on gazette document, cut into blocks."""

    blocks: list[Block]
    removed: list[str]          # page furniture, as it stood in the source
    kept: str                   # the language's text as published, furniture removed
    raw_text: str | None        # Hindi before repair, one block a line
    quality: dict | None        # the repair's measured quality


def blocks_for(text: str, lang: str, source: str, findings: Findings,
               heldout: frozenset[str] | None = None) -> GazetteText:
    """Blocks of one language, with what was removed and, for Hindi, repaired."""
    if lang not in ("hi", "en"):
        raise ImportFailure(f"run-on gazette text can be imported in hi or en, not {lang!r}", Location(source))
    blocks: list[Block] = []
    removed: list[str] = []
    kept: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        body = line.strip(BLANKS)
        if not body:
            continue
        if len(line) <= RUN_ON_LINE:
            # A short line (the portal's title of the notification) belongs to the script it is in.
            if _language_of(body) == lang:
                blocks.append(Block(body, number))
                kept.append(body)
            continue
        pieces, gone = _remove_furniture(line, number, source, findings)
        removed.extend(gone)
        hindi, english = _split_languages(pieces)
        chosen = hindi if lang == "hi" else english
        if not chosen:
            raise ImportFailure(f"the run-on line holds no {'Hindi' if lang == 'hi' else 'English'} text",
                                Location(source, number))
        if hindi and english:
            findings.add("IMPORT.LANGUAGE_SPLIT",
                         f"the document holds Hindi (offsets {hindi[0].start + 1}–"
                         f"{hindi[-1].start + len(hindi[-1].text)}) and English (from offset "
                         f"{english[0].start + 1}); kept {lang}", Location(source, number, english[0].start + 1))
        kept.append(" ".join(piece.text for piece in chosen))
        blocks.extend(_segment(chosen, number, lang, source, findings))
    raw_text = None
    quality = None
    if lang == "hi":
        raw_text = "\n".join(b.text for b in blocks) + "\n"
        blocks, quality = _repair(blocks, source, findings, heldout)
    return GazetteText(blocks, removed, "\n".join(kept), raw_text, quality)


def _language_of(text: str) -> str:
    return "hi" if len(DEVANAGARI.findall(text)) > len(LATIN_WORD.findall(text)) else "en"


def _remove_furniture(line: str, number: int, source: str, findings: Findings) -> tuple[list[Piece], list[str]]:
    matches = sorted(((m.start(), m, item["name"]) for item in spec()["furniture"]
                      for m in regex.finditer(item["pattern"], line)), key=lambda x: x[0])
    spans: list[tuple[int, int, str]] = []
    page = 1  # the masthead page
    for start, match, name in matches:
        if "page" in match.groupdict() and match["page"]:
            digits = match["page"]
            if match.start("page") == match.start():
                # An even-page number is glued to the word before it; pages run in
                # sequence, so only the expected number is furniture.
                expected = str(page + 1)
                if digits.endswith(expected):
                    start = match.start("page") + len(digits) - len(expected)
                page += 1
            else:
                page = int(digits)
        spans.append((start, match.end(), name))
    merged: list[tuple[int, int, str]] = []
    for span in sorted(spans):
        if merged and span[0] < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], span[1]), merged[-1][2])
        else:
            merged.append(span)
    pieces, removed, pos = [], [], 0
    for start, end, name in merged:
        if start > pos:
            pieces.append(Piece(pos, line[pos:start]))
        removed.append(line[start:end])
        pos = end
    if pos < len(line):
        pieces.append(Piece(pos, line[pos:]))
    counts: dict[str, int] = {}
    for _, _, name in merged:
        counts[name] = counts.get(name, 0) + 1
    findings.add("IMPORT.PAGE_FURNITURE_REMOVED",
                 "removed " + ", ".join(f"{n} × {name}" for name, n in sorted(counts.items())),
                 Location(source, number))
    return pieces, removed


def _split_languages(pieces: list[Piece]) -> tuple[list[Piece], list[Piece]]:
    """Hindi runs up to its last Devanagari letter; English is the rest."""
    for index in range(len(pieces) - 1, -1, -1):
        found = list(DEVANAGARI.finditer(pieces[index].text))
        if found:
            cut = found[-1].end()
            # Finish the word the last letter belongs to (a closing bracket, a comma).
            while cut < len(pieces[index].text) and not pieces[index].text[cut].isspace():
                cut += 1
            piece = pieces[index]
            hindi = pieces[:index] + [Piece(piece.start, piece.text[:cut])]
            english = [Piece(piece.start + cut, piece.text[cut:])] + pieces[index + 1:]
            return [p for p in hindi if p.text.strip()], [p for p in english if p.text.strip()]
    return [], [p for p in pieces if p.text.strip()]


def _segment(pieces: list[Piece], number: int, lang: str, source: str, findings: Findings) -> list[Block]:
    """Cut the kept text at the language's structure patterns."""
    # Join the pieces with one space where furniture was taken out, keeping a map back to offsets.
    text, origin = "", []
    for piece in pieces:
        if text and not text.endswith(" ") and not piece.text.startswith(" "):
            text += " "
            origin.append(piece.start)
        text += piece.text
        origin.extend(range(piece.start, piece.start + len(piece.text)))
    rules = spec()[lang]
    cuts = {0, len(text)}
    for pattern in rules["cuts"]:
        for match in regex.finditer(pattern, text):
            cuts.update((match.start(), match.end()))
    cuts |= _article_cuts(text, rules, number, source, findings, origin)
    cuts |= _weak_cuts(text, rules, cuts)
    blocks = []
    ordered = sorted(cuts)
    for start, end in zip(ordered, ordered[1:]):
        chunk = text[start:end]
        stripped = chunk.strip(BLANKS)
        if not stripped:
            continue
        offset = start + (len(chunk) - len(chunk.lstrip(BLANKS)))
        blocks.append(Block(stripped, number, origin[offset] if offset < len(origin) else None))
    return blocks


LABEL_AT = regex.compile(r"\(?(?P<tok>[a-z]|[\p{Devanagari}]\p{M}?|ड\.)\)\s")


def _weak_cuts(text: str, rules: dict, cuts: set[int]) -> set[int]:
    """Cuts before a list label after a comma, taken only where it continues the list cut before it."""
    from ..ids import letter_value

    def value(position: int) -> int | None:
        match = LABEL_AT.match(text, position)
        letter = letter_value(match["tok"]) if match else None
        return ord(letter) - ord("a") + 1 if letter and len(letter) == 1 else None

    candidates = sorted({m.start() for p in rules.get("weak_cuts", []) for m in regex.finditer(p, text)})
    accepted: set[int] = set()
    labelled = sorted(c for c in cuts if value(c) is not None)
    for position in candidates:
        earlier = [c for c in labelled if c < position]
        if earlier and value(earlier[-1]) is not None and value(position) == value(earlier[-1]) + 1:
            accepted.add(position)
            labelled = sorted(labelled + [position])
    return accepted


def _article_cuts(text: str, rules: dict, number: int, source: str, findings: Findings, origin) -> set[int]:
    """Cut around article headings that follow in sequence, and after their titles."""
    cuts: set[int] = set()
    expected = 1
    last = 0
    for match in regex.finditer(rules["article"], text):
        value = int(match["num"])
        suffix = match["suffix"]
        if not ((suffix and value == last) or (not suffix and value == expected)):
            continue
        if suffix is None:
            last, expected = value, value + 1
        cuts.update((match.start(), match.end()))
        title = regex.compile(rules["article_title"]).match(text, match.end())
        if title:
            cuts.add(title.end("title"))
        else:
            findings.add("IMPORT.HEADING_NOT_SEPARATED",
                         f"the title of article {value}{suffix or ''} runs on into its text in the source; "
                         "kept at the start of the text",
                         Location(source, number, origin[match.start()] + 1 if match.start() < len(origin) else None))
    return cuts


def _repair(blocks: list[Block], source: str, findings: Findings,
            heldout: frozenset[str] | None) -> tuple[list[Block], dict]:
    from . import devanagari

    vocabulary = devanagari.load_vocabulary()
    repaired, changed, words = [], 0, 0
    raw_all, fixed_all = [], []
    for block in blocks:
        # The whole Hindi half came through the same wrong glyph table: repair every block,
        # even one too short for the repair's own damage detection to notice.
        result = devanagari.repair(block.text, vocabulary, garbled=True)
        repaired.append(Block(result.text, block.line, block.offset))
        changed += len(result.changes)
        words += len(devanagari.words(block.text))
        raw_all.append(block.text)
        fixed_all.append(result.text)
    before = devanagari.measure("\n".join(raw_all), vocabulary)
    after = devanagari.measure("\n".join(fixed_all), vocabulary)
    findings.add("IMPORT.DEVANAGARI_REPAIRED",
                 f"legacy-font Devanagari repaired: {changed} of {words} words changed; share of words found in "
                 f"the repair word list {before:.1%} before, {after:.1%} after",
                 Location(source, blocks[0].line if blocks else None))
    quality = {
        "words": words,
        "words_changed": changed,
        "in_repair_word_list": {"before": round(before, 4), "after": round(after, 4)},
    }
    if heldout:
        # The honest figure: words found in clean Hindi texts the repair never used.
        quality["in_held_out_texts"] = {
            "before": round(devanagari.measure("\n".join(raw_all), heldout), 4),
            "after": round(devanagari.measure("\n".join(fixed_all), heldout), 4),
            "vocabulary_words": len(heldout),
        }
    return repaired, quality
