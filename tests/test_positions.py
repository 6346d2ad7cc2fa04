"""positions.yaml: the recorded facts, its validation, and treaty pairs."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from consolidate.dates import IN_EFFECT, NOT_COVERED, PENDING, MonthDay, PeriodStart
from consolidate.errors import DateRuleError, Location
from consolidate.positions import default_positions_path, load_positions, resolve_pair

ROOT = Path(__file__).resolve().parents[1]
POSITIONS = default_positions_path(ROOT)
D = date.fromisoformat


@pytest.fixture(scope="module")
def positions():
    return load_positions(POSITIONS)


def test_default_path_is_under_the_root():
    assert POSITIONS == ROOT / "overlays" / "mli" / "positions.yaml"
    assert POSITIONS.is_file()


def test_every_seed_party_is_recorded_with_a_note(positions):
    for code in ("IN", "PT", "DE", "CL", "BR", "LU", "AD", "GB"):
        assert code in positions
        assert positions[code].note, f"{code} has no note"


@pytest.mark.parametrize("code, deposit, options, part_vi", [
    ("IN", "2019-06-25", {"35(2)"}, False),
    ("PT", "2020-02-28", set(), True),
    ("GB", "2018-06-29", set(), True),
    ("LU", "2019-04-09", set(), True),
    ("DE", "2020-12-18", {"35(7)"}, True),
    ("CL", "2020-11-26", set(), False),
    ("AD", "2021-09-29", {"35(3)", "35(7)"}, True),
])
def test_known_facts(positions, code, deposit, options, part_vi):
    position = positions[code]
    assert position.deposit == D(deposit)
    assert position.options == options
    assert position.part_vi is part_vi


def test_brazil_is_not_a_party(positions):
    assert positions["BR"].deposit is None and not positions["BR"].covers


def test_taxable_period_starts(positions):
    assert positions["IN"].period_starts == (PeriodStart(None, MonthDay(4, 1)),)
    assert positions["PT"].period_starts == (PeriodStart(None, MonthDay(1, 1)),)
    assert dict((p.kind, str(p.start)) for p in positions["GB"].period_starts) == {
        "corporation_tax": "04-01", "income_tax": "04-06", "capital_gains_tax": "04-06"}


def test_no_andorra_notification_is_recorded(positions):
    assert positions["AD"].notifications_35_7 == ()
    assert positions["AD"].notification_for("LU") is None


@pytest.mark.parametrize("codes, status", [
    (("IN", "PT"), IN_EFFECT),
    (("PT", "IN"), IN_EFFECT),
    (("IN", "GB"), IN_EFFECT),
    (("LU", "AD"), PENDING),
    (("IN", "DE"), NOT_COVERED),   # Germany did not list India
    (("IN", "CL"), NOT_COVERED),   # the 2020 agreement is not a CTA
    (("IN", "BR"), NOT_COVERED),   # Brazil is not a party
])
def test_seed_treaties(positions, codes, status):
    pair = resolve_pair(positions, "t", codes)
    assert pair.effect().status == status


def test_india_portugal_from_positions(positions):
    result = resolve_pair(positions, "in-pt", ["IN", "PT"]).effect()
    assert result.base == D("2020-06-01")
    assert result.party("IN").withholding == D("2021-04-01")
    assert result.party("IN").other_taxes_first_period == D("2021-04-01")
    assert result.party("PT").withholding == D("2021-01-01")
    assert result.party("PT").other_taxes == D("2020-12-01")


def positions_text() -> str:
    return POSITIONS.read_text(encoding="utf-8")


def test_entering_andorra_notification_brings_the_treaty_into_effect(tmp_path):
    text = positions_text()
    marker = 'options: ["35(3)", "35(7)"]\n    notifications_35_7: []'
    assert marker in text
    text = text.replace(marker, 'options: ["35(3)", "35(7)"]\n    notifications_35_7:\n'
                                "      - {partner: LU, date: 2024-03-15}")
    path = tmp_path / "positions.yaml"
    path.write_text(text, encoding="utf-8")
    result = resolve_pair(load_positions(path), "lu-ad", ["LU", "AD"]).effect()
    assert result.status == IN_EFFECT
    assert result.base == D("2024-04-14")  # N + 30 days, for both parties
    assert result.party("LU").other_taxes == D("2024-10-14")
    assert result.party("AD").other_taxes == D("2025-01-01")  # Andorra's 35(3)


MINIMAL = """\
version: 1
parties:
  AA:
    deposit: 2019-06-25
    options: ["35(7)"]
    notifications_35_7: []
    part_vi: false
    covers: [BB]
  BB:
    deposit: 2020-02-28
    options: []
    notifications_35_7: []
    part_vi: true
    covers: [AA]
"""


def load_variant(tmp_path, old: str, new: str):
    assert old in MINIMAL
    path = tmp_path / "positions.yaml"
    path.write_text(MINIMAL.replace(old, new, 1), encoding="utf-8")
    return path, load_positions(path)


def test_minimal_file_loads(tmp_path):
    path, positions = load_variant(tmp_path, "", "")
    assert resolve_pair(positions, "x", ["AA", "BB"]).effect().status == PENDING
    assert positions["AA"].line == 4


@pytest.mark.parametrize("old, new, line, fragment", [
    ('options: ["35(7)"]', 'options: ["35(9)"]', 5, "'35(9)' is not one of"),
    ("deposit: 2019-06-25", "deposit: 2019-02-30", 4, "impossible date '2019-02-30'"),
    ("deposit: 2019-06-25", "deposit: 25.6.2019", 4, "does not match"),
    ("part_vi: false", "part_vi: no", 7, "'no' is not of type 'boolean'"),
    ("covers: [BB]", "covers: [BB]\n    colour: red", 9, "Additional properties"),
    ("    part_vi: false\n", "", 3, "'part_vi' is a required property"),
    ("  BB:", "  bb:", 9, "does not match"),
    ("covers: [BB]", "covers: [BB, BB]", 8, "non-unique"),
    ("covers: [BB]", "covers: [AA, BB]", 8, "AA lists itself"),
    ("covers: [BB]", 'covers: [BB]\n    taxable_period_start: "02-29"', 9, "not a day of every year"),
    ("covers: [BB]", "covers: [BB]\n    taxable_period_start: {corporation_tax: 4-1}", 9,
     "does not match"),
    ("version: 1", "version: 2", 1, "1 was expected"),
    ("notifications_35_7: []\n    part_vi: true",
     "notifications_35_7: [{partner: AA, date: 2021-01-01}]\n    part_vi: true", 12,
     "without the 35(7) reservation"),
    ("notifications_35_7: []\n    part_vi: false",
     "notifications_35_7:\n      - {partner: CC, date: 2021-01-01}\n    part_vi: false", 7,
     "CC, which is not in covers"),
    ("notifications_35_7: []\n    part_vi: false",
     "notifications_35_7:\n      - {partner: BB, date: 2019-01-01}\n    part_vi: false", 7,
     "before the deposit"),
    ("notifications_35_7: []\n    part_vi: false",
     "notifications_35_7:\n      - {partner: BB, date: 2021-02-30}\n    part_vi: false", 7,
     "impossible date"),
    ('options: ["35(7)"]', 'options: ["35(2)"]\n    taxable_period_start: {a: "01-01", b: "04-01"}',
     5, "needs withholding_period_start"),
    ("    part_vi: true\n", "    part_vi: true\n    part_vi: false\n", 14, "duplicate key"),
    ("deposit: 2019-06-25", "deposit: &d 2019-06-25", 4, "anchors and aliases"),
])
def test_malformed_positions_are_located(tmp_path, old, new, line, fragment):
    with pytest.raises(DateRuleError) as info:
        load_variant(tmp_path, old, new)
    assert str(info.value).startswith(f"{tmp_path / 'positions.yaml'}:{line}: ")
    assert fragment in str(info.value)


def test_withholding_period_start_settles_35_2(tmp_path):
    _, positions = load_variant(
        tmp_path, 'options: ["35(7)"]\n    notifications_35_7: []',
        'options: ["35(2)"]\n    notifications_35_7: []\n'
        '    taxable_period_start: {a: "01-01", b: "04-01"}\n    withholding_period_start: "04-01"')
    assert positions["AA"].withholding_period_start == MonthDay(4, 1)
    result = resolve_pair(positions, "x", ["AA", "BB"]).effect()
    assert result.party("AA").withholding == date(2021, 4, 1)


def test_latest_notification_for_the_partner_counts(tmp_path):
    _, positions = load_variant(
        tmp_path, "notifications_35_7: []\n    part_vi: false",
        "notifications_35_7:\n      - {partner: BB, date: 2021-01-01}\n"
        "      - {partner: BB, date: 2021-05-01}\n    part_vi: false")
    assert positions["AA"].notification_for("BB") == date(2021, 5, 1)
    assert resolve_pair(positions, "x", ["AA", "BB"]).effect().base == date(2021, 5, 31)


@pytest.mark.parametrize("codes, fragment", [
    (["IN"], "exactly two parties, got 1"),
    (["IN", "PT", "GB"], "exactly two parties, got 3"),
    (["IN", "IN"], "given twice"),
    (["IN", "XX"], "unknown party code 'XX'"),
])
def test_resolve_pair_errors_are_located(positions, codes, fragment):
    with pytest.raises(DateRuleError) as info:
        resolve_pair(positions, "t", codes, Location("case.yaml", 3))
    assert str(info.value).startswith("case.yaml:3: ") and fragment in str(info.value)
