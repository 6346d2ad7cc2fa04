"""MLI Articles 34-36 rules on worked cases; each rule has a case that depends on it."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
from hypothesis import given, settings, strategies as st

from consolidate import dates
from consolidate.dates import (IN_EFFECT, NOT_COVERED, PENDING, MonthDay, Party, PeriodStart,
                               add_months, effect_dates)

D = date.fromisoformat
APRIL = (PeriodStart(None, MonthDay(4, 1)),)
UK_PERIODS = (PeriodStart("corporation_tax", MonthDay(4, 1)),
              PeriodStart("income_tax", MonthDay(4, 6)),
              PeriodStart("capital_gains_tax", MonthDay(4, 6)))

IN = Party("IN", D("2019-06-25"), {"35(2)"}, period_starts=APRIL)
PT = Party("PT", D("2020-02-28"), part_vi=True)
GB = Party("GB", D("2018-06-29"), part_vi=True, period_starts=UK_PERIODS)
LU = Party("LU", D("2019-04-09"), part_vi=True)
AD = Party("AD", D("2021-09-29"), {"35(3)", "35(7)"}, part_vi=True)


def party(code, deposit, options=(), **kw):
    return Party(code, D(deposit) if deposit else None, frozenset(options), **kw)


def expected(status, base, **parties):
    """Build the JSON output; each party is (in_force, withholding, other, first, map, arb)."""
    keys = ("in_force", "withholding", "other_taxes", "other_taxes_first_period", "map",
            "arbitration")
    return {"status": status, "base": base,
            "parties": {code: dict(zip(keys, values)) for code, values in parties.items()}}


CASES = {
    # reference/mli-effect-rules.md, India-Portugal, end to end.
    "india-portugal": ((IN, PT), {}, expected(
        IN_EFFECT, "2020-06-01",
        IN=("2019-10-01", "2021-04-01", "2020-12-01", "2021-04-01", "2020-06-01", None),
        PT=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", None))),
    # reference/mli-effect-rules.md, India-United Kingdom as the UK publishes it.
    "india-uk": ((IN, GB), {}, expected(
        IN_EFFECT, "2019-10-01",
        IN=("2019-10-01", "2020-04-01", "2020-04-01", "2020-04-01", "2019-10-01", None),
        GB=("2018-10-01", "2020-01-01", "2020-04-01",
            {"corporation_tax": "2020-04-01", "income_tax": "2020-04-06",
             "capital_gains_tax": "2020-04-06"}, "2019-10-01", None))),
    # Deposits on the 1st: the three months run 1 Mar-31 May, so in force 1 Jun.
    "deposit-on-the-first": ((party("AA", "2020-03-01"), party("BB", "2019-12-01")), {}, expected(
        IN_EFFECT, "2020-06-01",
        AA=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", None),
        BB=("2020-03-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", None))),
    # Base on 1 January: "on or after" is inclusive, so withholding starts that same day.
    "base-on-1-january": ((party("AA", "2021-09-29", part_vi=True),
                           party("BB", "2020-02-28", part_vi=True)), {}, expected(
        IN_EFFECT, "2022-01-01",
        AA=("2022-01-01", "2022-01-01", "2022-07-01", "2023-01-01", "2022-01-01", "2022-01-01"),
        BB=("2020-06-01", "2022-01-01", "2022-07-01", "2023-01-01", "2022-01-01", "2022-01-01"))),
    # Deposits before the fifth instrument: in force with the Convention, 1 July 2018.
    "article-34-1": ((party("AT", "2017-09-22"), party("PL", "2018-01-23")), {}, expected(
        IN_EFFECT, "2018-07-01",
        AT=("2018-07-01", "2019-01-01", "2019-01-01", "2019-01-01", "2018-07-01", None),
        PL=("2018-07-01", "2019-01-01", "2019-01-01", "2019-01-01", "2018-07-01", None))),
    # 35(3): periods from 1 January after the six months; AA's fiscal year starts 1 April.
    "35(3)": ((party("AA", "2019-05-20", {"35(3)"}, period_starts=APRIL),
               party("BB", "2018-10-05")), {}, expected(
        IN_EFFECT, "2019-09-01",
        AA=("2019-09-01", "2020-01-01", "2021-01-01", "2021-04-01", "2019-09-01", None),
        BB=("2019-02-01", "2020-01-01", "2020-03-01", "2021-01-01", "2019-09-01", None))),
    # 35(7) with no completion notification: Luxembourg-Andorra is pending.
    "35(7)-pending": ((LU, AD), {}, expected(
        PENDING, None,
        LU=("2019-08-01", None, None, None, None, None),
        AD=("2022-01-01", None, None, None, None, None))),
    # 35(7) notified on 15 March 2024 (hypothetical): base = N + 30 days for both parties.
    "35(7)-notified": ((LU, Party("AD", D("2021-09-29"), {"35(3)", "35(7)"}, D("2024-03-15"),
                                  part_vi=True)), {}, expected(
        IN_EFFECT, "2024-04-14",
        LU=("2019-08-01", "2025-01-01", "2024-10-14", "2025-01-01", "2024-04-14", "2024-04-14"),
        AD=("2022-01-01", "2025-01-01", "2025-01-01", "2025-01-01", "2024-04-14", "2024-04-14"))),
    # Both reserved 35(7): the latest of their notifications counts.
    "35(7)-both-notified": ((party("DE", "2020-12-18", {"35(7)"}, notification_35_7=D("2023-05-10")),
                             party("AD", "2021-09-29", {"35(7)"},
                                   notification_35_7=D("2023-11-20"))), {}, expected(
        IN_EFFECT, "2023-12-20",
        DE=("2021-04-01", "2024-01-01", "2024-06-20", "2025-01-01", "2023-12-20", None),
        AD=("2022-01-01", "2024-01-01", "2024-06-20", "2025-01-01", "2023-12-20", None))),
    # Both reserved, only one notified: still pending.
    "35(7)-one-of-two-notified": ((party("DE", "2020-12-18", {"35(7)"},
                                         notification_35_7=D("2023-05-10")),
                                   party("AD", "2021-09-29", {"35(7)"})), {}, expected(
        PENDING, None,
        DE=("2021-04-01", None, None, None, None, None),
        AD=("2022-01-01", None, None, None, None, None))),
    # A notification before the MLI is in force for both cannot move base before that.
    "35(7)-early-notification": ((LU, Party("AD", D("2021-09-29"), {"35(7)"}, D("2021-10-15"))),
                                 {}, expected(
        IN_EFFECT, "2022-01-01",
        LU=("2019-08-01", "2022-01-01", "2022-07-01", "2023-01-01", "2022-01-01", None),
        AD=("2022-01-01", "2022-01-01", "2022-07-01", "2023-01-01", "2022-01-01", None))),
    # 35(5): India-Portugal as if listed on 15 December 2020: withholding from 1 January
    # after 14 January 2021 (30 days), other taxes after nine months.
    "35(5)": ((IN, PT), {"added_later": D("2020-12-15")}, expected(
        IN_EFFECT, "2020-12-15",
        IN=("2019-10-01", "2021-04-01", "2021-09-15", "2022-04-01", "2020-12-15", None),
        PT=("2020-06-01", "2022-01-01", "2021-09-15", "2022-01-01", "2020-12-15", None))),
    # 35(5) under 35(7): the reference date is 30 days after the notification.
    "35(5)-with-35(7)": ((LU, Party("AD", D("2021-09-29"), {"35(3)", "35(7)"}, D("2024-03-15"),
                                    part_vi=True)), {"added_later": D("2024-06-01")}, expected(
        IN_EFFECT, "2024-04-14",
        LU=("2019-08-01", "2025-01-01", "2025-01-14", "2026-01-01", "2024-04-14", "2024-04-14"),
        AD=("2022-01-01", "2025-01-01", "2026-01-01", "2026-01-01", "2024-04-14", "2024-04-14"))),
    # A listing date before the MLI was in force for both changes nothing.
    "35(5)-listed-early": ((IN, PT), {"added_later": D("2020-01-10")}, expected(
        IN_EFFECT, "2020-06-01",
        IN=("2019-10-01", "2021-04-01", "2020-12-01", "2021-04-01", "2020-06-01", None),
        PT=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", None))),
    # Part VI on both sides: arbitration from base.
    "part-vi-both": ((PT, GB), {}, expected(
        IN_EFFECT, "2020-06-01",
        PT=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", "2020-06-01"),
        GB=("2018-10-01", "2021-01-01", "2020-12-01",
            {"corporation_tax": "2021-04-01", "income_tax": "2021-04-06",
             "capital_gains_tax": "2021-04-06"}, "2020-06-01", "2020-06-01"))),
    # Part VI on one side only (Portugal yes, India no): not applicable.
    "part-vi-one-side": ((PT, IN), {}, expected(
        IN_EFFECT, "2020-06-01",
        PT=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", "2020-06-01", None),
        IN=("2019-10-01", "2021-04-01", "2020-12-01", "2021-04-01", "2020-06-01", None))),
    # A shorter period notified by both: three months instead of six.
    "shorter-period": ((IN, PT), {"shorter_period_months": 3}, expected(
        IN_EFFECT, "2020-06-01",
        IN=("2019-10-01", "2021-04-01", "2020-09-01", "2021-04-01", "2020-06-01", None),
        PT=("2020-06-01", "2021-01-01", "2020-09-01", "2021-01-01", "2020-06-01", None))),
    # 35(6): one party's reservation disapplies the MAP rule for the treaty.
    "35(6)": ((IN, Party("PT", D("2020-02-28"), {"35(6)"}, part_vi=True)), {}, expected(
        IN_EFFECT, "2020-06-01",
        IN=("2019-10-01", "2021-04-01", "2020-12-01", "2021-04-01", None, None),
        PT=("2020-06-01", "2021-01-01", "2020-12-01", "2021-01-01", None, None))),
    # A signatory without deposit: nothing is in effect yet.
    "no-deposit": ((IN, party("BR", None)), {}, expected(
        PENDING, None,
        IN=("2019-10-01", None, None, None, None, None),
        BR=(None, None, None, None, None, None))),
    "not-covered": ((IN, party("DE", "2020-12-18", {"35(7)"})), {"covered": False}, expected(
        NOT_COVERED, None,
        IN=("2019-10-01", None, None, None, None, None),
        DE=("2021-04-01", None, None, None, None, None))),
}


@pytest.mark.parametrize("name", CASES)
def test_worked_case(name):
    (first, second), kwargs, output = CASES[name]
    assert effect_dates(first, second, **kwargs).to_json_dict() == output


# Each rule, replaced by what the result would be without it, changes a worked case.
MUTANTS = {
    "in_force_34_2": (lambda deposit: deposit, "india-portugal"),
    "in_force_34_1": (lambda in_force: in_force, "article-34-1"),
    "base_35_1": (lambda days: min(days), "india-portugal"),
    "base_35_7": (lambda base, notifications: base, "35(7)-notified"),
    "withholding_35_1_a": (lambda start: start, "india-portugal"),
    "withholding_35_2": (lambda start, period_start: dates.withholding_35_1_a(start),
                         "india-portugal"),
    "other_taxes_35_1_b": (lambda base, months: base, "india-portugal"),
    "other_taxes_35_3": (lambda rule_date: rule_date, "35(3)"),
    "shorter_period": (lambda months, shorter: months, "shorter-period"),
    "applies_35_5": (lambda added_later, latest: False, "35(5)"),
    "withholding_start_35_5": (lambda reference: reference, "35(5)"),
    "map_35_4": (lambda base: None, "india-portugal"),
    "map_reserved_35_6": (lambda first, second: False, "35(6)"),
    "arbitration_36": (lambda base, first, second: None, "part-vi-both"),
    "first_period_start": (lambda rule_date, starts: rule_date, "india-uk"),
}


@pytest.mark.parametrize("rule", MUTANTS)
def test_removing_a_rule_breaks_its_case(rule, monkeypatch):
    replacement, name = MUTANTS[rule]
    (first, second), kwargs, output = CASES[name]
    monkeypatch.setattr(dates, rule, replacement)
    assert effect_dates(first, second, **kwargs).to_json_dict() != output


def test_every_rule_function_has_a_mutant():
    rules = {name for name in vars(dates) if name.split("_")[0] in {
        "in", "base", "withholding", "other", "shorter", "applies", "map", "arbitration", "first"}
        and callable(getattr(dates, name)) and name != "first_of_next_month"}
    assert rules == set(MUTANTS)


@pytest.mark.parametrize("deposit, in_force", [
    ("2019-06-25", "2019-10-01"),   # India
    ("2020-02-28", "2020-06-01"),   # Portugal
    ("2018-06-29", "2018-10-01"),   # United Kingdom
    ("2019-04-09", "2019-08-01"),   # Luxembourg
    ("2021-09-29", "2022-01-01"),   # Andorra
    ("2020-12-18", "2021-04-01"),   # Germany
    ("2020-11-26", "2021-03-01"),   # Chile
    ("2020-03-01", "2020-06-01"),   # the 1st: period 1 Mar - 31 May
    ("2020-03-02", "2020-07-01"),
    ("2020-11-30", "2021-03-01"),   # period end clamped in February
    ("2019-12-31", "2020-04-01"),
    ("2017-09-22", "2018-07-01"),   # Austria, before the fifth instrument (34(1))
    ("2018-03-22", "2018-07-01"),   # Slovenia, the fifth instrument
])
def test_entry_into_force(deposit, in_force):
    assert dates.party_in_force(D(deposit)) == D(in_force)


@pytest.mark.parametrize("day, months, result", [
    ("2020-05-30", 6, "2020-11-30"),
    ("2020-06-01", 6, "2020-12-01"),
    ("2020-08-31", 6, "2021-02-28"),
    ("2019-08-31", 6, "2020-02-29"),
    ("2020-12-15", 9, "2021-09-15"),
    ("2020-01-31", -1, "2019-12-31"),
])
def test_add_months_is_plain_calendar_arithmetic(day, months, result):
    assert add_months(D(day), months) == D(result)


@pytest.mark.parametrize("text", ["02-29", "04-31", "13-01", "4-1", "0401", None])
def test_month_day_rejects(text):
    with pytest.raises(ValueError):
        MonthDay.parse(text)


def test_party_rejects_unknown_options_and_ambiguous_35_2():
    with pytest.raises(ValueError, match="unknown option"):
        Party("XX", D("2020-01-01"), {"35(9)"})
    with pytest.raises(ValueError, match="withholding_period_start"):
        Party("GB", D("2018-06-29"), {"35(2)"}, period_starts=UK_PERIODS)
    chosen = Party("GB", D("2018-06-29"), {"35(2)"}, period_starts=UK_PERIODS,
                   withholding_period_start=MonthDay(4, 6))
    assert effect_dates(IN, chosen).party("GB").withholding == D("2020-04-06")


def test_effect_dates_rejects_bad_calls():
    with pytest.raises(ValueError, match="two different parties"):
        effect_dates(IN, IN)
    with pytest.raises(ValueError, match="shorter period"):
        effect_dates(IN, PT, shorter_period_months=6)


def test_reasons_name_the_finding_codes():
    from consolidate.findings import CODES
    assert effect_dates(LU, AD).reasons[0][0] == "DATE.PENDING_35_7"
    assert "AD" in effect_dates(LU, AD).reasons[0][1]
    assert effect_dates(IN, PT, added_later=D("2020-01-10")).reasons[0][0] == \
        "DATE.ADDED_LATER_NOT_APPLIED"
    for name in CASES:
        (first, second), kwargs, _ = CASES[name]
        assert all(code in CODES for code, _ in effect_dates(first, second, **kwargs).reasons)


# ---- properties ----------------------------------------------------------------------

month_days = st.builds(MonthDay, st.integers(1, 12), st.integers(1, 28))
days = st.dates(date(2017, 1, 1), date(2035, 12, 31))


@st.composite
def parties(draw, code):
    deposit = draw(days)
    options = draw(st.frozensets(st.sampled_from(dates.OPTIONS)))
    kinds = draw(st.lists(st.sampled_from(["corporation_tax", "income_tax", "vat"]),
                          unique=True, max_size=3))
    starts = (tuple(PeriodStart(kind, draw(month_days)) for kind in kinds)
              or (PeriodStart(None, draw(month_days)),))
    notification = None
    if "35(7)" in options and draw(st.booleans()):
        notification = deposit + timedelta(days=draw(st.integers(0, 2000)))
    withholding = draw(month_days) if len(starts) > 1 else None
    return Party(code, deposit, options, notification, draw(st.booleans()), starts, withholding)


@settings(max_examples=300)
@given(parties("AA"), parties("BB"), st.none() | st.integers(1, 5), st.none() | days)
def test_effect_date_properties(first, second, shorter, added_later):
    result = effect_dates(first, second, shorter_period_months=shorter, added_later=added_later)
    waiting = any("35(7)" in p.options and p.notification_35_7 is None for p in (first, second))
    assert result.status == (PENDING if waiting else IN_EFFECT)
    for p, effect in zip((first, second), result.parties):
        assert effect.in_force.day == 1 and effect.in_force > p.deposit
        assert effect.in_force <= add_months(p.deposit, 4) or effect.in_force == dates.CONVENTION_IN_FORCE
    if result.status == PENDING:
        assert result.base is None
        return
    assert result.base >= max(e.in_force for e in result.parties)
    for p, effect in zip((first, second), result.parties):
        start = p.withholding_start() if "35(2)" in p.options else MonthDay(1, 1)
        assert effect.withholding >= result.base
        assert (effect.withholding.month, effect.withholding.day) == (start.month, start.day)
        assert effect.withholding < add_months(result.base, 14)
        assert effect.other_taxes >= result.base
        firsts = effect.other_taxes_first_period
        pairs = firsts if isinstance(firsts, tuple) else (("", firsts),)
        for (kind, first_day), period in zip(pairs, p.period_starts):
            assert first_day >= effect.other_taxes
            assert first_day < add_months(effect.other_taxes, 12)
            assert (first_day.month, first_day.day) == (period.start.month, period.start.day)
        if "35(3)" in p.options:
            assert (effect.other_taxes.month, effect.other_taxes.day) == (1, 1)
        reserved = "35(6)" in first.options or "35(6)" in second.options
        assert effect.map == (None if reserved else result.base)
        assert (effect.arbitration is not None) == (first.part_vi and second.part_vi)
