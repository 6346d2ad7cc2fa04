"""The prebuilt search index: an inverted index in script files, so search works from disk.

Pages opened from disk cannot fetch files, but they can load scripts. The index is split
so that a query loads only what it needs:

* `assets/search/terms-<key>.js` — for every word starting with the same character, the
  provisions it occurs in (as [treaty number, provision number] pairs);
* `assets/search/docs-<treaty>.js` — for one treaty, its provisions: language, eId, page and
  a snippet;
* `assets/search/treaties.js` — the treaty ids, in the order the numbers refer to.
"""

from __future__ import annotations

import json
import unicodedata

import regex

WORD = regex.compile(r"[\p{L}\p{M}\p{N}]+")
SNIPPET = 200


def words(text: str) -> list[str]:
    """Index words: NFC, lower case, letters with their marks and digits; two characters or more."""
    return [w for w in WORD.findall(unicodedata.normalize("NFC", text).lower()) if len(w) >= 2]


def shard_key(word: str) -> str:
    """The shard a word's postings live in: the hex code of its first character."""
    return f"{ord(word[0]):x}"


def build_index(treaties: list[tuple[str, list[dict]]]) -> dict[str, bytes]:
    """Index files for [(treaty id, entries)], each entry {l, e, u, x} (lang, eId, page, text)."""
    files: dict[str, bytes] = {}
    postings: dict[str, dict[str, list[tuple[int, int]]]] = {}
    ids = []
    for number, (treaty, entries) in enumerate(treaties):
        ids.append(treaty)
        docs = []
        for index, entry in enumerate(entries):
            docs.append([entry["l"], entry["e"], entry["u"], entry["x"][:SNIPPET]])
            for word in sorted(set(words(entry["x"]))):
                postings.setdefault(shard_key(word), {}).setdefault(word, []).append((number, index))
        files[f"assets/search/docs-{treaty}.js"] = _script("SEARCH_DOCS", treaty, docs)
    for key, terms in sorted(postings.items()):
        files[f"assets/search/terms-{key}.js"] = _script("SEARCH_TERMS", key, {w: terms[w] for w in sorted(terms)})
    files["assets/search/treaties.js"] = ("window.SEARCH_TREATIES = "
                                          + json.dumps(ids, ensure_ascii=False) + ";\n").encode()
    return files


def _script(table: str, key: str, value) -> bytes:
    return (f"window.{table} = window.{table} || {{}};\n"
            f"window.{table}[{json.dumps(key)}] = "
            + json.dumps(value, ensure_ascii=False, separators=(",", ":")) + ";\n").encode()
