"""Structure words per language, loaded from the package's data/keywords.yaml."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import regex
import yaml

from ..errors import ImportFailure


@dataclass(frozen=True)
class Keywords:
    """Compiled patterns for one language."""

    lang: str
    chapter: regex.Pattern
    article: regex.Pattern
    chapter_misspelt: regex.Pattern
    protocol: regex.Pattern
    annexure: regex.Pattern
    notification: regex.Pattern
    ad_article: tuple[regex.Pattern, ...]
    agreed: regex.Pattern
    title_end: regex.Pattern
    final_opener: regex.Pattern
    done_opener: regex.Pattern
    signature_opener: regex.Pattern
    new_paragraph_opener: regex.Pattern
    signature_mark: regex.Pattern


@lru_cache(maxsize=None)
def _data() -> dict:
    return yaml.safe_load(resources.files("consolidate").joinpath("data/keywords.yaml").read_text("utf-8"))


def languages() -> list[str]:
    return sorted(_data())


@lru_cache(maxsize=None)
def keywords(lang: str) -> Keywords:
    data = _data()
    if lang not in data:
        raise ImportFailure(f"unknown language {lang!r}; expected one of: {', '.join(sorted(data))}")
    entry = data[lang]
    compiled = {key: (tuple(regex.compile(p) for p in value) if isinstance(value, list) else regex.compile(value))
                for key, value in entry.items()}
    return Keywords(lang=lang, **compiled)
