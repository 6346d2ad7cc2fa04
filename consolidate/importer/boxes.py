"""MLI boxes and "[Replaced by …]" marks in a published synthesised text."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import regex
import yaml

from ..findings import Findings
from .rawtext import Block


@lru_cache(maxsize=None)
def mli_wording() -> dict:
    """The MLI wording data (lead-ins, patterns, titles) shipped with the package."""
    return yaml.safe_load(resources.files("consolidate").joinpath("data/mli.yaml").read_text("utf-8"))


@dataclass(frozen=True)
class Box:
    """One MLI provision as printed in a box, with what its lead-in says."""

    line: int
    mli_article: int
    mli_paragraph: int
    relation: str
    target: str | None
    lead_in: str
    heading: str
    text: str
    raw: str


@dataclass(frozen=True)
class Replaced:
    """Old treaty text printed under a "[Replaced by MLI …]" mark."""

    line: int
    marker: str
    mli_article: int
    mli_paragraph: int
    old: str
    raw: str


def extract(blocks: list[Block], lang: str, path: str, findings: Findings
            ) -> tuple[list[Block], list[Box], list[Replaced]]:
    """Split boxes and replaced-text marks out of the block list."""
    wording = mli_wording().get(lang)
    if not wording:
        return blocks, [], []
    rec = wording["recognise"]
    start_re, replaced_re = regex.compile(rec["box_start"]), regex.compile(rec["replaced"])
    kept, boxes, replaced = [], [], []
    for block in blocks:
        if start_re.match(block.text):
            boxes.append(_box(block, wording, path, findings))
            findings.add("IMPORT.MLI_BOX_EXTRACTED",
                         f"MLI Article {boxes[-1].mli_article}({boxes[-1].mli_paragraph}) box moved to "
                         f"the draft MLI overlay ({boxes[-1].relation}, target {boxes[-1].target or 'the agreement'})",
                         block.where(path), target=boxes[-1].target)
            continue
        match = replaced_re.match(block.text)
        if match:
            replaced.append(Replaced(block.line, match["marker"], int(match["article"]),
                                     int(match["paragraph"]), match["old"], block.text))
            kept.append(Block(match["old"], block.line, block.offset))
            continue
        kept.append(block)
    return kept, boxes, replaced


def _box(block: Block, wording: dict, path: str, findings: Findings) -> Box:
    rec = wording["recognise"]
    text = block.text
    start = regex.match(rec["box_start"], text)
    header = None
    for candidate in regex.finditer(rec["header"], text):
        if candidate.start() > 0:
            header = candidate
            break
    if header is None:
        lead_in, rest, heading = text, "", ""
    else:
        lead_in = text[: header.start()].rstrip()
        body = text[header.end():]
        title = str(wording.get("titles", {}).get(int(header["article"]), ""))
        if title and _squash(body).startswith(_squash(title)):
            cut = _prefix_length(body, title)
            heading = text[header.start(): header.end()] + body[:cut]
            rest = body[cut:].strip()
        else:
            heading = text[header.start(): header.end()].rstrip(" -–")
            rest = body.strip()
            findings.add("IMPORT.MLI_BOX_EXTRACTED",
                         f"box title of MLI Article {header['article']} not found in the MLI wording "
                         "data; the header was kept without a title and the rest taken as text",
                         block.where(path))
    relation = next((r["relation"] for r in rec["relation"] if regex.search(r["pattern"], lead_in)),
                    "applies-to")
    target: str | None = None
    if relation == "included-in-preamble":
        target = "preamble"
    elif relation in ("applies-to", "replaces"):
        para = regex.search(rec["target_paragraph"], lead_in)
        art = regex.search(rec["target_article"], lead_in)
        if para:
            target = f"art_{para['article']}__para_{para['paragraph']}"
        elif art:
            target = f"art_{art['article']}"
    return Box(block.line, int(start["article"]), int(start["paragraph"]), relation, target,
               lead_in, heading.strip(), rest, text)


def _squash(text: str) -> str:
    return regex.sub(r"\s+", " ", text).strip()


def _prefix_length(body: str, title: str) -> int:
    """Length of the prefix of `body` that equals `title` up to whitespace."""
    want = _squash(title)
    got = ""
    for index, char in enumerate(body):
        if not (char.isspace() and (not got or got.endswith(" "))):
            got += " " if char.isspace() else char
        if _squash(got) == want:
            return index + 1
    return len(body)
