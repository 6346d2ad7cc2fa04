"""The prebuilt search index, in script files so that search works from disk.

Pages opened from disk cannot fetch files, but they can load scripts. The index has two levels,
so that a build after a change to one treaty redoes only that treaty's part and a cheap merge:

* per treaty, `assets/search/docs-<treaty>.js` — its provisions (language, eId, page, snippet)
  and, for every word, the provisions it occurs in; made when the treaty is rendered, cached
  with it;
* for the whole site, `assets/search/words-<key>.js` — for each treaty, its words that start with
  the character whose hex code is `key`, as one space-separated string; a query scans it for
  its words (whole or as prefixes) to find the treaties worth loading;
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
    """The shard a word lives in: the hex code of its first character."""
    return f"{ord(word[0]):x}"


def treaty_index(treaty: str, entries: list[dict]) -> tuple[bytes, dict[str, str]]:
    """One treaty's docs file, and its words by shard key (for the site-wide word lists)."""
    docs = []
    postings: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        docs.append([entry["l"], entry["e"], entry["u"], entry["x"][:SNIPPET]])
        for word in set(words(entry["x"])):
            postings.setdefault(word, []).append(index)
    by_key: dict[str, list[str]] = {}
    for word in sorted(postings):
        by_key.setdefault(shard_key(word), []).append(word)
    payload = {"docs": docs, "words": {w: sorted(postings[w]) for w in sorted(postings)}}
    script = _script("SEARCH_DOCS", treaty, payload)
    return script, {key: " ".join(ws) for key, ws in sorted(by_key.items())}


def site_index(treaties: list[tuple[str, dict[str, str]]]) -> dict[str, bytes]:
    """The site-wide files from each treaty's words by shard key, in treaty order."""
    shards: dict[str, list] = {}
    for number, (_, by_key) in enumerate(treaties):
        for key, joined in by_key.items():
            shards.setdefault(key, []).append([number, joined])
    files = {f"assets/search/words-{key}.js": _script("SEARCH_WORDS", key, shards[key]) for key in sorted(shards)}
    files["assets/search/treaties.js"] = ("window.SEARCH_TREATIES = "
                                          + json.dumps([t for t, _ in treaties], ensure_ascii=False) + ";\n").encode()
    return files


def _script(table: str, key: str, value) -> bytes:
    return (f"window.{table} = window.{table} || {{}};\n"
            f"window.{table}[{json.dumps(key)}] = "
            + json.dumps(value, ensure_ascii=False, separators=(",", ":")) + ";\n").encode()
