"""Structure recognition: a list of raw blocks → the provision tree of one language.

Front matter is found by position around the first article or chapter heading;
the body is read block by block with explicit rules, each guess leaving a finding.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import difflib

import regex

from .. import inline
from ..errors import Location
from ..findings import Findings
from ..ids import DEVANAGARI_DIGITS, latin_letter, letter_value
from ..model import Node
from .keywords import Keywords, keywords
from .rawtext import Block

LEADING_TOKENS = regex.compile(r"^(?:\{\{(?:amend|fn) [^{}]*\}\}\s*)+")
PARA_RE = regex.compile(r"^(?P<num>\d+(?:\.\d+)?)(?P<dot>\.)?(?P<space>\s*)")
LIST_PAREN_RE = regex.compile(r"^\(\s*(?P<tok>[^\s()]{1,8})\s*\)\s*")
LIST_CLOSE_RE = regex.compile(r"^(?P<tok>[^\s()]{1,4})\)\s*")
CHAPEAU_END = regex.compile(r"(?::|:-|: -|:—|—|–|:\s*-)\s*$")
STRAY_RE = regex.compile(r"^[.,;:।|\-–—]+$")
DEVANAGARI_LETTER = regex.compile(r"^[\p{Devanagari}]{1,3}$")
SEPARATOR_RE = regex.compile(r"^[-*_]{3,}$")
FOOTNOTE_BODY_RE = regex.compile(r"^(?P<mark>\*+|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\s*")
ROMAN = {}
for _n, _r in enumerate(["i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x", "xi", "xii",
                         "xiii", "xiv", "xv", "xvi", "xvii", "xviii", "xix", "xx"], start=1):
    ROMAN[_r] = _n
ROMAN_BY_VALUE = {v: k for k, v in ROMAN.items()}
HEADING_MAX = 150
LONG_BLOCK = 150


@dataclass
class Draft:
    """A provision under construction."""

    kind: str
    line: int
    num: str | None = None
    label: str | None = None
    heading: str | None = None
    lines: list[str] = field(default_factory=list)
    children: list["Draft"] = field(default_factory=list)
    takes_lines: bool = False  # a chapeau whose items are printed without labels
    text_line: int | None = None  # source line of the first text line

    def freeze(self) -> Node:
        return Node(self.kind, self.num, self.label, self.heading, "\n".join(self.lines),
                    tuple(c.freeze() for c in self.children), "", self.line)

    def clean_text(self) -> str:
        return inline.clean("\n".join(self.lines)).strip()


@dataclass
class Level:
    """One open level of a list: its numbering family, last index and latest item."""

    family: str
    index: int
    draft: Draft


@dataclass
class Front:
    """What stands before the first article: notification, title, preamble, footnotes."""

    preface: list[Block]
    nodes: list[Draft]


def split_leading(text: str) -> tuple[str, str]:
    """Leading marker/footnote tokens, and the rest of the block."""
    match = LEADING_TOKENS.match(text)
    return (match.group(0), text[match.end():]) if match else ("", text)


def core_text(block: Block) -> str:
    return inline.clean(split_leading(block.text)[1]).strip()


def find_anchor(blocks: list[Block], kw: Keywords) -> int:
    """Index of the first chapter or Article 1 heading; the body starts there."""
    for index, block in enumerate(blocks):
        core = core_text(block)
        if kw.chapter.match(core):
            return index
        match = kw.article.match(core)
        if match and match["num"].translate(DEVANAGARI_DIGITS) == "1":
            return index
    return len(blocks)


def recognise(blocks: list[Block], lang: str, path: str, findings: Findings, *,
              synthesised: bool = False, forced_paragraphs: dict[int, str] | None = None
              ) -> tuple[list[Node], list[Block]]:
    """Build the tree; return top-level nodes and, for a synthesised text, its preface blocks."""
    kw = keywords(lang)
    anchor = find_anchor(blocks, kw)
    front = _front(blocks[:anchor], kw, path, findings, synthesised)
    body = _Body(kw, path, findings, forced_paragraphs or {})
    for block in blocks[anchor:]:
        body.feed(block)
    roots = front.nodes + body.roots
    _check_chapeaus(roots, path, findings)
    return [d.freeze() for d in roots], front.preface


# ---------------------------------------------------------------- front matter

def _front(blocks: list[Block], kw: Keywords, path: str, findings: Findings, synthesised: bool) -> Front:
    footnotes: list[Draft] = []
    for index, block in enumerate(blocks):
        if SEPARATOR_RE.match(block.text):
            findings.add("IMPORT.PAGE_FURNITURE_REMOVED",
                         f"footnote separator {block.text!r} removed; the footnotes after it were kept",
                         Location(path, block.line))
            footnotes = _footnotes(blocks[index + 1:])
            blocks = blocks[:index]
            break
    annexure = max((i for i, b in enumerate(blocks) if kw.annexure.match(core_text(b))), default=-1)
    cursor = len(blocks) - 1
    preamble: list[Block] = []
    while cursor > annexure:
        core = core_text(blocks[cursor])
        if (kw.title_end.search(core) or _all_caps(core)) and not kw.agreed.search(core):
            break
        if not (kw.agreed.search(core) or len(core) > LONG_BLOCK or core.endswith((",", ";"))):
            break
        preamble.insert(0, blocks[cursor])
        cursor -= 1
    title: list[Block] = []
    while cursor > annexure and (len(core_text(blocks[cursor])) <= LONG_BLOCK or _all_caps(core_text(blocks[cursor]))) \
            and not kw.notification.match(core_text(blocks[cursor])):
        title.insert(0, blocks[cursor])
        cursor -= 1
    before = blocks[: annexure if annexure >= 0 else cursor + 1]
    nodes: list[Draft] = []
    preface: list[Block] = []
    if before:
        if synthesised:
            preface = before
        else:
            nodes.append(Draft("notification", before[0].line, lines=[b.text for b in before]))
    if annexure >= 0:
        nodes.append(Draft("annexure", blocks[annexure].line, label=blocks[annexure].text))
    if title:
        nodes.append(Draft("title", title[0].line, lines=[b.text for b in title]))
    if preamble:
        nodes.append(Draft("preamble", preamble[0].line, lines=[b.text for b in preamble]))
    if footnotes:
        _link_footnote_refs(nodes, footnotes)
    return Front(preface, nodes + footnotes)


def _all_caps(text: str) -> bool:
    """A title set in capitals (English gazette text): a title whatever its length."""
    letters = [c for c in text if c.isalpha()]
    return len(letters) > 10 and all(c.isupper() for c in letters if c.isascii())  and text.isascii()


def _footnotes(blocks: list[Block]) -> list[Draft]:
    notes: list[Draft] = []
    for block in blocks:
        match = FOOTNOTE_BODY_RE.match(block.text)
        if match or not notes:
            mark = match["mark"] if match else None
            rest = block.text[match.end():] if match else block.text
            notes.append(Draft("footnote", block.line, num=str(len(notes) + 1), label=mark, lines=[rest]))
        else:
            notes[-1].lines.append(block.text)
    return notes


def _link_footnote_refs(nodes: list[Draft], footnotes: list[Draft]) -> None:
    """Turn the last plain `*` before the footnotes into a reference to the `*` footnote."""
    for note in footnotes:
        if not note.label or not note.label.startswith("*"):
            continue
        for draft in reversed(nodes):
            for i in range(len(draft.lines) - 1, -1, -1):
                line = draft.lines[i]
                pos = line.rfind(note.label)
                if pos >= 0:
                    draft.lines[i] = line[:pos] + inline.footnote(note.num, note.label) + line[pos + len(note.label):]
                    break
            else:
                continue
            break


# ---------------------------------------------------------------- body

class _Body:
    """Reads body blocks in order, keeping the open chapter, article, paragraph and lists."""

    def __init__(self, kw: Keywords, path: str, findings: Findings, forced: dict[int, str]):
        self.kw, self.path, self.findings, self.forced = kw, path, findings, forced
        self.roots: list[Draft] = []
        self.chapter: Draft | None = None
        self.protocol: Draft | None = None
        self.final: Draft | None = None
        self.container: Draft | None = None   # article or protocol item
        self.paragraph: Draft | None = None
        self.levels: list[Level] = []
        self.awaiting_heading: Draft | None = None
        self.last: Draft | None = None
        self.last_block: Block | None = None
        self.wrapups: dict[int, object] = {}  # wrapup draft → its finding, while it may be undone
        self.article_num = 0
        self.chapter_num = 0
        self._next_printed = ""

    # -- helpers
    def where(self, block: Block) -> Location:
        return block.where(self.path)

    def note(self, code: str, message: str, block: Block, target: str | None = None):
        return self.findings.add(code, message, self.where(block), target=target, excerpt=block.text[:80])

    def _close_container(self) -> None:
        self.container = self.paragraph = None
        self.levels = []
        self.awaiting_heading = None

    # -- main dispatch
    def feed(self, block: Block) -> None:
        lead, rest = split_leading(block.text)
        core = inline.clean(rest).strip()
        kw = self.kw
        previous, self.last_block = self.last_block, block
        if SEPARATOR_RE.match(core):
            self.note("IMPORT.PAGE_FURNITURE_REMOVED", f"separator line {core!r} removed", block)
            return
        if STRAY_RE.match(core) and self.last is not None:
            if self.last.lines:
                self.last.lines[-1] += block.text
            elif self.last.heading is not None:
                self.last.heading += " " + block.text
            else:
                self.last.lines.append(block.text)
            self.awaiting_heading = None
            self.note("IMPORT.STRAY_TEXT", f"line holding only {core!r} joined to the preceding text", block)
            return
        if previous is not None:
            self._check_duplicate(previous, block)
        if self.awaiting_heading is not None:
            target = self.awaiting_heading
            self.awaiting_heading = None
            if self._is_heading_text(core):
                target.heading = block.text
                return
        if self._chapter(block, core):
            return
        if self._article(block, core):
            return
        if kw.protocol.match(core):
            self._close_container()
            self.final = None
            self.protocol = Draft("protocol", block.line, label=block.text)
            self.roots.append(self.protocol)
            self.chapter = None
            self.last = self.protocol
            return
        if kw.final_opener.match(core) or (kw.done_opener.match(core) and self.final is None):
            self._open_final(block)
            return
        if kw.signature_opener.match(core) or (self.final is not None and self.final.kind == "final"
                                               and kw.signature_mark.search(core)):
            self._open_signature(block)
            return
        if self.final is not None:
            self.final.lines.append(block.text)
            self.last = self.final
            return
        if self.protocol is not None and any(p.match(core) for p in kw.ad_article):
            current = self.container if self.container is not None and self.container.kind == "protocol_item" else None
            if current is not None and not current.lines and not current.children and current.heading is None:
                current.heading = block.text  # "5." printed before its "Ad. Article 5"
                return
            self._open_item(block, heading=block.text)
            return
        if block.line in self.forced:
            self._forced_paragraph(block)
            return
        if self._labelled(block, lead, rest):
            return
        self._unlabelled(block)

    def _is_heading_text(self, core: str) -> bool:
        return (0 < len(core) <= HEADING_MAX and not core.endswith(("।", ".", ":", ";", ","))
                and not PARA_RE.match(core) and not self._list_label(core))

    def _check_duplicate(self, previous: Block, block: Block) -> None:
        (label_a, a), (label_b, b) = _split_labels(inline.clean(previous.text)), _split_labels(inline.clean(block.text))
        if min(len(a), len(b)) < 40:
            return
        shorter, longer = sorted((a, b), key=len)
        same_start = longer.startswith(shorter[:-1].rstrip())
        # Parallel list items resemble each other; a repeat also repeats its label.
        similar = bool(label_a and label_b) and label_a.split()[-1] == label_b.split()[-1] and \
            difflib.SequenceMatcher(None, a[:40], b[:40]).ratio() >= 0.75
        if same_start or similar:
            self.note("IMPORT.DUPLICATE_TEXT",
                      f"this block repeats (part of) line {previous.line}; both were kept", block)

    # -- chapters and articles
    def _chapter(self, block: Block, core: str) -> bool:
        match = self.kw.chapter.match(core)
        misspelt = False
        if not match:
            match = self.kw.chapter_misspelt.match(core)
            if not (match and self.chapter_num and _roman(match["num"]) == self.chapter_num + 1):
                return False
            misspelt = True
        number = _roman(match["num"]) if not match["num"].isdigit() else int(match["num"])
        if misspelt:
            self.note("IMPORT.MISSPELT_KEYWORD",
                      f"{core!r} stands where chapter {self.chapter_num + 1} is expected; read as a chapter",
                      block, target=f"chp_{number}")
        self._close_container()
        self.protocol = self.final = None
        self.chapter_num = number
        self.chapter = Draft("chapter", block.line, num=str(number), label=block.text)
        self.roots.append(self.chapter)
        self.awaiting_heading = self.chapter
        self.last = self.chapter
        return True

    def _article(self, block: Block, core: str) -> bool:
        match = self.kw.article.match(core)
        if not match or self.protocol is not None and self.final is None and self.container is not None \
                and self.container.kind == "protocol_item":
            return False
        number = int(match["num"].translate(DEVANAGARI_DIGITS))
        suffix = match["suffix"] or ""
        if suffix and not suffix.isascii():
            suffix = (letter_value(suffix) or suffix).upper()
        if suffix:
            ok = number in (self.article_num, self.article_num + 1)
        else:
            ok = number == self.article_num + 1
        if not ok:
            if number <= self.article_num:
                self.note("IMPORT.FALSE_HEADING",
                          f"{core!r} does not follow article {self.article_num}; kept as text", block)
                return False
            self.note("IMPORT.NUMBER_OUT_OF_SEQUENCE",
                      f"article {number} follows article {self.article_num}", block, target=f"art_{number}")
        self._close_container()
        self.final = None
        self.protocol = None
        self.article_num = number
        article = Draft("article", block.line, num=f"{number}{suffix}", label=block.text)
        (self.chapter.children if self.chapter else self.roots).append(article)
        self.container = article
        self.awaiting_heading = article
        self.last = article
        return True

    # -- protocol, final clauses, signatures
    def _open_item(self, block: Block, heading: str | None = None, num: str | None = None,
                   label: str | None = None) -> Draft:
        self._close_container()
        items = [c for c in self.protocol.children if c.kind == "protocol_item"]
        item = Draft("protocol_item", block.line, num=num or str(len(items) + 1), label=label, heading=heading)
        self.protocol.children.append(item)
        self.container = item
        self.last = item
        return item

    def _open_final(self, block: Block) -> None:
        self._close_container()
        self.final = Draft("final", block.line, lines=[block.text])
        (self.protocol.children if self.protocol else self.roots).append(self.final)
        self.chapter = None
        self.last = self.final

    def _open_signature(self, block: Block) -> None:
        self._close_container()
        draft = Draft("signature", block.line, lines=[block.text])
        (self.protocol.children if self.protocol else self.roots).append(draft)
        self.final = draft
        self.last = draft

    # -- labelled blocks
    def _forced_paragraph(self, block: Block) -> None:
        num = self.forced[block.line]
        self._new_paragraph(block, num, None, block.text)
        self.note("IMPORT.REPLACED_TEXT_EXTRACTED",
                  f"text printed as replaced by the MLI restored as paragraph {num}", block,
                  target=f"{self._eid_hint()}__para_{num}")

    def _eid_hint(self) -> str:
        if self.container is None:
            return ""
        if self.container.kind == "article":
            return f"art_{self.container.num}"
        return f"protocol__item_{self.container.num}"

    def _labelled(self, block: Block, lead: str, rest: str) -> bool:
        para = PARA_RE.match(rest)
        if para and self._accept_paragraph(para, rest):
            number = para["num"]
            label = lead + rest[: para.start("space")]
            after = rest[para.end():]
            if self.protocol is not None and self._numbers_item(number):
                item = self._item_for_number(block, number, label)
                self.paragraph, self.levels = None, []
                if after:
                    self._content(block, "", after, item)
                return True
            self._next_printed = number
            self._promote_leading_text(block)
            self._new_paragraph(block, self._paragraph_number(block, number), label, "")
            if after:
                self._content(block, "", after, self.paragraph)
            return True
        if self.container is None and self.protocol is None:
            return False
        listed = self._list_label(rest)
        if listed is None:
            return False
        self._content(block, lead, rest, self.paragraph or self.container)
        return True

    def _accept_paragraph(self, match, rest: str) -> bool:
        if self.container is None and self.protocol is None:
            return False
        number = match["num"]
        after = rest[match.end():]
        if match["dot"] or "." in number:
            return not after[:1].isdigit()
        expected = self._expected_paragraph()
        return int(number) == expected and (match["space"] != "" or after == "")

    def _expected_paragraph(self) -> int:
        paragraphs = [c for c in (self.container.children if self.container else []) if c.kind == "paragraph"]
        if not paragraphs:
            return 1
        last = paragraphs[-1].num or "0"
        return int(last.split(".")[0]) + 1

    def _numbers_item(self, number: str) -> bool:
        items = [c for c in self.protocol.children if c.kind == "protocol_item"]
        if "." in number:
            return False
        value = int(number)
        current = self.container if self.container is not None and self.container.kind == "protocol_item" else None
        if current is not None and not current.lines and not current.children and current.label is None \
                and value == len(items):
            return True
        if current is None:
            return value == len(items) + 1
        own_paragraphs = [c for c in current.children if c.kind == "paragraph"]
        return value == len(items) + 1 and not own_paragraphs

    def _item_for_number(self, block: Block, number: str, label: str) -> Draft:
        current = self.container if self.container is not None and self.container.kind == "protocol_item" else None
        if current is not None and not current.lines and not current.children and current.label is None:
            current.num, current.label = number, label
            return current
        return self._open_item(block, num=number, label=label)

    def _paragraph_number(self, block: Block, printed: str) -> str:
        expected = self._expected_paragraph()
        if "." in printed:
            return printed
        value = int(printed)
        if value == expected:
            return printed
        target = f"{self._eid_hint()}__para_{expected}"
        if value < expected:
            code = "IMPORT.DUPLICATE_NUMBER" if value == expected - 1 else "IMPORT.NUMBER_OUT_OF_SEQUENCE"
            self.note(code, f"paragraph printed as {printed} where {expected} is expected; numbered {expected} "
                            "by position", block, target=target)
            return str(expected)
        # A gap: the printed number skips one. Numbering by position keeps the ids of the
        # languages of one treaty aligned (seed 002 prints "5." in English where Hindi has "4.").
        self.note("IMPORT.NUMBER_OUT_OF_SEQUENCE",
                  f"paragraph printed as {printed} follows paragraph {expected - 1}; numbered {expected} "
                  "by position", block, target=f"{self._eid_hint()}__para_{expected}")
        return str(expected)

    def _new_paragraph(self, block: Block, num: str, label: str | None, text: str) -> None:
        container = self.container
        if container is None:
            container = self._open_item(block) if self.protocol is not None else None
        if container is None:
            return
        paragraph = Draft("paragraph", block.line, num=num, label=label, lines=[text] if text else [])
        container.children.append(paragraph)
        self.paragraph = paragraph
        self.levels = []
        self.last = paragraph

    def _promote_leading_text(self, block: Block) -> None:
        """Text before an article's first numbered paragraph is an unnumbered paragraph 1."""
        container = self.container
        if container is None or container.kind != "article" or not container.lines \
                or any(c.kind == "paragraph" for c in container.children):
            return
        if CHAPEAU_END.search(container.clean_text()) and self._next_printed == "1":
            return  # an article-wide chapeau ("… as follows:") before paragraph 1
        first = Draft("paragraph", container.text_line or container.line, num="1", lines=container.lines)
        first.children, container.children = container.children, [first]
        container.lines = []
        self.note("IMPORT.UNNUMBERED_PARAGRAPH",
                  "text before this paragraph has no printed number; made paragraph 1 by position",
                  block, target=f"{self._eid_hint()}__para_1")

    def _list_label(self, text: str):
        """(match, interpretations) when `text` starts with a list label, else None."""
        for pattern in (LIST_PAREN_RE, LIST_CLOSE_RE):
            match = pattern.match(text)
            if not match:
                continue
            token = match["tok"]
            readings = _readings(token)
            if readings or DEVANAGARI_LETTER.match(token):
                return match, readings
        return None

    def _content(self, block: Block, lead: str, rest: str, parent: Draft) -> None:
        """Text that may start with one or more list labels, placed under `parent`."""
        listed = self._list_label(rest)
        if listed is None:
            if rest.strip():
                parent.lines.append(lead + rest if not parent.lines else lead + rest)
                self.last = parent
            return
        match, readings = listed
        level_index, family, index = self._place(readings, match["tok"], block)
        kind = "subparagraph" if level_index == 0 else "item"
        if family == "roman":
            num = ROMAN_BY_VALUE.get(index, str(index))
        elif family == "arabic":
            num = str(index)
        elif family == "double":
            num = latin_letter(index) * 2
        else:
            num = latin_letter(index)
        owner = self.levels[level_index - 1].draft if level_index > 0 else (self.paragraph or self.container)
        self._fold_wrapup(owner, level_index, block)
        draft = Draft(kind, block.line, num=num, label=lead + rest[: match.end()].rstrip())
        owner.children.append(draft)
        del self.levels[level_index:]
        self.levels.append(Level(family, index, draft))
        self.last = draft
        remainder = rest[match.end():]
        if remainder:
            self._content(block, "", remainder, draft)

    def _fold_wrapup(self, owner: Draft, level_index: int, block: Block) -> None:
        """A list that goes on after a guessed closing text: that text belonged to the item before."""
        if level_index < len(self.levels):
            # The list continues at this level: the wrapup follows that level's last item.
            holder, previous = owner, self.levels[level_index].draft
        elif level_index > 0:
            # A sub-list opens under an item that a wrapup already follows.
            holder = self.levels[level_index - 2].draft if level_index >= 2 else (self.paragraph or self.container)
            previous = owner
        else:
            return
        if len(holder.children) < 2 or holder.children[-1].kind != "wrapup" or holder.children[-2] is not previous \
                or previous.children:
            return  # (text after an item's own sub-list stays where it is, to keep the printed order)
        wrapup = holder.children.pop()
        previous.lines.extend(wrapup.lines)
        finding = self.wrapups.pop(id(wrapup), None)
        if finding in self.findings.items:
            self.findings.items.remove(finding)
        self.findings.add("IMPORT.CONTINUATION_JOINED",
                          f"unlabelled text after list item {inline.printed(previous.label or '')!r} joined to it, "
                          "since the list goes on after it", Location(self.path, wrapup.line),
                          excerpt=wrapup.lines[0][:80])

    def _place(self, readings: list[tuple[str, int]], token: str, block: Block) -> tuple[int, str, int]:
        """Which list level a label continues or opens, and its numbering."""
        innermost = self.levels[-1].draft if self.levels else None
        opens_list = innermost is not None and not innermost.children and CHAPEAU_END.search(innermost.clean_text())
        starts_here = [r for r in readings if r[1] == 1]
        if opens_list and starts_here:
            # An item ending in ':' or '—' announces a list: `(i)` after it is a first item.
            family = starts_here[0][0]
            return len(self.levels), family, 1
        for depth in range(len(self.levels) - 1, -1, -1):
            level = self.levels[depth]
            for family, index in readings:
                if family == level.family and index == level.index + 1:
                    return depth, family, index
        if self.levels and (self.levels[-1].family, self.levels[-1].index) in readings \
                and self.levels[-1].index > 0:
            level = self.levels[-1]
            self.note("IMPORT.DUPLICATE_NUMBER",
                      f"list label {token!r} repeats the label before it; kept as a second item with the same "
                      "number (its eId gets a suffix)", block)
            return len(self.levels) - 1, level.family, level.index
        used = {level.family for level in self.levels}
        starts = [r for r in readings if r[1] == 1]
        if starts:
            family = next((f for f, _ in starts if f not in used), starts[0][0])
            return len(self.levels), family, 1
        # A label out of sequence or in no known scheme: number it by position in
        # the innermost level of the family it looks like.
        family = readings[0][0] if readings else "letter"
        for depth in range(len(self.levels) - 1, -1, -1):
            if self.levels[depth].family == family:
                index = self.levels[depth].index + 1
                shown = ROMAN_BY_VALUE.get(index) if family == "roman" else (
                    str(index) if family == "arabic" else latin_letter(index))
                self.note("IMPORT.LABEL_NUMBERED_BY_POSITION",
                          f"list label {token!r} does not continue its list; numbered {shown} by position", block)
                return depth, family, index
        index = readings[0][1] if readings else 1
        self.note("IMPORT.LABEL_NUMBERED_BY_POSITION",
                  f"list label {token!r} opens a list without its earlier items (missing in the source); "
                  "its printed value is kept", block)
        return len(self.levels), family, index

    # -- unlabelled blocks
    def _unlabelled(self, block: Block) -> None:
        text = block.text
        core = inline.clean(text).strip()
        if self.container is None:
            if self.protocol is not None:
                target = self.protocol if not self.protocol.children else self._open_item(block)
                target.lines.append(text)
                self.last = target
                return
            parent = self.roots[-1] if self.roots else None
            if parent is None:
                parent = Draft("preamble", block.line)
                self.roots.append(parent)
            parent.lines.append(text)
            self.last = parent
            self.note("IMPORT.CONTINUATION_JOINED", f"text outside any article joined to {parent.kind}", block)
            return
        innermost = self.levels[-1].draft if self.levels else (self.paragraph or self.container)
        if not innermost.lines and not innermost.children:
            innermost.lines.append(text)
            innermost.text_line = block.line
            self.last = innermost
            return
        if innermost.children == [] and (innermost.takes_lines or CHAPEAU_END.search(innermost.clean_text())):
            innermost.lines.append(text)
            innermost.takes_lines = True
            self.last = innermost
            self.note("IMPORT.CONTINUATION_JOINED",
                      "unlabelled text after a provision ending in ':' joined to it as further text", block)
            return
        if self.last is not None and self.last.kind == "wrapup":
            self.last.lines.append(text)
            self.note("IMPORT.CONTINUATION_JOINED", "unlabelled text joined to the closing text before it", block)
            return
        if self.levels:
            if self.paragraph is not None and self.container.kind == "article" \
                    and self.kw.new_paragraph_opener.match(core):
                number = str(self._expected_paragraph())
                self._new_paragraph(block, number, None, text)
                self.note("IMPORT.UNNUMBERED_PARAGRAPH",
                          f"unlabelled text after a list opens like a paragraph; made paragraph {number} "
                          "by position", block, target=f"{self._eid_hint()}__para_{number}")
                return
            closing = self.levels[-1]
            owner = self.levels[-2].draft if len(self.levels) > 1 else (self.paragraph or self.container)
            wrapup = Draft("wrapup", block.line, lines=[text])
            owner.children.append(wrapup)
            self.last = wrapup
            self.wrapups[id(wrapup)] = self.note("IMPORT.WRAPUP_GUESSED",
                      f"unlabelled text after list item {closing.draft.label!r} taken as the closing text "
                      f"of the {owner.kind}", block)
            return
        if self.paragraph is None and not any(c.kind == "paragraph" for c in self.container.children):
            self.container.lines.append(text)
            self.last = self.container
            return
        target = self.paragraph or self.container
        if target.children and target.children[-1].kind == "wrapup":
            target = target.children[-1]
        target.lines.append(text)
        self.last = target
        self.note("IMPORT.CONTINUATION_JOINED",
                  f"unlabelled text joined to the preceding {target.kind} as a further line", block)


def _split_labels(text: str) -> tuple[str, str]:
    """Leading paragraph number and list labels, and the text after them."""
    text, labels = text.strip(), []
    while True:
        match = PARA_RE.match(text) or LIST_PAREN_RE.match(text) or LIST_CLOSE_RE.match(text)
        if not match or match.end() == 0:
            return " ".join(labels), text
        labels.append(text[: match.end()].strip())
        text = text[match.end():].lstrip()


def _readings(token: str) -> list[tuple[str, int]]:
    """Possible (family, index) readings of a list label token."""
    readings: list[tuple[str, int]] = []
    plain = token.translate(DEVANAGARI_DIGITS)
    if plain.isdigit():
        readings.append(("arabic", int(plain)))
    lower = plain.lower()
    if lower in ROMAN:
        readings.append(("roman", ROMAN[lower]))
    value = letter_value(lower if lower.isascii() else token)
    if value and len(value) == 1:
        readings.append(("letter", ord(value) - ord("a") + 1))
    elif value:
        # Doubled letters (aa, bb / कक, खख) form a list scheme of their own.
        readings.append(("double", ord(value[0]) - ord("a") + 1))
    return readings


def _roman(text: str) -> int:
    values = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100}
    total = 0
    for i, char in enumerate(text):
        value = values[char]
        total += -value if i + 1 < len(text) and values[text[i + 1]] > value else value
    return total


def _check_chapeaus(roots: list[Draft], path: str, findings: Findings) -> None:
    def walk(draft: Draft) -> None:
        if draft.kind in ("paragraph", "subparagraph", "item") and not draft.children \
                and CHAPEAU_END.search(draft.clean_text()):
            findings.add("IMPORT.CHAPEAU_WITHOUT_ITEMS",
                         "provision ends in ':' but no list items follow it in the source "
                         "(list items missing in the published source)",
                         Location(path, draft.line), excerpt=draft.clean_text()[-80:])
        for child in draft.children:
            walk(child)
    for root in roots:
        walk(root)
