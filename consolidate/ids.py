"""Akoma Ntoso style eIds, assigned in a pass of their own after parsing.

Rules (docs/source-format.md, "Ids"): each provision contributes `<prefix>_<num>`;
components are joined by `__`; chapters group articles but do not prefix them;
a provision without a number uses `nn_<position>`; a clash gets `_2`, `_3` … and a finding.
"""

from __future__ import annotations

import re
from dataclasses import replace

from .errors import Location
from .findings import Findings
from .model import Document, Node

PREFIX = {
    "notification": "notification", "annexure": "annexure", "footnote": "fn",
    "title": "title", "preamble": "preamble", "chapter": "chp", "article": "art",
    "protocol": "protocol", "protocol_item": "item", "final": "final",
    "signature": "signature", "paragraph": "para", "subparagraph": "subpara",
    "item": "item", "wrapup": "wrapup",
}
# Kinds that appear once per parent and need no number.
SINGLETON = {"notification", "annexure", "title", "preamble", "protocol", "final",
             "signature", "wrapup"}
# Kinds whose eId does not prefix their children's (AKN: articles are numbered
# through the whole treaty, so `art_5`, not `chp_2__art_5`).
TRANSPARENT = {"chapter"}

NUM_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9.\-]*$")

# Hindi list letters → Latin, in the order Indian legal texts use them. ङ is rarely
# used; ड़ (and the gazette's `ड.`) stands for (e). Documented in docs/source-format.md.
HINDI_LETTERS = [
    ("क", "a"), ("ख", "b"), ("ग", "c"), ("घ", "d"), ("ङ", "e"), ("च", "f"),
    ("छ", "g"), ("ज", "h"), ("झ", "i"), ("ञ", "j"), ("ट", "k"), ("ठ", "l"),
    ("ड", "m"), ("ढ", "n"), ("ण", "o"), ("त", "p"), ("थ", "q"), ("द", "r"),
    ("ध", "s"), ("न", "t"), ("प", "u"), ("फ", "v"), ("ब", "w"), ("भ", "x"),
    ("म", "y"), ("य", "z"),
]
HINDI_TO_LATIN = dict(HINDI_LETTERS)
# Alternative spellings of (e): ड़ as one code point, as ड + nukta, and the gazette's ड.
for _form in ("ड़", "ड़", "ड."):
    HINDI_TO_LATIN[_form] = "e"

# English letter names written in Devanagari, as machine translations print them
# (seed 003: (ए), (बी), (सी) …).
TRANSLITERATED_LATIN = {
    "ए": "a", "बी": "b", "सी": "c", "डी": "d", "ई": "e", "एफ": "f", "जी": "g",
    "एच": "h", "आई": "i", "जे": "j", "के": "k", "एल": "l", "एम": "m", "एन": "n",
    "ओ": "o", "पी": "p", "क्यू": "q", "आर": "r", "एस": "s", "टी": "t", "यू": "u",
    "वी": "v", "डब्ल्यू": "w", "एक्स": "x", "वाई": "y", "जेड": "z",
}

DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")


def letter_value(letter: str) -> str | None:
    """Latin value of a list letter printed in Latin, Hindi, or transliterated form."""
    letter = letter.strip()
    if re.fullmatch(r"[a-z]{1,2}", letter):
        return letter
    if letter in HINDI_TO_LATIN:
        return HINDI_TO_LATIN[letter]
    if len(letter) >= 2 and letter[: len(letter) // 2] == letter[len(letter) // 2:]:
        half = letter_value(letter[: len(letter) // 2])  # doubled letters: कक → aa
        return half * 2 if half and len(half) == 1 else None
    return TRANSLITERATED_LATIN.get(letter)


def latin_letter(position: int) -> str:
    """1 → a, 26 → z, 27 → aa (the doubled-letter convention of treaties)."""
    if position <= 26:
        return chr(ord("a") + position - 1)
    return latin_letter(position - 26) * 2


def assign_ids(document: Document, findings: Findings) -> Document:
    """Return the document with every node's eId filled in."""
    nodes = _assign(document.nodes, "", document.path or document.treaty, findings)
    return replace(document, nodes=nodes)


def _assign(nodes: tuple[Node, ...], parent: str, path: str, findings: Findings,
            seen: dict[str, int] | None = None) -> tuple[Node, ...]:
    seen = {} if seen is None else seen
    out = []
    positions: dict[str, int] = {}
    for node in nodes:
        positions[node.kind] = positions.get(node.kind, 0) + 1
        prefix = PREFIX[node.kind]
        if node.num is not None:
            own = f"{prefix}_{node.num}"
        elif node.kind in SINGLETON:
            own = prefix
        else:
            own = f"{prefix}_nn_{positions[node.kind]}"
            findings.add("ID.UNNUMBERED", f"{node.kind} has no number; its eId uses its position",
                         Location(path, node.line), target=f"{parent}__{own}" if parent else own)
        eid = f"{parent}__{own}" if parent else own
        if eid in seen:
            seen[eid] += 1
            new = f"{eid}_{seen[eid]}"
            findings.add("ID.DUPLICATE", f"eId {eid} is already used; this provision becomes {new}",
                         Location(path, node.line), target=new)
            eid = new
        else:
            seen[eid] = 1
        child_parent = parent if node.kind in TRANSPARENT else eid
        children = _assign(node.children, child_parent, path, findings, seen)
        out.append(replace(node, eid=eid, children=children))
    return tuple(out)
