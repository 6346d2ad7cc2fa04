"""MLI boxes in words: lead-ins, headers and "[Replaced by …]" marks per language, from data."""

from __future__ import annotations

from .engine import Box
from .importer.boxes import mli_wording


def _eid_words(eid: str | None, lang: str) -> str:
    """'art_5__para_4' → the language's "paragraph 4 of Article 5 of this Agreement"."""
    wording = mli_wording().get(lang) or mli_wording()["en"]
    parts = dict(part.split("_", 1) for part in (eid or "").split("__") if "_" in part)
    if "art" in parts and "para" in parts:
        return wording["lead_in"]["target_paragraph"].format(article=parts["art"], paragraph=parts["para"])
    if "art" in parts:
        return wording["lead_in"]["target_article"].format(article=parts["art"])
    return eid or ""


def lead_in(box: Box, lang: str) -> str:
    """The published lead-in where the overlay carries it, else the language's template."""
    if box.lead_in.get(lang):
        return box.lead_in[lang]
    wording = mli_wording().get(lang) or mli_wording()["en"]
    template = wording["lead_in"][box.relation]
    return template.format(article=box.mli_article, paragraph=box.mli_paragraph,
                           target=_eid_words(box.target, lang))


def header(box: Box, lang: str) -> str:
    """The box header "Article N of the MLI – title", as published or from the MLI's titles."""
    if box.heading.get(lang):
        return box.heading[lang]
    wording = mli_wording().get(lang) or mli_wording()["en"]
    title = wording.get("titles", {}).get(box.mli_article, "")
    return wording["lead_in"]["header"].format(article=box.mli_article, title=title).rstrip(" -–")


def replaced_marker(box: Box | None, marker: dict, lang: str, article: int | None = None,
                    paragraph: int | None = None) -> str:
    """The "[Replaced by paragraph P of Article A of the MLI]" wording for replaced text."""
    if marker.get(lang):
        return marker[lang]
    wording = mli_wording().get(lang) or mli_wording()["en"]
    return wording["lead_in"]["replaced_marker"].format(
        article=box.mli_article if box else article, paragraph=box.mli_paragraph if box else paragraph)


def country_names(lang: str) -> dict[str, str]:
    """State names per ISO code in one language (English where the language has none)."""
    import yaml
    from importlib import resources

    data = yaml.safe_load(resources.files("consolidate").joinpath("data/countries.yaml").read_text("utf-8"))
    return {**data.get("en", {}), **data.get(lang, {})}


def preface(dates, lang: str, names: dict | None = None) -> list[str]:
    """The generated entry-into-effect section for an MLI version's dates (`VersionDates`)."""
    wording = (mli_wording().get(lang) or mli_wording()["en"])["preface"]
    names = names if names is not None else country_names(lang)
    lines = [wording["heading"]]
    result = dates.mli
    if result is None:
        return []
    for party in result.parties:
        if party.in_force:
            lines.append(wording["in_force"].format(state=names.get(party.code, party.code),
                                                    date=party.in_force.isoformat()))
    for code, taxes in dates.effect.items():
        state = names.get(code, code)
        if taxes.get("withholding") and taxes.get("other"):
            lines.append(wording["effect"].format(state=state, withholding=taxes["withholding"].isoformat(),
                                                  other=taxes["other"].isoformat()))
        else:
            lines.append(wording["pending"].format(state=state, reason="; ".join(dates.notes) or result.status))
    return lines
