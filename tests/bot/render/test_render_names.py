"""Card names and alt text in every deck style and language."""

import pytest

from bot.render import (
    ALL_CARDS,
    DECK_STYLES,
    LANGUAGES,
    ResultScene,
    TableScene,
    card_name,
    hand_alt_text,
    result_alt_text,
    suit_name,
    table_alt_text,
)
from bot.render.names import LABELS

NAMES = ("Anna", "Ben", "Carla", "Dominik")


@pytest.mark.parametrize(("card", "deck", "lang", "expected"), [
    ("HA", "doppeldeutsch", "de", "Herz-Sau"),
    ("ST", "doppeldeutsch", "de", "Laub-Zehner"),
    ("DQ", "doppeldeutsch", "de", "Schellen-Ober"),
    ("CJ", "doppeldeutsch", "de", "Eichel-Unter"),
    ("DA", "doppeldeutsch", "en", "Ace of Bells"),
    ("HA", "french", "en", "Ace of Hearts"),
    ("SQ", "french", "de", "Pik-Dame"),
    ("DJ", "french", "de", "Karo-Bube"),
    ("SQ", "french", "nl", "schoppen vrouw"),
    ("CK", "french", "nl", "klaveren heer"),
    ("SQ", "french", "tr", "maça kızı"),
    ("HT", "french", "tr", "kupa onlusu"),
])
def test_card_names_read_as_players_say_them(card, deck, lang, expected):
    assert card_name(card, deck, lang) == expected


@pytest.mark.parametrize("deck", DECK_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_card_and_suit_names_are_distinct_within_a_deck_and_language(deck, lang):
    assert len({card_name(card, deck, lang) for card in ALL_CARDS}) == 20
    assert len({suit_name(suit, deck, lang) for suit in "HDCS"}) == 4


def test_every_language_has_the_same_labels():
    keys = set(LABELS["en"])
    for lang in LANGUAGES:
        assert set(LABELS[lang]) == keys, lang


def test_unknown_deck_language_or_card_is_refused():
    with pytest.raises(ValueError):
        card_name("HA", "tarot", "en")
    with pytest.raises(ValueError):
        card_name("HA", "french", "fr")
    with pytest.raises(ValueError):
        card_name("H1")


@pytest.mark.parametrize("deck", DECK_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_hand_alt_text_names_every_card(deck, lang):
    for start in range(0, 20, 5):
        hand = ALL_CARDS[start:start + 5]
        text = hand_alt_text(hand, playable=hand[:2], trump="H", deck=deck, lang=lang)
        for card in hand:
            assert card_name(card, deck, lang) in text
        assert suit_name("H", deck, lang) in text


def test_hand_alt_text_in_english():
    assert hand_alt_text(["HA", "HT"], playable=["HT"], trump="S") == (
        "Your hand: Ace of Hearts, Ten of Hearts. Trump: Leaves. Playable: Ten of Hearts.")
    assert hand_alt_text(["HA", "HT"], lang="de") == "Deine Karten: Herz-Sau, Herz-Zehner."


@pytest.mark.parametrize("deck", DECK_STYLES)
@pytest.mark.parametrize("lang", LANGUAGES)
def test_table_alt_text_names_the_trick_the_first_tricks_and_whose_turn(deck, lang):
    scene = TableScene(viewer_seat=1, seat_names=NAMES, trick=((1, "HK"), (2, "HA")), to_act_seat=3, trump="D",
                       team_points=(34, 21), team_tricks=(2, 1), first_tricks=(("ST", "SA", "SK", "SJ"), None),
                       deck=deck, lang=lang, contract_label="Schnapser", multiplier=2)
    text = table_alt_text(scene)
    for card in ("HK", "HA", "ST", "SA", "SK", "SJ"):
        assert card_name(card, deck, lang) in text
    assert "Dominik" in text and "Schnapser" in text and "34" in text


def test_table_alt_text_hides_points_when_the_scene_does():
    scene = TableScene(viewer_seat=0, seat_names=NAMES, team_points=None, team_tricks=(1, 1))
    assert "point" not in table_alt_text(scene)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_result_alt_text_names_winners_points_and_score(lang):
    scene = ResultScene(seat_names=NAMES, winner_team=1, game_points=2, score=(10, 22), card_points=(40, 80),
                        lang=lang)
    text = result_alt_text(scene)
    assert "Ben" in text and "Dominik" in text and "22" in text and "80" in text
