"""The opening book: the forehand's trump choice and first lead of a normal game, searched offline
(engine/ai/opening.py)."""

import dataclasses
import importlib.util
from itertools import combinations
from pathlib import Path

import pytest

from engine.actions import ChooseTrump, PlayCard
from engine.ai import opening, opening_book, pimc
from engine.cards import DECK
from engine.ruleset import STANDARD, STARGAMES

ROOT = Path(__file__).resolve().parents[3]


def _tool():
    spec = importlib.util.spec_from_file_location("build_opening_book", ROOT / "tools" / "build_opening_book.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


build = _tool()
LEADS = opening._entries(opening_book.LEADS)
TRUMPS = opening._entries(opening_book.TRUMPS)
SAME = {suit: suit for suit in "HDCS"}


def test_the_book_holds_every_hand_the_forehand_can_decide_from_and_nothing_else():
    assert set(LEADS) == set(build.lead_hands())
    assert len(LEADS) == 2526
    assert set(TRUMPS) == set(build.trump_hands())
    assert len(TRUMPS) == 95


def test_every_entry_names_exactly_the_legal_actions_of_its_hand():
    for hand, (worlds, values) in LEADS.items():
        view = build.first_lead_view(hand)
        assert set(values) == {opening.book_action(action, SAME) for action in view.legal}, hand
        assert worlds == opening_book.LEAD_WORLDS
    for hand, (worlds, values) in TRUMPS.items():
        view = build.trump_view(hand)
        assert set(values) == {opening.book_action(action, SAME) for action in view.legal}, hand
        assert opening_book.LEAD_WORLDS <= worlds <= 2 * opening_book.LEAD_WORLDS


def _stored(text, hand):
    return next(line for line in text.splitlines() if line.startswith(hand + "|"))


@pytest.mark.parametrize("hand", ["HA HT HK HQ HJ", "HT HQ DA DK CJ"])
def test_a_lead_entry_is_what_the_search_gives_now(monkeypatch, hand):
    """Fails when pimc's card play, sampler or solver changed: then re-run tools/build_opening_book.py."""
    monkeypatch.setattr(pimc, "MAX_WORLDS", opening_book.LEAD_WORLDS)
    monkeypatch.setattr(pimc, "EARLY_STOP", False)
    assert build.lead_line(hand) == _stored(opening_book.LEADS, hand)


def test_a_trump_entry_is_what_the_search_gives_now(monkeypatch):
    """Fails when pimc's trump search, the bidder model or the solver changed: re-run the tool."""
    monkeypatch.setattr(pimc, "MAX_WORLDS", opening_book.LEAD_WORLDS)
    monkeypatch.setattr(pimc, "EARLY_STOP", False)
    hand = "HA HT HK"
    assert build.trump_line(hand) == _stored(opening_book.TRUMPS, hand)


def test_renamed_suits_meet_in_one_entry_and_lead_the_renamed_card():
    # Trump Schellen (D); Herz and Laub hold one card each, Eichel two: Herz <-> Laub renamed alike.
    hand = "DA DK HT CJ CQ"
    renamed = "DA DK ST CJ CQ"
    view, twin = build.first_lead_view(hand, "D"), build.first_lead_view(renamed, "D")
    assert opening.applies(view, STANDARD) and opening.applies(twin, STANDARD)
    evaluations = pimc.evaluate(view, STANDARD, seed=3)
    twins = pimc.evaluate(twin, STANDARD, seed=99)
    assert {e.worlds for e in evaluations} == {opening_book.LEAD_WORLDS}
    swap = {"H": "S", "S": "H", "D": "D", "C": "C"}
    by_card = {e.action: e.value for e in evaluations}
    for e in twins:
        assert isinstance(e.action, PlayCard)
        assert by_card[PlayCard(swap[e.action.card[0]] + e.action.card[1], e.action.marriage)] == e.value
    chosen = pimc.choose(view, STANDARD, seed=3)
    assert isinstance(chosen, PlayCard)
    assert pimc.choose(twin, STANDARD, seed=5) == PlayCard(swap[chosen.card[0]] + chosen.card[1], chosen.marriage)


def test_a_doubled_game_scales_the_book_values_by_its_multiplier():
    view = build.first_lead_view("HA HT DK DQ SJ", "H")
    doubled = dataclasses.replace(view, multiplier=2)
    single = pimc.evaluate(view, STANDARD)
    double = pimc.evaluate(doubled, STANDARD)
    assert [2 * e.value for e in single] == pytest.approx([e.value for e in double])
    assert [2 * e.noise for e in single] == pytest.approx([e.noise for e in double])
    # A marriage lead is in the book as its own action.
    assert any(isinstance(e.action, PlayCard) and e.action.marriage == 20 for e in single)


def test_a_first_lead_after_aufschlagen_is_in_the_book_as_the_same_hand_with_that_trump_named(monkeypatch):
    # The fourth card, ST, is turned up: Laub is trump. The same cards with SJ among the first three name it.
    turned = build.first_lead_view("HA DK DQ ST SJ", None)
    named = build.first_lead_view("HA DK SJ DQ ST", "S")
    assert turned.trump == named.trump == "S" and turned.aufschlag_card == "ST" and named.aufschlag_card is None

    def values(view, book, budget_ms=150):
        return {e.action: (e.value, e.noise, e.worlds) for e in pimc.evaluate(view, STANDARD, 4, budget_ms, book)}

    # The search sees the same worlds (with a fixed number of them: the order of the cards in hand moves the
    # node counts, and so where a budget ends).
    monkeypatch.setattr(pimc, "MAX_WORLDS", 30)
    assert values(turned, False, 100_000) == values(named, False, 100_000)
    assert values(turned, book=True) == values(named, book=True)
    assert {worlds for _, _, worlds in values(turned, book=True).values()} == {opening_book.LEAD_WORLDS}


def test_the_search_decides_where_the_book_does_not_apply():
    view = build.first_lead_view("HA HT DK DQ SJ", "H")
    assert opening.lookup(view, STANDARD) is not None
    other_rules = build.first_lead_view("HA HT DK DQ SJ", "H", STARGAMES)
    assert opening.lookup(other_rules, STARGAMES) is None
    turned = dataclasses.replace(view, aufschlag_card="SA", known_cards=((), (), ("SA",), ()))
    assert opening.lookup(turned, STANDARD) is None
    assert {e.worlds for e in pimc.evaluate(view, STANDARD, book=False)} != {opening_book.LEAD_WORLDS}
    assert pimc.evaluate(other_rules, STARGAMES)[0].worlds != opening_book.LEAD_WORLDS
    trump_choice = build.trump_view("HK HQ DA")
    assert opening.lookup(trump_choice, STANDARD) is not None
    assert opening.lookup(build.trump_view("HK HQ DA", STARGAMES), STARGAMES) is None


def test_a_trump_choice_from_renamed_suits_meets_the_same_entry_and_names_the_renamed_suit():
    view, twin = build.trump_view("SK SQ DA"), build.trump_view("HK HQ CA")
    rename = {"H": "S", "C": "D", "D": "H", "S": "C"}  # the twin's suit -> the view's
    evaluations = {e.action: e for e in pimc.evaluate(view, STANDARD, seed=1)}
    for e in pimc.evaluate(twin, STANDARD, seed=2):
        mine = ChooseTrump(rename[e.action.suit]) if isinstance(e.action, ChooseTrump) else e.action
        assert (evaluations[mine].value, evaluations[mine].noise) == (e.value, e.noise)
        assert e.worlds == evaluations[mine].worlds >= opening_book.LEAD_WORLDS
    chosen = pimc.choose(view, STANDARD, seed=1)
    renamed = pimc.choose(twin, STANDARD, seed=2)
    if isinstance(chosen, ChooseTrump):
        assert renamed == ChooseTrump({v: k for k, v in rename.items()}[chosen.suit])
    else:
        assert renamed == chosen


def test_canonical_suits_put_trump_first_and_longer_then_higher_suits_next():
    mapping = opening.canonical_suits(("SJ", "DA", "DT", "CK", "HQ"), "S")
    assert mapping == {"S": "H", "D": "D", "C": "C", "H": "S"}
    # Every hand with a named trump maps to a hand of the book.
    for hand in combinations(DECK[::3], 5):  # a thinned sweep, all suits and ranks present
        for trump in {card[0] for card in hand}:
            assert opening.book_hand(hand, opening.canonical_suits(hand, trump)) in LEADS
    assert opening.canonical_trump_suits(("SJ", "DA", "SK")) == {"S": "H", "D": "D", "H": "C", "C": "S"}
