"""Case files for `consolidate effect-dates CASE.yaml`: read one, compute the MLI effect dates."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from .dates import SIX_MONTHS, EffectResult, Party, effect_dates
from .errors import DateRuleError, Location
from .findings import Findings
from .positions import (CODE_SCHEMA, DATE_SCHEMA, MONTH_DAY_SCHEMA, OPTION_SCHEMA,
                        PERIOD_START_SCHEMA, default_positions_path, load_positions,
                        read_month_day, read_period_starts, resolve_pair)
from .yamlload import LocatedDict, check_schema, load_yaml, parse_date

_TOP_PROPERTIES = {
    "treaty": {"type": "string", "minLength": 1},
    "shorter_period_months": {"type": "integer", "minimum": 1, "maximum": SIX_MONTHS - 1},
    "added_later": DATE_SCHEMA,
}

# Extra keys are allowed in case files (they may carry labels or comments for people).
EXPLICIT_PARTY_SCHEMA = {
    "type": "object",
    "required": ["deposit"],
    "properties": {
        "deposit": {"anyOf": [{"type": "null"}, DATE_SCHEMA]},
        "options": {"type": "array", "items": OPTION_SCHEMA, "uniqueItems": True},
        "notification_35_7": {"anyOf": [{"type": "null"}, DATE_SCHEMA]},
        "part_vi": {"type": "boolean"},
        "taxable_period_start": PERIOD_START_SCHEMA,
        "withholding_period_start": MONTH_DAY_SCHEMA,
        "added_later": DATE_SCHEMA,
        "covers": {"type": "array", "items": CODE_SCHEMA, "uniqueItems": True},
    },
}

EXPLICIT_CASE_SCHEMA = {
    "type": "object",
    "required": ["parties"],
    "properties": {**_TOP_PROPERTIES, "parties": {
        "type": "object", "propertyNames": CODE_SCHEMA,
        "additionalProperties": EXPLICIT_PARTY_SCHEMA}},
}

TREATY_CASE_SCHEMA = {
    "type": "object",
    "required": ["treaty", "parties"],
    "properties": {**_TOP_PROPERTIES, "parties": {
        "type": "array", "items": CODE_SCHEMA, "uniqueItems": True}},
}


def effect_dates_from_case(path: Path, root: Path, positions_path: Path | None = None,
                           findings: Findings | None = None) -> dict:
    """The JSON-able `effect-dates` output for the case file at `path`."""
    return effect_from_case(path, root, positions_path, findings).to_json_dict()


def effect_from_case(path: Path, root: Path, positions_path: Path | None = None,
                     findings: Findings | None = None) -> EffectResult:
    """Compute the case at `path`; codes are looked up in positions.yaml under `root`."""
    where = str(path)
    document = load_yaml(path, DateRuleError)
    if not isinstance(document, LocatedDict):
        raise DateRuleError("a case file is a mapping with a `parties` key",
                            Location(where, getattr(document, "line", 1)))
    parties = document.get("parties")
    if not isinstance(parties, (list, dict)):
        raise DateRuleError("`parties` must be a list of party codes or a mapping of parties",
                            Location(where, document.key_line("parties")))
    if len(parties) != 2:
        raise DateRuleError(f"a treaty needs exactly two parties, got {len(parties)}",
                            Location(where, document.key_line("parties")))
    if isinstance(parties, list):
        check_schema(document, TREATY_CASE_SCHEMA, where, DateRuleError)
        result = _from_positions(document, where, root, positions_path, findings)
    else:
        check_schema(document, EXPLICIT_CASE_SCHEMA, where, DateRuleError)
        result = _from_explicit(document, where)
    if findings is not None:
        for code, message in result.reasons:
            findings.add(code, message, Location(where, document.line),
                         target=document.get("treaty"), severity="info")
    return result


def _added_later(document: LocatedDict, where: str) -> date | None:
    if "added_later" not in document:
        return None
    return parse_date(document["added_later"], where, document.key_line("added_later"),
                      DateRuleError)


def _from_positions(document: LocatedDict, where: str, root: Path,
                    positions_path: Path | None, findings: Findings | None) -> EffectResult:
    codes = document["parties"]
    positions = load_positions(positions_path or default_positions_path(root))
    for index, code in enumerate(codes):
        if code not in positions:
            known = ", ".join(sorted(positions.parties))
            raise DateRuleError(f"unknown party code {code!r} (positions has {known})",
                                Location(where, codes.item_line(index)))
    pair = resolve_pair(positions, document["treaty"], codes, Location(where, document.line))
    if findings is not None:
        for position in (pair.first, pair.second):
            if position.assumed:
                findings.add("DATE.POSITION_ASSUMED",
                             f"{position.code}: assumed {', '.join(position.assumed)}",
                             Location(positions.path, position.line), target=pair.treaty,
                             excerpt=position.note, severity="info")
    return pair.effect(added_later=_added_later(document, where),
                       shorter_period_months=document.get("shorter_period_months"))


def _explicit_party(code: str, raw: LocatedDict, where: str) -> tuple[Party, date | None]:
    def day(key: str) -> date | None:
        value = raw.get(key)
        return None if value is None else parse_date(value, where, raw.key_line(key), DateRuleError)

    options = frozenset(raw.get("options", ()))
    notification = day("notification_35_7")
    if notification is not None and "35(7)" not in options:
        raise DateRuleError(f"{code}: notification_35_7 given without option 35(7)",
                            Location(where, raw.key_line("notification_35_7")))
    withholding = None
    if "withholding_period_start" in raw:
        withholding = read_month_day(raw["withholding_period_start"], where,
                                     raw.key_line("withholding_period_start"))
    try:
        party = Party(
            code=code, deposit=day("deposit"), options=options, notification_35_7=notification,
            part_vi=raw.get("part_vi", False),
            period_starts=read_period_starts(raw.get("taxable_period_start"), where,
                                             raw.key_line("taxable_period_start")),
            withholding_period_start=withholding)
    except ValueError as exc:
        raise DateRuleError(str(exc), Location(where, raw.key_line("options"))) from None
    return party, day("added_later")


def _from_explicit(document: LocatedDict, where: str) -> EffectResult:
    raws = document["parties"]
    (code_a, raw_a), (code_b, raw_b) = raws.items()
    first, added_a = _explicit_party(code_a, raw_a, where)
    second, added_b = _explicit_party(code_b, raw_b, where)
    # A party without `covers` is taken to have listed the treaty.
    covered = all(other in raw.get("covers", [other])
                  for raw, other in ((raw_a, code_b), (raw_b, code_a)))
    listed = [d for d in (added_a, added_b, _added_later(document, where)) if d is not None]
    # The treaty becomes covered when the later of the parties lists it.
    added_later = max(listed) if listed else None
    return effect_dates(first, second, covered=covered, added_later=added_later,
                        shorter_period_months=document.get("shorter_period_months"))
