"""`effect-dates` case files: both forms, the bundled examples, and located errors."""

from __future__ import annotations

import json
import shutil
import textwrap
from pathlib import Path

import pytest

from consolidate.effect_case import effect_dates_from_case, effect_from_case
from consolidate.errors import DateRuleError
from consolidate.findings import Findings

ROOT = Path(__file__).resolve().parents[1]
CASES = ROOT / "tests" / "data" / "cases"

IN_PT = {
    "status": "in effect", "base": "2020-06-01", "parties": {
        "IN": {"in_force": "2019-10-01", "withholding": "2021-04-01", "other_taxes": "2020-12-01",
               "other_taxes_first_period": "2021-04-01", "map": "2020-06-01", "arbitration": None},
        "PT": {"in_force": "2020-06-01", "withholding": "2021-01-01", "other_taxes": "2020-12-01",
               "other_taxes_first_period": "2021-01-01", "map": "2020-06-01", "arbitration": None},
    }}

IN_GB = {
    "status": "in effect", "base": "2019-10-01", "parties": {
        "IN": {"in_force": "2019-10-01", "withholding": "2020-04-01", "other_taxes": "2020-04-01",
               "other_taxes_first_period": "2020-04-01", "map": "2019-10-01", "arbitration": None},
        "GB": {"in_force": "2018-10-01", "withholding": "2020-01-01", "other_taxes": "2020-04-01",
               "other_taxes_first_period": {"corporation_tax": "2020-04-01",
                                            "income_tax": "2020-04-06",
                                            "capital_gains_tax": "2020-04-06"},
               "map": "2019-10-01", "arbitration": None},
    }}

LU_AD = {
    "status": "pending", "base": None, "parties": {
        code: {"in_force": in_force, "withholding": None, "other_taxes": None,
               "other_taxes_first_period": None, "map": None, "arbitration": None}
        for code, in_force in (("LU", "2019-08-01"), ("AD", "2022-01-01"))}}


def write_case(tmp_path: Path, text: str, name: str = "case.yaml") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def run(tmp_path: Path, text: str) -> dict:
    return effect_dates_from_case(write_case(tmp_path, text), ROOT)


@pytest.mark.parametrize("name, output", [("in-pt", IN_PT), ("in-gb", IN_GB), ("lu-ad", LU_AD)])
def test_bundled_examples(name, output):
    result = effect_dates_from_case(CASES / f"{name}.yaml", ROOT)
    assert result == output
    assert json.loads(json.dumps(result)) == result


def test_explicit_form_matches_the_positions_form(tmp_path):
    assert run(tmp_path, """\
        parties:
          IN: {deposit: 2019-06-25, options: ["35(2)"], taxable_period_start: "04-01"}
          PT: {deposit: 2020-02-28, options: []}
        """) == IN_PT


def test_extra_keys_are_allowed(tmp_path):
    assert run(tmp_path, """\
        label: India-Portugal, written out
        parties:
          IN: {deposit: 2019-06-25, options: ["35(2)"], taxable_period_start: "04-01", name: India}
          PT: {deposit: 2020-02-28, options: [], source: synthesised text}
        """) == IN_PT


def party_of(result: dict, code: str) -> dict:
    return result["parties"][code]


def test_35_7_notification_in_a_case(tmp_path):
    result = run(tmp_path, """\
        parties:
          LU: {deposit: 2019-04-09, part_vi: true}
          AD: {deposit: 2021-09-29, options: ["35(3)", "35(7)"], part_vi: true,
               notification_35_7: 2024-03-15}
        """)
    assert result["status"] == "in effect" and result["base"] == "2024-04-14"
    assert party_of(result, "LU")["other_taxes"] == "2024-10-14"
    assert party_of(result, "AD")["other_taxes"] == "2025-01-01"
    assert party_of(result, "AD")["arbitration"] == "2024-04-14"


def test_35_7_without_notification_is_pending(tmp_path):
    result = run(tmp_path, """\
        parties:
          LU: {deposit: 2019-04-09}
          AD: {deposit: 2021-09-29, options: ["35(7)"], notification_35_7: null}
        """)
    assert result["status"] == "pending" and result["base"] is None


@pytest.mark.parametrize("where", ["top", "party"])
def test_added_later(tmp_path, where):
    top = "added_later: 2020-12-15\n" if where == "top" else ""
    late = ", added_later: 2020-12-15" if where == "party" else ""
    result = run(tmp_path, top + textwrap.dedent(f"""\
        parties:
          IN: {{deposit: 2019-06-25, options: ["35(2)"], taxable_period_start: "04-01"{late}}}
          PT: {{deposit: 2020-02-28}}
        """))
    assert result["base"] == "2020-12-15"
    assert party_of(result, "PT")["withholding"] == "2022-01-01"
    assert party_of(result, "PT")["other_taxes"] == "2021-09-15"
    assert party_of(result, "IN")["other_taxes_first_period"] == "2022-04-01"


def test_shorter_period_and_35_6_and_part_vi(tmp_path):
    result = run(tmp_path, """\
        shorter_period_months: 3
        parties:
          PT: {deposit: 2020-02-28, part_vi: true, options: ["35(6)"]}
          GB: {deposit: 2018-06-29, part_vi: true}
        """)
    assert party_of(result, "PT")["other_taxes"] == "2020-09-01"
    assert party_of(result, "GB")["map"] is None
    assert party_of(result, "GB")["arbitration"] == "2020-06-01"


def test_covers_in_an_explicit_case(tmp_path):
    result = run(tmp_path, """\
        parties:
          IN: {deposit: 2019-06-25, covers: [PT, GB]}
          DE: {deposit: 2020-12-18, options: ["35(7)"], covers: [LU]}
        """)
    assert result["status"] == "not a covered agreement"
    assert party_of(result, "DE")["in_force"] == "2021-04-01"


def test_positions_form_with_top_level_settings(tmp_path):
    result = run(tmp_path, """\
        treaty: in-pt
        parties: [PT, IN]
        shorter_period_months: 2
        """)
    assert list(result["parties"]) == ["PT", "IN"]
    assert party_of(result, "PT")["other_taxes"] == "2020-08-01"


def test_positions_path_defaults_under_root(tmp_path):
    shutil.copytree(ROOT / "overlays", tmp_path / "overlays")
    positions = tmp_path / "overlays" / "mli" / "positions.yaml"
    positions.write_text(positions.read_text(encoding="utf-8").replace(
        "deposit: 2020-02-28", "deposit: 2020-03-01"), encoding="utf-8")
    case = write_case(tmp_path, "treaty: in-pt\nparties: [IN, PT]\n")
    assert effect_dates_from_case(case, tmp_path)["base"] == "2020-06-01"
    assert effect_dates_from_case(case, tmp_path)["parties"]["PT"]["in_force"] == "2020-06-01"
    shifted = positions.read_text(encoding="utf-8").replace(
        "deposit: 2020-03-01", "deposit: 2020-03-02")
    positions.write_text(shifted, encoding="utf-8")
    assert effect_dates_from_case(case, tmp_path)["base"] == "2020-07-01"
    # An explicit positions path wins over the root.
    assert effect_dates_from_case(case, tmp_path, ROOT / "overlays/mli/positions.yaml") == IN_PT


def test_findings_explain_pending_and_assumptions():
    findings = Findings()
    effect_from_case(CASES / "lu-ad.yaml", ROOT, findings=findings)
    assert "DATE.PENDING_35_7" in findings.codes()
    assert findings.count("DATE.POSITION_ASSUMED") == 2
    pending = next(f for f in findings if f.code == "DATE.PENDING_35_7")
    assert str(pending.location).endswith("lu-ad.yaml:2") and pending.target == "lu-ad"


MALFORMED = [
    ("unknown option", """\
        parties:
          IN: {deposit: 2019-06-25, options: ["35(2)", "35(8)"]}
          PT: {deposit: 2020-02-28}
        """, 2, "parties.IN.options[1]: '35(8)' is not one of"),
    ("impossible deposit", """\
        parties:
          IN: {deposit: 2019-06-25}
          PT:
            deposit: 2019-02-30
        """, 4, "impossible date '2019-02-30'"),
    ("impossible notification", """\
        parties:
          LU: {deposit: 2019-04-09}
          AD:
            deposit: 2021-09-29
            options: ["35(7)"]
            notification_35_7: 2024-02-30
        """, 6, "impossible date '2024-02-30'"),
    ("impossible added_later", """\
        added_later: 2021-13-01
        parties:
          IN: {deposit: 2019-06-25}
          PT: {deposit: 2020-02-28}
        """, 1, "impossible date"),
    ("only one party", """\
        # one party
        parties:
          IN: {deposit: 2019-06-25}
        """, 2, "exactly two parties, got 1"),
    ("only one code", """\
        treaty: in-pt
        parties: [IN]
        """, 2, "exactly two parties, got 1"),
    ("three codes", """\
        treaty: x
        parties: [IN, PT, GB]
        """, 2, "exactly two parties, got 3"),
    ("unknown party code", """\
        treaty: in-xx
        parties:
          - IN
          - XX
        """, 4, "unknown party code 'XX'"),
    ("repeated code", """\
        treaty: x
        parties: [IN, IN]
        """, 2, "non-unique"),
    ("codes without treaty", """\
        parties: [IN, PT]
        """, 1, "'treaty' is a required property"),
    ("bool as string", """\
        parties:
          IN: {deposit: 2019-06-25}
          PT: {deposit: 2020-02-28, part_vi: "yes"}
        """, 3, "'yes' is not of type 'boolean'"),
    ("options not a list", """\
        parties:
          IN:
            deposit: 2019-06-25
            options: "35(2)"
          PT: {deposit: 2020-02-28}
        """, 4, "is not of type 'array'"),
    ("deposit as a number", """\
        parties:
          IN: {deposit: 2019}
          PT: {deposit: 2020-02-28}
        """, 2, "2019 is not valid"),
    ("missing deposit", """\
        parties:
          IN: {options: []}
          PT: {deposit: 2020-02-28}
        """, 2, "'deposit' is a required property"),
    ("bad period start", """\
        parties:
          IN: {deposit: 2019-06-25, taxable_period_start: "04-31"}
          PT: {deposit: 2020-02-28}
        """, 2, "not a day of every year: 04-31"),
    ("bad period kind", """\
        parties:
          IN: {deposit: 2019-06-25}
          GB:
            deposit: 2018-06-29
            taxable_period_start:
              corporation_tax: "04-01"
              income_tax: 0406
        """, 7, "income_tax: '0406' does not match"),
    ("35(2) with several starts", """\
        parties:
          IN: {deposit: 2019-06-25}
          GB:
            deposit: 2018-06-29
            options: ["35(2)"]
            taxable_period_start: {corporation_tax: "04-01", income_tax: "04-06"}
        """, 5, "needs withholding_period_start"),
    ("notification without reservation", """\
        parties:
          IN: {deposit: 2019-06-25}
          PT:
            deposit: 2020-02-28
            notification_35_7: 2021-01-01
        """, 5, "notification_35_7 given without option 35(7)"),
    ("shorter period too long", """\
        shorter_period_months: 6
        parties:
          IN: {deposit: 2019-06-25}
          PT: {deposit: 2020-02-28}
        """, 1, "6 is greater than the maximum of 5"),
    ("shorter period as text", """\
        parties:
          IN: {deposit: 2019-06-25}
          PT: {deposit: 2020-02-28}
        shorter_period_months: "3"
        """, 4, "is not of type 'integer'"),
    ("lower-case code", """\
        parties:
          IN: {deposit: 2019-06-25}
          pt: {deposit: 2020-02-28}
        """, 3, "'pt' does not match"),
    ("parties not a collection", """\
        treaty: x
        parties: IN-PT
        """, 2, "`parties` must be a list"),
    ("not a mapping", """\
        - IN
        - PT
        """, 1, "a case file is a mapping"),
    ("duplicate key", """\
        parties:
          IN: {deposit: 2019-06-25}
          PT: {deposit: 2020-02-28}
          IN: {deposit: 2019-06-25}
        """, 4, "duplicate key 'IN'"),
    ("malformed YAML", """\
        parties:
          IN: {deposit: 2019-06-25
          PT: {deposit: 2020-02-28}
        """, 3, "malformed YAML"),
]


@pytest.mark.parametrize("name, text, line, fragment", MALFORMED, ids=[m[0] for m in MALFORMED])
def test_malformed_cases_are_located(tmp_path, name, text, line, fragment):
    case = write_case(tmp_path, text)
    with pytest.raises(DateRuleError) as info:
        effect_dates_from_case(case, ROOT)
    assert str(info.value).startswith(f"{case}:{line}: ")
    assert fragment in str(info.value)


def test_non_utf8_case_is_located(tmp_path):
    case = tmp_path / "case.yaml"
    case.write_bytes(b"treaty: in-pt\n# na\xefve\nparties: [IN, PT]\n")
    with pytest.raises(DateRuleError, match=r"case\.yaml:2: not UTF-8"):
        effect_dates_from_case(case, ROOT)


def test_missing_case_file(tmp_path):
    with pytest.raises(DateRuleError, match="cannot read"):
        effect_dates_from_case(tmp_path / "absent.yaml", ROOT)


def test_missing_positions_file_is_reported(tmp_path):
    case = write_case(tmp_path, "treaty: in-pt\nparties: [IN, PT]\n")
    with pytest.raises(DateRuleError, match="positions.yaml: cannot read"):
        effect_dates_from_case(case, tmp_path)
