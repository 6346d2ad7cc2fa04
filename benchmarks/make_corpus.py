"""Generate a synthetic corpus (sources/ and overlays/) derived from the bundled real treaties.

Run by hand: ``python benchmarks/make_corpus.py --treaties 3500 --seed 1 --out DIR``; the result
passes ``consolidate validate --root DIR``. Same arguments, byte-identical output (issue 7).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import re
import shutil
import sys
import time
from dataclasses import dataclass
from datetime import date, timedelta
from pathlib import Path
from typing import Any, Callable, Iterator, NamedTuple

from consolidate import inline
from consolidate.corpus import load_treaty, treaty_ids
from consolidate.findings import Findings
from consolidate.ids import assign_ids
from consolidate.model import Document, Node
from consolidate.positions import POSITIONS_RELATIVE, load_positions
from consolidate.sourcefmt import write

REPO = Path(__file__).resolve().parents[1]
SHUFFLED_KINDS = ("paragraph", "subparagraph", "item")
RELATIONS = ("included-in-preamble", "supersedes-incompatible", "applies-to", "replaces", "added")
# Realistic MLI article/paragraph pairs for each relation (as in published synthesised texts).
MLI_PROVISIONS = {
    "included-in-preamble": [(6, 1), (6, 3)],
    "supersedes-incompatible": [(7, 1), (11, 1), (4, 1)],
    "applies-to": [(13, 4), (15, 1), (5, 6)],
    "replaces": [(9, 4), (13, 4), (8, 1)],
    "added": [(16, 1), (17, 1), (10, 1)],
}
# Word variations per language: (word, replacement). Hindi boundaries are explicit below
# because \b splits Devanagari words at vowel signs.
WORDS = {
    "en": [("enterprise", "undertaking"), ("profits", "earnings"), ("income", "revenue"),
           ("shall", "will"), ("resident", "inhabitant"), ("competent", "designated"),
           ("agreement", "convention"), ("taxation", "levying of tax")],
    "hi": [("उद्यम", "उपक्रम"), ("लाभ", "मुनाफ़ा"), ("निवासी", "वासी"), ("सरकार", "शासन"),
           ("सक्षम", "नामित"), ("आय", "आमदनी"), ("कराधान", "कर निर्धारण"), ("व्यक्ति", "जन")],
}
AMENDED = {"en": "(as amended)", "hi": "(यथा संशोधित)"}
# Numbers, matched digit run first so the regex engine can skip ahead to digits: a
# percentage (one or two digits before "%", "per cent", "प्रतिशत") or a year (19xx, 20xx).
NUMBER_RE = re.compile(r"\d+(?P<fraction>\.\d+)?(?P<percent>\s?(?:%|per cent|percent|प्रतिशत))?")
WORD_CHAR = re.compile(r"[\w\u0900-\u097F]")
WORD_RE = re.compile(r"[^\W\d_][\w\u0900-\u097F]{3,}")
PLAIN_SCALAR = re.compile(r"^[a-z][A-Za-z0-9_.\-]*$")
YAML_RESERVED = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"}
TOKEN_SPLIT = re.compile(r"(\{\{[^\x00{}]*\}\})")
# Characters a YAML reader treats as line breaks or refuses; they are written escaped.
YAML_ESCAPE = re.compile("[\x7f-\x9f\u2028\u2029\ufeff\ufffe\uffff\ud800-\udfff]")


class P(NamedTuple):
    """A provision in every language of a treaty at once: texts are tuples in language order."""

    kind: str
    num: str | None
    label: tuple
    heading: tuple
    text: tuple
    children: tuple


@dataclass(frozen=True)
class Skeleton:
    """A real treaty: its languages and its tree with every language side by side."""

    treaty: str
    languages: tuple[str, ...]
    nodes: tuple[P, ...]
    parties: tuple[str, ...]
    candidates: tuple[int, ...]


@dataclass
class Rec:
    """A provision of a generated treaty with its eId and its sub-provisions, for planning overlays."""

    eid: str
    node: P
    children: list


# ------------------------------------------------------------------ reading the real corpus

def _zip(per_lang: list[tuple[Node, ...]], where: str) -> tuple[P, ...]:
    out = []
    for group in zip(*per_lang, strict=True):
        first = group[0]
        if any(n.kind != first.kind or n.num != first.num for n in group):
            raise SystemExit(f"{where}: the languages differ in structure at {first.eid}; "
                             "a bilingual skeleton needs identical eIds")
        out.append(P(first.kind, first.num, tuple(n.label for n in group), tuple(n.heading for n in group),
                     tuple(n.text for n in group), _zip([n.children for n in group], where)))
    return tuple(out)


def _has_tokens(p: P) -> bool:
    return any("{{" in (part or "") for part in (*p.label, *p.heading, *p.text)) or any(
        _has_tokens(c) for c in p.children)


def _fix_duplicates(treaty: str, languages: tuple[str, ...], nodes: tuple[P, ...]) -> tuple[P, ...]:
    """Give a provision whose eId repeats another's a number of its own (`a` → `a-2`).

    The engine refuses every structural change to a text that already holds a duplicate eId
    (lu-ad's art_18__para_2__subpara_a), so the synthetic texts carry none."""
    for _ in range(3):
        findings = Findings()
        document = assign_ids(to_documents(treaty, languages, nodes)[languages[0]], findings)
        duplicates = {f.target for f in findings if f.code == "ID.DUPLICATE"}
        if not duplicates:
            return nodes
        eids = iter(document.eids())

        def visit(items: tuple[P, ...]) -> tuple[P, ...]:
            out = []
            for p in items:
                eid = next(eids)  # document order: a provision, then its sub-provisions
                children = visit(p.children)
                if eid in duplicates and p.num is not None:
                    p = p._replace(num=f"{p.num}-{eid.rsplit('_', 1)[1]}")
                out.append(p._replace(children=children))
            return tuple(out)
        nodes = visit(nodes)
    raise SystemExit(f"{treaty}: could not give every provision an eId of its own")


def load_skeletons(root: Path) -> list[Skeleton]:
    """Every real treaty under root/sources, parsed, with its languages zipped together."""
    skeletons = []
    for treaty in treaty_ids(root):
        loaded = load_treaty(root, treaty, Findings())
        languages = tuple(loaded.meta.languages)
        nodes = _zip([loaded.documents[lang].nodes for lang in languages], treaty)
        nodes = _fix_duplicates(treaty, languages, nodes)
        for p in _walk(nodes):
            for i, lang in enumerate(languages):
                for text in (p.text[i], p.heading[i]):
                    if text:
                        template(text, lang)
        skeletons.append(Skeleton(treaty, languages, nodes, tuple(loaded.meta.parties), article_candidates(nodes)))
    if not skeletons:
        raise SystemExit(f"no treaties under {root / 'sources'}")
    return skeletons


def _walk(nodes: tuple[P, ...]) -> Iterator[P]:
    for p in nodes:
        yield p
        yield from _walk(p.children)


def donor_pools(skeletons: list[Skeleton]) -> dict[tuple[str, ...], list[tuple[str, ...]]]:
    """Paragraph texts by language tuple: a unit has one text per language, from one provision."""
    pools: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for wanted in sorted({s.languages for s in skeletons}):
        pool = pools.setdefault(wanted, [])
        for donor in skeletons:
            if not set(wanted) <= set(donor.languages):
                continue
            index = [donor.languages.index(lang) for lang in wanted]
            for p in _walk(donor.nodes):
                texts = tuple(p.text[i] for i in index)
                if p.kind in SHUFFLED_KINDS and all(texts) and not any("{{" in t for t in texts):
                    pool.append(texts)
    return pools


# ------------------------------------------------------------------ varying one treaty

_TEMPLATES: dict[tuple[str, str], tuple | None] = {}


def template(text: str, lang: str) -> tuple | None:
    """The parts of `text` a variation may change (years, percentages, table words), as a tuple
    of literal strings and slots; None when there is nothing to change. Memoised: scanning
    every text of every treaty with a regex would dominate the run time."""
    key = (lang, text)
    if key in _TEMPLATES:
        return _TEMPLATES[key]
    words = dict(WORDS.get(lang, []))
    word_re = re.compile("|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))
                         + r"(?![\w\u0900-\u097F])") if words else None
    segments: list = []
    found = False
    # Inline tokens ({{amend 1 ¹[}}) stay exactly as they are: only the text between varies.
    for part in TOKEN_SPLIT.split(text):
        if part.startswith("{{"):
            segments.append(part)
            continue
        slots = []
        for match in NUMBER_RE.finditer(part):
            digits = match.group(0)[: len(match.group(0)) - len(match["percent"] or "")]
            if match["fraction"]:
                continue
            if match["percent"] and len(digits) <= 2:
                slots.append((match.start(), match.start() + len(digits), ("pct", digits)))
            elif len(digits) == 4 and 1950 <= int(digits) <= 2039:
                slots.append((match.start(), match.start() + 4, ("year", int(digits))))
        for match in word_re.finditer(part) if word_re else ():
            if not (match.start() and WORD_CHAR.match(part, match.start() - 1)):
                slots.append((match.start(), match.end(), ("word", match.group(0))))
        position = 0
        for begin, finish, slot in sorted(slots):
            segments.append(part[position:begin])
            segments.append(slot)
            position = finish
            found = True
        segments.append(part[position:])
    result = tuple(segments) if found else None
    _TEMPLATES[key] = result
    return result


class Variation:
    """Per-treaty number and word changes, the same in every language of the treaty."""

    def __init__(self, rng: random.Random, languages: tuple[str, ...]):
        self.rng = rng
        self.languages = languages
        self.year_shift = rng.randint(-6, 6)
        self.percentages: dict[str, str] = {}
        self.words = []
        for lang in languages:
            table = WORDS.get(lang, [])
            self.words.append(dict(rng.sample(table, rng.randint(0, min(3, len(table))))) if table else {})

    def apply(self, text: str | None, lang_index: int) -> str | None:
        if not text:
            return text
        segments = template(text, self.languages[lang_index])
        if segments is None:
            return text
        chosen = self.words[lang_index]
        out = []
        for segment in segments:
            if isinstance(segment, str):
                out.append(segment)
            elif segment[0] == "year":
                out.append(str(segment[1] + self.year_shift))
            elif segment[0] == "pct":
                if segment[1] not in self.percentages:
                    self.percentages[segment[1]] = str(self.rng.randint(1, 35))
                out.append(self.percentages[segment[1]])
            else:
                out.append(chosen.get(segment[1], segment[1]))
        return "".join(out)


def vary_texts(nodes: tuple[P, ...], rng: random.Random, pool: list[tuple[str, ...]],
               variation: Variation, share: float) -> tuple[P, ...]:
    """Swap about `share` of the paragraph texts for donor texts; vary numbers and words everywhere."""
    out = []
    apply = variation.apply
    positions = range(len(variation.languages))
    for p in nodes:
        texts = p.text
        if p.kind in SHUFFLED_KINDS and rng.random() < share and all(texts) \
                and not any("{{" in t for t in texts):
            texts = rng.choice(pool)
        out.append(P(p.kind, p.num, p.label, tuple(map(apply, p.heading, positions)),
                     tuple(map(apply, texts, positions)),
                     vary_texts(p.children, rng, pool, variation, share) if p.children else ()))
    return tuple(out)


def _int_part(num: str | None) -> tuple[int, str] | None:
    match = re.fullmatch(r"(\d+)([A-Za-z]*)", num or "")
    return (int(match[1]), match[2]) if match else None


def _relabel(label: str | None, old: int, new: int) -> str | None:
    """Put `new` in place of the printed article number `old`, leaving inline tokens alone."""
    if label is None:
        return None
    parts = re.split(r"(\{\{.*?\}\})", label)
    done = False
    for i, part in enumerate(parts):
        if done or part.startswith("{{"):
            continue
        parts[i], count = re.subn(rf"(?<!\d){old}(?!\d)", str(new), part, count=1)
        done = bool(count)
    return "".join(parts)


def _renumbered(p: P, delta: int) -> P:
    old, suffix = _int_part(p.num)
    new = old + delta
    return p._replace(num=f"{new}{suffix}", label=tuple(_relabel(lbl, old, new) for lbl in p.label))


def _articles(nodes: tuple[P, ...]) -> list[P]:
    """Articles in order: at the top level or grouped by a chapter."""
    return [a for p in nodes for a in ((p,) if p.kind == "article" else
                                         p.children if p.kind == "chapter" else ()) if a.kind == "article"]


def article_candidates(nodes: tuple[P, ...]) -> tuple[int, ...]:
    """Articles that may be dropped or duplicated: plain numbers, no inline tokens (a marker may
    open in one article and close in another, and a duplicated marker would be ambiguous)."""
    return tuple(i for i, p in enumerate(_articles(nodes)) if _int_part(p.num) and not _int_part(p.num)[1]
                 and not _has_tokens(p))


def vary_articles(nodes: tuple[P, ...], rng: random.Random,
                  candidates: tuple[int, ...]) -> tuple[tuple[P, ...], tuple | None]:
    """Sometimes drop or duplicate an article, renumbering the ones after it; also say which."""
    articles = _articles(nodes)
    roll = rng.random()
    if not candidates or roll >= 0.6 or len(articles) < 5:
        return nodes, None
    which = rng.choice(candidates)
    chosen = articles[which]
    delta = -1 if roll < 0.3 else 1
    base = _int_part(chosen.num)[0]
    seen = False

    def edit(items: tuple[P, ...]) -> tuple[P, ...]:
        nonlocal seen
        out = []
        for p in items:
            if p.kind == "chapter":
                out.append(p._replace(children=edit(p.children)))
            elif p.kind != "article":
                out.append(p)
            elif p is chosen and not seen:
                seen = True
                if delta == 1:
                    out.extend([p, _renumbered(p, 1)])
            elif seen and _int_part(p.num) and _int_part(p.num)[0] >= base:
                out.append(_renumbered(p, delta))
            else:
                out.append(p)
        return tuple(out)

    edited = edit(nodes)
    numbers = [p.num for p in _articles(edited)]
    # A renumbering that would make two articles share a number is not applied.
    return (edited, (which, delta)) if len(numbers) == len(set(numbers)) else (nodes, None)


def to_documents(treaty: str, languages: tuple[str, ...], nodes: tuple[P, ...]) -> dict[str, Document]:
    def build(items: tuple[P, ...], i: int) -> tuple[Node, ...]:
        return tuple(Node(p.kind, p.num, p.label[i], p.heading[i], p.text[i] or "", build(p.children, i))
                     for p in items)
    return {lang: Document(treaty, lang, build(nodes, i), f"sources/{treaty}/{lang}.txt")
            for i, lang in enumerate(languages)}


_EIDS: dict[tuple, list[str]] = {}


def records(document: Document, nodes: tuple[P, ...], shape: tuple) -> list[Rec]:
    """Provisions in document order with eIds, assigned by the parser's own pass.

    eIds depend only on the tree's shape (kinds and numbers), so they are computed once per
    skeleton and article variation: `shape` names it."""
    if shape not in _EIDS:
        _EIDS[shape] = assign_ids(document, Findings()).eids()
    eids = iter(_EIDS[shape])
    out: list[Rec] = []

    def visit(ps: tuple[P, ...], parent: Rec | None) -> None:
        for p in ps:
            rec = Rec(next(eids), p, [])
            out.append(rec)
            if parent is not None:
                parent.children.append(rec)
            # Chapters group articles without prefixing them: an article's planning parent
            # is the top level, not its chapter.
            visit(p.children, None if p.kind == "chapter" else rec)
    visit(nodes, None)
    return out


# ------------------------------------------------------------------ planning overlays

def _next_first(day: date, month: int = 1) -> date:
    """The first day of `month` after `day`: when a tax year starting then takes effect."""
    candidate = date(day.year, month, 1)
    return candidate if candidate > day else date(day.year + 1, month, 1)


def _random_day(rng: random.Random, start: date, min_days: int, max_days: int) -> date:
    return start + timedelta(days=rng.randint(min_days, max_days))


class Planner:
    """Chooses targets for every operation type in one treaty; targets never interact."""

    def __init__(self, rng: random.Random, languages: tuple[str, ...], recs: list[Rec],
                 pool: list[tuple[str, ...]]):
        self.rng = rng
        self.languages = languages
        self.pool = pool
        self.eids = {r.eid for r in recs}
        articles = [r for r in recs if r.node.kind == "article"]
        # Each operation gets an article of its own, so no two operations (in any order of
        # instruments) touch the same provision or one another's ancestors.
        self.free = rng.sample(articles, len(articles))
        self.article_numbers = {r.node.num for r in articles}
        self.max_article = max((_int_part(r.node.num)[0] for r in articles if _int_part(r.node.num)), default=0)

    def lang_text(self, texts: tuple[str, ...]) -> dict[str, str]:
        return dict(zip(self.languages, texts))

    def donor(self) -> dict[str, str]:
        return self.lang_text(self.rng.choice(self.pool))

    def take(self, accept: Callable[[Rec], bool] = lambda r: True) -> Rec | None:
        for index, rec in enumerate(self.free):
            if accept(rec):
                return self.free.pop(index)
        return None

    @staticmethod
    def paragraphs(article: Rec) -> list[Rec]:
        return [c for c in article.children if c.node.kind == "paragraph"]

    # -- editing operations

    def replace(self) -> dict | None:
        article = self.take(lambda r: bool(self.paragraphs(r)))
        if article is None:
            return None
        rng = self.rng
        if rng.random() < 0.3:
            op = {"op": "replace", "target": article.eid, "text": self.donor()}
            if article.node.heading[0] is not None:
                op["heading"] = self.lang_text(tuple(f"{h or ''} {AMENDED.get(lang, '')}".strip() for lang, h in
                                                     zip(self.languages, article.node.heading)))
            op["children"] = [self.node_spec("paragraph", str(n), f"{n}.") for n in (1, 2)]
            return op
        target = rng.choice(self.paragraphs(article))
        op = {"op": "replace", "target": target.eid, "text": self.donor()}
        if rng.random() < 0.4:
            op["children"] = [self.node_spec("subparagraph", letter, f"({letter})") for letter in ("a", "b")]
        if rng.random() < 0.5:
            op["wording"] = self.lang_text(tuple(
                f"{target.eid}: replaced" if lang == "en" else f"{target.eid}: प्रतिस्थापित"
                for lang in self.languages))
        return op

    def node_spec(self, kind: str, num: str, label: str, children: list | None = None,
                  heading: bool = False) -> dict:
        spec: dict[str, Any] = {"kind": kind, "num": num, "label": {lang: label for lang in self.languages}}
        if heading:
            spec["heading"] = self.donor_heading()
        spec["text"] = self.donor()
        if children:
            spec["children"] = children
        return spec

    def donor_heading(self) -> dict[str, str]:
        return {lang: " ".join(text.split()[:4]) for lang, text in self.donor().items()}

    def insert(self) -> dict | None:
        rng = self.rng
        article = self.take()
        if article is None:
            return None
        number = _int_part(article.node.num)
        if number and rng.random() < 0.5:
            for letter in "ABCDEFGH":
                num = f"{number[0]}{letter}"
                if num not in self.article_numbers and f"art_{num}" not in self.eids:
                    self.article_numbers.add(num)
                    label = {lang: ("Article " if lang == "en" else "अनुच्छेद ") + num for lang in self.languages}
                    children = [self.node_spec("paragraph", str(n), f"{n}.") for n in (1, 2)]
                    spec = self.node_spec("article", num, "", children, heading=True)
                    spec["label"] = label
                    return {"op": "insert", "target": article.eid, "position": "after", "node": spec}
        nums = [_int_part(c.node.num)[0] for c in article.children if _int_part(c.node.num)]
        new = max(nums, default=0) + 1
        while f"{article.eid}__para_{new}" in self.eids:
            new += 1
        spec = self.node_spec("paragraph", str(new), f"{new}.")
        paragraphs = self.paragraphs(article)
        if paragraphs and rng.random() < 0.5:
            anchor = rng.choice(paragraphs)
            return {"op": "insert", "target": anchor.eid, "position": rng.choice(["before", "after"]), "node": spec}
        return {"op": "insert", "target": article.eid, "position": "last-child", "node": spec}

    def delete(self) -> dict | None:
        article = self.take()
        if article is None:
            return None
        paragraphs = self.paragraphs(article)
        if len(paragraphs) >= 2 and self.rng.random() < 0.7:
            return {"op": "delete", "target": self.rng.choice(paragraphs).eid}
        return {"op": "delete", "target": article.eid}

    def renumber(self) -> dict | None:
        article = self.take(lambda r: bool(_int_part(r.node.num)) and not any("{{" in (x or "") for x in r.node.label))
        if article is None:
            return None
        paragraphs = [p for p in self.paragraphs(article) if _int_part(p.node.num)]
        if paragraphs and self.rng.random() < 0.5:
            target = self.rng.choice(paragraphs)
            new = max(_int_part(p.node.num)[0] for p in paragraphs) + 1
            return {"op": "renumber", "target": target.eid, "num": str(new),
                    "label": {lang: f"{new}." for lang in self.languages}}
        self.max_article += 1
        new = self.max_article
        old = _int_part(article.node.num)[0]
        op = {"op": "renumber", "target": article.eid, "num": str(new)}
        labels = [_relabel(lbl, old, new) for lbl in article.node.label]
        if all(labels):
            op["label"] = self.lang_text(tuple(labels))
        return op

    def substitute(self, with_occurrence: bool = True) -> dict | None:
        def usable(rec: Rec) -> Rec | None:
            for candidate in [rec, *[d for c in rec.children for d in _descendants(c)]]:
                texts = candidate.node.text
                if all(texts) and not any("{{" in t for t in texts) and all(WORD_RE.search(t) for t in texts):
                    return candidate
            return None
        article = self.take(lambda r: usable(r) is not None)
        if article is None:
            return None
        target = usable(article)
        finds, counts = {}, []
        for lang, text in zip(self.languages, target.node.text):
            word = self.rng.choice(WORD_RE.findall(text))
            finds[lang] = word
            counts.append(text.count(word))
        op = {"op": "substitute", "target": target.eid, "find": finds,
              "replace": {lang: f"{word} {AMENDED.get(lang, '(amended)')}" for lang, word in finds.items()}}
        if with_occurrence or max(counts) > 1:
            op["occurrence"] = self.rng.randint(1, min(counts))
        return op

    # -- notes, annotations

    def note(self, protocol_items: list[Rec]) -> dict | None:
        article = self.take()
        if article is None:
            return None
        if protocol_items:
            return {"op": "note", "target": article.eid, "from": self.rng.choice(protocol_items).eid}
        return {"op": "note", "target": article.eid, "heading": self.donor_heading(), "text": self.donor()}

    def annotate(self, instrument: str) -> dict | None:
        article = self.take()
        if article is None:
            return None
        target = self.rng.choice([article, *self.paragraphs(article)])
        op = {"op": "annotate", "target": target.eid, "instrument": instrument}
        if self.rng.random() < 0.6:
            op["marker"] = str(self.rng.randint(1, 3))
        return op

    # -- MLI provisions

    def mli(self, relation: str, preamble: Rec | None) -> dict | None:
        rng = self.rng
        article, paragraph = rng.choice(MLI_PROVISIONS[relation])
        op: dict[str, Any] = {"op": "mli", "mli_article": article, "mli_paragraph": paragraph,
                              "relation": relation}
        if relation == "included-in-preamble":
            if preamble is None:
                return None
            lines = min(len(t.split("\n")) for t in preamble.node.text if t) if all(preamble.node.text) else 0
            op["target"] = "preamble"
            op["place"] = {"within": "preamble", "after_line": min(1, lines)}
        elif relation in ("supersedes-incompatible", "added"):
            anchor = self.take()
            if anchor is None:
                return None
            if relation == "supersedes-incompatible" and rng.random() < 0.3:
                op["target"] = anchor.eid
            else:
                if relation == "supersedes-incompatible":
                    op["target"] = None
                op["place"] = {"after": anchor.eid}
        else:
            host = self.take()
            if host is None:
                return None
            paragraphs = self.paragraphs(host)
            op["target"] = rng.choice(paragraphs).eid if paragraphs and rng.random() < 0.7 else host.eid
            if relation == "replaces" and rng.random() < 0.5:
                op["replaced_marker"] = {lang: ("Replaced by paragraph {p} of Article {a} of the MLI" if lang == "en"
                                                else "एमएलआई के अनुच्छेद {a} के पैराग्राफ {p} द्वारा प्रतिस्थापित")
                                         .format(a=article, p=paragraph) for lang in self.languages}
        op["text"] = self.donor()
        if rng.random() < 0.3:
            op["heading"] = {lang: f"MLI Article {article}" if lang == "en" else f"एमएलआई का अनुच्छेद {article}"
                             for lang in self.languages}
        if rng.random() < 0.3:
            op["source_line"] = rng.randint(1, 900)
        return op


def _descendants(rec: Rec) -> Iterator[Rec]:
    yield rec
    for child in rec.children:
        yield from _descendants(child)


# ------------------------------------------------------------------ YAML and files

def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, date):
        return f'"{value.isoformat()}"'
    text = str(value)
    if PLAIN_SCALAR.match(text) and text.lower() not in YAML_RESERVED:
        return text
    quoted = json.dumps(text, ensure_ascii=False)
    return YAML_ESCAPE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", quoted)


def to_yaml(value: Any) -> str:
    """Block-style YAML with every string double-quoted unless it is a plain identifier.

    Written here rather than by yaml.safe_dump: twenty times faster than PyYAML's Python dumper
    (three times libyaml's), and the same bytes on every machine, with or without libyaml."""
    lines: list[str] = []
    _emit(value, "", lines)
    return "\n".join(lines) + "\n"


def _emit(value: Any, indent: str, lines: list[str]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            head = f"{indent}{_scalar(key)}:"
            if isinstance(item, (dict, list)) and item:
                lines.append(head)
                _emit(item, indent + ("" if isinstance(item, list) else "  "), lines)
            else:
                lines.append(f"{head} {_flow(item)}")
    else:
        for item in value:
            if isinstance(item, (dict, list)) and item:
                nested: list[str] = []
                _emit(item, indent + "  ", nested)
                lines.append(f"{indent}- {nested[0][len(indent) + 2:]}")
                lines.extend(nested[1:])
            else:
                lines.append(f"{indent}- {_flow(item)}")


def _flow(value: Any) -> str:
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[" + ", ".join(_scalar(v) for v in value) + "]"
    return _scalar(value)


def _title(recs: list[Rec], index: int, fallback: str) -> str:
    """The treaty's printed title on one line (the `@title` block), for treaty.yaml."""
    title = next((r.node.text[index] for r in recs if r.eid == "title"), "")
    return " ".join(inline.clean(title).split()) or fallback


def make_treaty(index: int, seed: int, skeletons: list[Skeleton], pools: dict, codes: list[str]) -> dict[str, str]:
    """All files of synthetic treaty number `index` (0-based), as path → text."""
    rng = random.Random(seed + index)
    treaty = f"syn-{index + 1:05d}"
    skeleton = skeletons[index % len(skeletons)]
    languages = skeleton.languages
    pool = pools[languages]

    nodes = vary_texts(skeleton.nodes, rng, pool, Variation(rng, languages), rng.uniform(0.1, 0.5))
    nodes, articles_changed = vary_articles(nodes, rng, skeleton.candidates)
    documents = to_documents(treaty, languages, nodes)
    files = {f"sources/{treaty}/{lang}.txt": write(doc) for lang, doc in documents.items()}
    recs = records(documents[languages[0]], nodes, (skeleton.treaty, articles_changed))

    # Parties from positions.yaml, so that MLI overlays can compute their dates.
    parties = rng.sample(codes, 2) if len(codes) >= 2 else list(skeleton.parties)
    signed = date(rng.randint(1975, 2014), rng.randint(1, 12), rng.randint(1, 28))
    in_force = _random_day(rng, signed, 200, 900)
    articles = [r for r in recs if r.node.kind == "article"]
    stating = articles[-1].eid if articles else recs[-1].eid
    meta = {
        "id": treaty,
        "parties": parties,
        "titles": {lang: _title(recs, i, f"Synthetic treaty {treaty}") for i, lang in enumerate(languages)},
        "dates": {
            "signed": signed, "entry_into_force": in_force,
            "effect": {code: {"all": {"provision": stating, "rule": "fiscal years beginning on or after the "
                                      "first day of the period following entry into force",
                                      "from": _next_first(in_force, 4 if code == "IN" else 1)}}
                       for code in parties}},
        "languages": list(languages),
        "authentic": list(languages),
        "prevails": "en" if "en" in languages else None,
        "source": {"document": f"synthetic: derived from {skeleton.treaty} by benchmarks/make_corpus.py "
                               f"(seed {seed}, treaty {index})", "file": None, "notifications": []},
    }
    files[f"sources/{treaty}/treaty.yaml"] = (
        f"# Synthetic treaty for benchmarks, derived from {skeleton.treaty}: not a real treaty.\n" + to_yaml(meta))
    files.update(plan_overlays(treaty, rng, languages, recs, pool, parties, signed, in_force, codes))
    return files


def plan_overlays(treaty: str, rng: random.Random, languages: tuple[str, ...], recs: list[Rec], pool: list,
                  parties: list[str], signed: date, in_force: date, codes: list[str]) -> dict[str, str]:
    """One to four overlays that together use every operation type on real eIds of the treaty."""
    planner = Planner(rng, languages, recs, pool)
    protocol_items = [r for r in recs if r.node.kind == "protocol_item"]
    preamble = next((r for r in recs if r.eid == "preamble"), None)

    edits = [planner.replace(), planner.insert(), planner.delete(), planner.renumber(), planner.substitute()]
    if rng.random() < 0.5:
        edits.append(planner.substitute(with_occurrence=False))
    notes = [planner.note(protocol_items) for _ in range(rng.randint(1, 3))]
    annotations = [planner.annotate(rng.choice(["unknown", "protocol of amendment", "exchange of notes"]))
                   for _ in range(rng.randint(1, 2))]
    boxes = [planner.mli(relation, preamble) for relation in RELATIONS]
    edits, notes, annotations, boxes = ([op for op in group if op] for group in (edits, notes, annotations, boxes))

    count = rng.randint(1, 4)
    if count == 1:
        groups = [("protocol", edits + notes + annotations + boxes)]
    elif count == 2:
        groups = [("protocol", edits + notes + annotations), ("mli", boxes)]
    elif count == 3:
        groups = [("amendment-record", annotations), ("protocol", edits + notes), ("mli", boxes)]
    else:
        groups = [("amendment-record", annotations), ("protocol", edits),
                  (rng.choice(["protocol-notes", "exchange-of-notes"]), notes), ("mli", boxes)]

    instruments = []
    for kind, operations in groups:
        instruments.append(_instrument(kind, operations, rng, languages, parties, signed, in_force, codes))
    # Instruments apply in the order they were signed, as real amendments do.
    instruments.sort(key=lambda item: (item["signed"] or date.min, item["kind"]))
    files = {}
    for order, instrument in enumerate(instruments, start=1):
        files[f"overlays/{treaty}/{order:02d}-{instrument['id']}.yaml"] = (
            f"# Synthetic {instrument['kind']} for {treaty} (benchmarks/make_corpus.py).\n" + to_yaml(instrument))
    return files


def _instrument(kind: str, operations: list[dict], rng: random.Random, languages: tuple[str, ...],
                parties: list[str], signed: date, in_force: date, codes: list[str]) -> dict:
    titles = {"protocol": ("Protocol amending the Agreement", "समझौते में संशोधन करने वाला प्रोटोकॉल"),
              "protocol-notes": ("Protocol (interpretive notes)", "प्रोटोकॉल (व्याख्यात्मक टिप्पणियाँ)"),
              "exchange-of-notes": ("Exchange of notes", "पत्रों का आदान-प्रदान"),
              "amendment-record": ("Amendments recorded in the consolidated text", "समेकित पाठ में दर्ज संशोधन"),
              "mli": ("Multilateral Convention to Implement Tax Treaty Related Measures to Prevent Base "
                      "Erosion and Profit Shifting", "बहुपक्षीय समझौता (एमएलआई)")}
    english, hindi = titles[kind]
    title = {lang: hindi if lang == "hi" else english for lang in languages}
    data: dict[str, Any] = {"id": "", "kind": kind, "title": title}
    if kind == "mli":
        day = rng.choice([date(2017, 6, 7), date(2018, 1, 24), date(2019, 6, 27)])
        data["signed"] = day
        if all(code in codes for code in parties):
            data["effect"] = {"from_positions": True}
        else:
            data["effect"] = _effect(parties, _random_day(rng, day, 300, 900))
        data["id"] = "mli"
    elif kind == "amendment-record":
        data["signed"] = None if rng.random() < 0.5 else _random_day(rng, signed, 30, 3000)
        data["id"] = "amendments"
    elif kind in ("protocol-notes", "exchange-of-notes"):
        # Interpretive notes signed with the treaty take effect with it.
        data["signed"] = signed
        data["entry_into_force"] = in_force
        data["effect"] = _effect(parties, in_force)
        data["id"] = f"{'notes' if kind == 'protocol-notes' else 'exchange'}-{signed.year}"
    else:
        day = min(_random_day(rng, signed, 365, 20 * 365), date(2016, 12, 31))
        day = max(day, signed + timedelta(days=1))
        force = _random_day(rng, day, 100, 600)
        data["signed"] = day
        data["entry_into_force"] = force
        data["effect"] = _effect(parties, force)
        data["id"] = f"protocol-{day.year}"
        editing = [op for op in operations if op["op"] in ("replace", "insert", "substitute")]
        if editing and rng.random() < 0.5:
            # One change with a later date of its own (an operation's effect overrides the instrument's).
            code = rng.choice(parties)
            rng.choice(editing)["effect"] = {code: {"withholding": _next_first(force + timedelta(days=400))}}
    data["source"] = {"document": "synthetic", "note": "generated by benchmarks/make_corpus.py"}
    data["operations"] = operations
    return data


def _effect(parties: list[str], in_force: date) -> dict:
    return {code: {"withholding": _next_first(in_force), "other": _next_first(in_force, 4 if code == "IN" else 1)}
            for code in parties}


# ------------------------------------------------------------------ the command

_CONTEXT: dict[str, Any] = {}
CHUNK = 25  # treaties per task when several processes share the work


def _prepare(root: Path, seed: int, out: Path) -> None:
    """Load the real corpus once per process (the pool initializer, or the single process)."""
    skeletons = load_skeletons(root)
    _CONTEXT.update(root=root, seed=seed, out=out, skeletons=skeletons, pools=donor_pools(skeletons),
                    codes=sorted(load_positions(root / POSITIONS_RELATIVE).parties))


def _write_range(bounds: tuple[int, int]) -> tuple[int, int]:
    """Generate and write treaties start..stop-1; return (files, bytes) written."""
    files = size = 0
    out = _CONTEXT["out"]
    for index in range(*bounds):
        made = make_treaty(index, _CONTEXT["seed"], _CONTEXT["skeletons"], _CONTEXT["pools"], _CONTEXT["codes"])
        for relative, content in made.items():
            path = out / relative
            path.parent.mkdir(parents=True, exist_ok=True)
            data = content.encode("utf-8")
            path.write_bytes(data)
            files += 1
            size += len(data)
    return files, size


def generate(treaties: int, seed: int, out: Path, root: Path = REPO, force: bool = False,
             jobs: int = 1, chunk: int = CHUNK) -> dict:
    """Write `treaties` synthetic treaties under out/sources and out/overlays; return counts.

    Each treaty depends only on its index and the seed, so the output is the same for any `jobs`."""
    for name in ("sources", "overlays"):
        folder = out / name
        if folder.exists() and any(folder.iterdir()):
            if not force:
                raise SystemExit(f"{folder} is not empty; use --force to replace it")
            shutil.rmtree(folder)
    target = out / POSITIONS_RELATIVE
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(root / POSITIONS_RELATIVE, target)
    chunks = [(start, min(start + chunk, treaties)) for start in range(0, treaties, chunk)]
    if jobs <= 1 or len(chunks) == 1:
        _prepare(root, seed, out)
        results = [_write_range(bounds) for bounds in chunks]
    else:
        with multiprocessing.Pool(jobs, initializer=_prepare, initargs=(root, seed, out)) as pool:
            results = list(pool.imap_unordered(_write_range, chunks))
    return {"treaties": treaties, "files": 1 + sum(f for f, _ in results),
            "bytes": target.stat().st_size + sum(b for _, b in results)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--treaties", type=int, required=True, help="how many synthetic treaties")
    parser.add_argument("--seed", type=int, default=0, help="random seed (treaty i uses seed + i)")
    parser.add_argument("--out", type=Path, required=True, help="folder to write sources/ and overlays/ into")
    parser.add_argument("--root", type=Path, default=REPO, help="folder holding the real corpus")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                        help="processes to use (default: one per CPU); the output does not depend on it")
    parser.add_argument("--force", action="store_true", help="replace existing sources/ and overlays/ in --out")
    args = parser.parse_args(argv)
    if args.treaties < 1:
        parser.error("--treaties must be at least 1")
    start = time.perf_counter()
    counts = generate(args.treaties, args.seed, args.out, args.root, args.force, args.jobs)
    elapsed = time.perf_counter() - start
    print(f"generated {counts['treaties']} treaties ({counts['files']} files, {counts['bytes'] / 1e6:.1f} MB) "
          f"in {elapsed:.1f} s with {max(1, args.jobs)} process(es)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
