"""Editorial notes for readers: what the published source lacks or what was inferred, per provision.

Derived from the tree itself, so they hold for every version: a chapeau whose list items the
source does not print, a provision printed with its number only, an amendment marker whose end
was inferred, a title that runs on into the text.
"""

from __future__ import annotations

import regex

from . import inline
from .model import Document

CHAPEAU_END = regex.compile(r"(?::|:-|: -|:—|—|–)\s*$")

NOTES = {
    "en": {
        "items_missing": "List items missing in the published source.",
        "empty": "Only the number of this provision is printed in the published source.",
        "inferred_end": "The end of the amended text is not marked in the published source; it was inferred.",
    },
    "hi": {
        "items_missing": "प्रकाशित स्रोत में सूची की मदें नहीं हैं। (List items missing in the published source.)",
        "empty": "प्रकाशित स्रोत में इस प्रावधान की केवल संख्या है। (Only the number is printed in the source.)",
        "inferred_end": "प्रकाशित स्रोत में संशोधित पाठ का अंत चिह्नित नहीं है; अनुमानित। (End of the amendment inferred.)",
    },
}


def reader_notes(document: Document) -> dict[str, list[str]]:
    """eId → editorial notes in the document's language (English where no wording exists)."""
    words = NOTES.get(document.lang, NOTES["en"])
    notes: dict[str, list[str]] = {}
    for node in document.walk():
        text = inline.clean(node.text).strip()
        if node.kind in ("paragraph", "subparagraph", "item") and not node.children:
            if CHAPEAU_END.search(text):
                notes.setdefault(node.eid, []).append(words["items_missing"])
            elif not text:
                notes.setdefault(node.eid, []).append(words["empty"])
        for part in (node.label or "", node.heading or "", node.text):
            if any(t.kind == "end" and not t.printed for t in inline.tokens(part)):
                notes.setdefault(node.eid, []).append(words["inferred_end"])
    return notes
