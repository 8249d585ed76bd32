"""Every word the renderer shows or speaks: card names, suit names and labels, per deck style and language.

Kept in one module so a later localisation pass can move the tables as a whole.
"""

from __future__ import annotations

from bot.vocabulary import CONTRACT_FAMILIES, DECK_STYLES, DEFAULT_DECK, DEFAULT_LANGUAGE, LANGUAGES

SUITS = "HDCS"
RANKS = "ATKQJ"
ALL_CARDS = tuple(suit + rank for suit in SUITS for rank in RANKS)

# name = how the suit or rank is said on its own; the card-name pattern in CARD_PATTERNS combines them.
SUIT_NAMES: dict[str, dict[str, dict[str, str]]] = {
    "doppeldeutsch": {
        "en": {"H": "Hearts", "D": "Bells", "C": "Acorns", "S": "Leaves"},
        "de": {"H": "Herz", "D": "Schellen", "C": "Eichel", "S": "Laub"},
        "nl": {"H": "harten", "D": "bellen", "C": "eikels", "S": "bladeren"},
        "tr": {"H": "kalp", "D": "çan", "C": "palamut", "S": "yaprak"},
    },
    "french": {
        "en": {"H": "Hearts", "D": "Diamonds", "C": "Clubs", "S": "Spades"},
        "de": {"H": "Herz", "D": "Karo", "C": "Kreuz", "S": "Pik"},
        "nl": {"H": "harten", "D": "ruiten", "C": "klaveren", "S": "schoppen"},
        "tr": {"H": "kupa", "D": "karo", "C": "sinek", "S": "maça"},
    },
}

RANK_NAMES: dict[str, dict[str, dict[str, str]]] = {
    "doppeldeutsch": {
        "en": {"A": "Ace", "T": "Ten", "K": "King", "Q": "Ober", "J": "Unter"},
        "de": {"A": "Sau", "T": "Zehner", "K": "König", "Q": "Ober", "J": "Unter"},
        "nl": {"A": "aas", "T": "tien", "K": "koning", "Q": "ober", "J": "unter"},
        # Turkish names a card "<suit> <rank + possessive suffix>", e.g. "maça ası".
        "tr": {"A": "ası", "T": "onlusu", "K": "papazı", "Q": "oberi", "J": "unteri"},
    },
    "french": {
        "en": {"A": "Ace", "T": "Ten", "K": "King", "Q": "Queen", "J": "Jack"},
        "de": {"A": "Ass", "T": "Zehn", "K": "König", "Q": "Dame", "J": "Bube"},
        "nl": {"A": "aas", "T": "tien", "K": "heer", "Q": "vrouw", "J": "boer"},
        "tr": {"A": "ası", "T": "onlusu", "K": "papazı", "Q": "kızı", "J": "valesi"},
    },
}

CARD_PATTERNS = {
    "en": "{rank} of {suit}",
    "de": "{suit}-{rank}",
    "nl": "{suit} {rank}",
    "tr": "{suit} {rank}",
}

# Labels drawn into images and the sentences of the alt text.
LABELS: dict[str, dict[str, str]] = {
    "en": {
        "trump": "Trump",
        "no_trump": "No trump",
        "trump_not_chosen": "Trump not chosen yet",
        "points": "{n} points",
        "point": "1 point",
        "tricks": "{n} tricks",
        "trick": "1 trick",
        "sits_out": "sits out",
        "to_play": "to play",
        "first_trick": "First trick",
        "team": "{a} & {b}",
        "wins": "{team} win",
        "game_points": "+{n} game points",
        "game_point": "+1 game point",
        "card_points": "Card points",
        "bummerl_lost": "Bummerl lost: {n}",  # a team's Bummerl are the ones it lost
        "you": "you",
        "compass": "N E S W",  # North, East, South, West, as a compass rose marks them
        "alt_hand": "Your hand: {cards}.",
        "alt_hand_empty": "Your hand is empty.",
        "alt_playable": "Playable: {cards}.",
        "alt_trump": "Trump: {suit}.",
        "alt_no_trump": "No trump.",
        "alt_trump_not_chosen": "Trump not chosen yet.",
        "alt_contract": "Game: {contract}.",
        "alt_multiplier": "Stakes ×{n}.",
        "alt_played": "{name} played {card}",
        "alt_trick": "Trick: {plays}.",
        "alt_trick_empty": "The trick is empty.",
        "alt_to_play": "{name} to play.",
        "alt_sits_out": "{name} sits out.",
        "alt_team": "{team}: {score}.",
        "alt_first_trick": "First trick of {team}: {cards}.",
        "alt_wins": "{team} win the deal with {points}.",
        "alt_card_points": "Card points {a} to {b}.",
        "alt_score": "Score: {team_a} {a}, {team_b} {b}.",
        "alt_bummerl": "Bummerl lost: {team_a} {a}, {team_b} {b}.",
        # The deal review ("Show the deal").
        "review_hands": "Hands as dealt",
        "review_tricks": "Tricks",
        "review_trick": "Trick {n}",
        "review_not_played": "Never played",
        "review_declarer": "declarer",
        "review_aufschlag": "turned up",
        "review_deal_over": "deal over",  # a lead announcing a marriage ended it: no trick was played
        "review_led": "led",  # the legend of the review's tricks: the mark beside the card led
        "review_won": "took the trick",  # and the ring around the card that took it
        "alt_review_title": "The deal reviewed.",
        "alt_review_hand": "{name} held {cards}.",
        "alt_review_declarer": "{name} declared {contract}.",
        "alt_review_aufschlag": "{card} was turned up for trump.",
        "alt_review_trick": "Trick {n}: {plays}; {name} won it.",
        "alt_review_won": "Trick {n} went to {name}.",
        "alt_review_final_lead": "Trick {n}: {name} led {card}, and the deal was over.",
        "alt_review_marriage": "{name} announced {value} in {suit}.",
        "alt_review_not_played": "Never played: {cards}.",
        "alt_review_held": "{name} ({cards})",
        "and": " and ",
        # The profile card (/schnapsen stats).
        "profile_rating": "Rating",
        "profile_unrated": "Not rated yet",
        "profile_no_rated_games": "No rated games yet",
        "profile_chart": "Last {n} Bummerl",
        "profile_rank": "#{rank} on this server",
        "profile_bummerl": "Bummerl won",
        "profile_deals": "Deals won",
        "profile_kontra": "Kontra won",
        "profile_of": "{won} of {total}",
        "profile_contracts": "Contracts",
        "profile_declared": "declared",
        "profile_made": "made",
        "profile_partner": "Best partner",
        "profile_partner_line": "{name}: {won} of {together} Bummerl won together",
        "profile_no_partner": "No regular partner yet (at least {n} Bummerl together)",
        "profile_no_games": "No finished games on this server yet.",
        "profile_no_games_hint": "Open a table with /schnapsen new and play a deal.",
        "alt_profile": "Profile of {name}.",
        "alt_profile_trend": "Over the last {n} Bummerl it went from {first} to {last}.",
        "family_normal": "Normal game",
        "family_bettler": "Bettler",
        "family_schnapser": "Schnapser",
        "family_all_tricks": "All tricks",
        "family_farbringerl": "Farbringerl",
        "family_members_bettler": "Bettler, Ass-Bettler",
        "family_members_schnapser": "Schnapser, Kontraschnapser",
        "family_members_all_tricks": "Gang, Zehnerloch, Bauernschnapser, Kontrabauernschnapser",
        "family_members_farbringerl": "Farbringerl, Trumpffarbringerl",
    },
    "de": {
        "trump": "Trumpf",
        "no_trump": "Kein Trumpf",
        "trump_not_chosen": "Trumpf noch nicht bestimmt",
        "points": "{n} Punkte",
        "point": "1 Punkt",
        "tricks": "{n} Stiche",
        "trick": "1 Stich",
        "sits_out": "setzt aus",
        "to_play": "am Zug",
        "first_trick": "Erster Stich",
        "team": "{a} & {b}",
        "wins": "{team} gewinnen",
        "game_points": "+{n} Punkte",
        "game_point": "+1 Punkt",
        "card_points": "Augen",
        "bummerl_lost": "Verlorene Bummerl: {n}",
        "you": "du",
        "compass": "N O S W",  # North, East, South, West, as a compass rose marks them
        "alt_hand": "Deine Karten: {cards}.",
        "alt_hand_empty": "Du hast keine Karten.",
        "alt_playable": "Spielbar: {cards}.",
        "alt_trump": "Trumpf: {suit}.",
        "alt_no_trump": "Kein Trumpf.",
        "alt_trump_not_chosen": "Trumpf noch nicht bestimmt.",
        "alt_contract": "Spiel: {contract}.",
        "alt_multiplier": "Einsatz ×{n}.",
        "alt_played": "{name} spielte {card}",
        "alt_trick": "Stich: {plays}.",
        "alt_trick_empty": "Der Stich ist leer.",
        "alt_to_play": "{name} ist am Zug.",
        "alt_sits_out": "{name} setzt aus.",
        "alt_team": "{team}: {score}.",
        "alt_first_trick": "Erster Stich von {team}: {cards}.",
        "alt_wins": "{team} gewinnen die Runde mit {points}.",
        "alt_card_points": "Augen {a} zu {b}.",
        "alt_score": "Stand: {team_a} {a}, {team_b} {b}.",
        "alt_bummerl": "Verlorene Bummerl: {team_a} {a}, {team_b} {b}.",
        # The deal review ("Show the deal").
        "review_hands": "Die Karten, wie ausgeteilt",
        "review_tricks": "Stiche",
        "review_trick": "Stich {n}",
        "review_not_played": "Nie gespielt",
        "review_declarer": "Ansager",
        "review_aufschlag": "aufgeschlagen",
        "review_deal_over": "Runde aus",
        "review_led": "ausgespielt",
        "review_won": "machte den Stich",
        "alt_review_title": "Die Runde im Rückblick.",
        "alt_review_hand": "{name} hatte {cards}.",
        "alt_review_declarer": "{name} spielte {contract}.",
        "alt_review_aufschlag": "{card} wurde als Trumpf aufgeschlagen.",
        "alt_review_trick": "Stich {n}: {plays}; {name} machte ihn.",
        "alt_review_won": "Stich {n} machte {name}.",
        "alt_review_final_lead": "Stich {n}: {name} spielte {card} aus, und die Runde war aus.",
        "alt_review_marriage": "{name} meldete {value} in {suit}.",
        "alt_review_not_played": "Nie gespielt: {cards}.",
        "alt_review_held": "{name} ({cards})",
        "and": " und ",
        # The profile card (/schnapsen stats).
        "profile_rating": "Wertung",
        "profile_unrated": "Noch nicht gewertet",
        "profile_no_rated_games": "Noch keine gewerteten Bummerl",
        "profile_chart": "Letzte {n} Bummerl",
        "profile_rank": "Platz {rank} auf diesem Server",
        "profile_bummerl": "Bummerl gewonnen",
        "profile_deals": "Runden gewonnen",
        "profile_kontra": "Kontra gewonnen",
        "profile_of": "{won} von {total}",
        "profile_contracts": "Spiele",
        "profile_declared": "angesagt",
        "profile_made": "gewonnen",
        "profile_partner": "Bester Partner",
        "profile_partner_line": "{name}: {won} von {together} Bummerl gemeinsam gewonnen",
        "profile_no_partner": "Noch kein fester Partner (mindestens {n} Bummerl gemeinsam)",
        "profile_no_games": "Auf diesem Server noch nichts fertig gespielt.",
        "profile_no_games_hint": "Eröffne mit /schnapsen new einen Tisch und spiel eine Runde.",
        "alt_profile": "Profil von {name}.",
        "alt_profile_trend": "In den letzten {n} Bummerl von {first} auf {last}.",
        "family_normal": "Normales Spiel",
        "family_bettler": "Bettler",
        "family_schnapser": "Schnapser",
        "family_all_tricks": "Alle Stiche",
        "family_farbringerl": "Farbringerl",
        "family_members_bettler": "Bettler, Ass-Bettler",
        "family_members_schnapser": "Schnapser, Kontraschnapser",
        "family_members_all_tricks": "Gang, Zehnerloch, Bauernschnapser, Kontrabauernschnapser",
        "family_members_farbringerl": "Farbringerl, Trumpffarbringerl",
    },
    "nl": {
        "trump": "Troef",
        "no_trump": "Geen troef",
        "trump_not_chosen": "Troef nog niet gekozen",
        "points": "{n} punten",
        "point": "1 punt",
        "tricks": "{n} slagen",
        "trick": "1 slag",
        "sits_out": "speelt niet mee",
        "to_play": "aan de beurt",
        "first_trick": "Eerste slag",
        "team": "{a} & {b}",
        "wins": "{team} winnen",
        "game_points": "+{n} tellers",
        "game_point": "+1 teller",
        "card_points": "Kaartpunten",
        "bummerl_lost": "Verloren Bummerl: {n}",
        "you": "jij",
        "compass": "N O Z W",  # North, East, South, West, as a compass rose marks them
        "alt_hand": "Je kaarten: {cards}.",
        "alt_hand_empty": "Je hebt geen kaarten.",
        "alt_playable": "Speelbaar: {cards}.",
        "alt_trump": "Troef: {suit}.",
        "alt_no_trump": "Geen troef.",
        "alt_trump_not_chosen": "Troef nog niet gekozen.",
        "alt_contract": "Spel: {contract}.",
        "alt_multiplier": "Inzet ×{n}.",
        "alt_played": "{name} speelde {card}",
        "alt_trick": "Slag: {plays}.",
        "alt_trick_empty": "De slag is leeg.",
        "alt_to_play": "{name} is aan de beurt.",
        "alt_sits_out": "{name} speelt niet mee.",
        "alt_team": "{team}: {score}.",
        "alt_first_trick": "Eerste slag van {team}: {cards}.",
        "alt_wins": "{team} winnen de ronde met {points}.",
        "alt_card_points": "Kaartpunten {a} tegen {b}.",
        "alt_score": "Stand: {team_a} {a}, {team_b} {b}.",
        "alt_bummerl": "Verloren Bummerl: {team_a} {a}, {team_b} {b}.",
        # The deal review ("Show the deal").
        "review_hands": "De gedeelde kaarten",
        "review_tricks": "Slagen",
        "review_trick": "Slag {n}",
        "review_not_played": "Nooit gespeeld",
        "review_declarer": "speler",
        "review_aufschlag": "omgedraaid",
        "review_deal_over": "ronde voorbij",
        "review_led": "kwam uit",
        "review_won": "won de slag",
        "alt_review_title": "De ronde teruggekeken.",
        "alt_review_hand": "{name} had {cards}.",
        "alt_review_declarer": "{name} speelde {contract}.",
        "alt_review_aufschlag": "{card} werd omgedraaid voor troef.",
        "alt_review_trick": "Slag {n}: {plays}; {name} won hem.",
        "alt_review_won": "Slag {n} ging naar {name}.",
        "alt_review_final_lead": "Slag {n}: {name} kwam uit met {card}, en de ronde was voorbij.",
        "alt_review_marriage": "{name} meldde {value} in {suit}.",
        "alt_review_not_played": "Nooit gespeeld: {cards}.",
        "alt_review_held": "{name} ({cards})",
        "and": " en ",
        # The profile card (/schnapsen stats).
        "profile_rating": "Rating",
        "profile_unrated": "Nog geen rating",
        "profile_no_rated_games": "Nog geen Bummerl met rating",
        "profile_chart": "Laatste {n} Bummerl",
        "profile_rank": "#{rank} op deze server",
        "profile_bummerl": "Bummerl gewonnen",
        "profile_deals": "Rondes gewonnen",
        "profile_kontra": "Contra gewonnen",
        "profile_of": "{won} van {total}",
        "profile_contracts": "Spellen",
        "profile_declared": "geboden",
        "profile_made": "gehaald",
        "profile_partner": "Beste partner",
        "profile_partner_line": "{name}: {won} van {together} Bummerl samen gewonnen",
        "profile_no_partner": "Nog geen vaste partner (minstens {n} Bummerl samen)",
        "profile_no_games": "Nog niets uitgespeeld op deze server.",
        "profile_no_games_hint": "Open een tafel met /schnapsen new en speel een ronde.",
        "alt_profile": "Profiel van {name}.",
        "alt_profile_trend": "In de laatste {n} Bummerl van {first} naar {last}.",
        "family_normal": "Eenvoudige bieder",
        "family_bettler": "Bedelaar",
        "family_schnapser": "Schnapser",
        "family_all_tricks": "Alle slagen",
        "family_farbringerl": "Herengang",
        "family_members_bettler": "Bedelaar, Aas-bedelaar",
        "family_members_schnapser": "Schnapser, Contra-schnapser",
        "family_members_all_tricks": "Gang, Tien, Boerenschnapser, Contra-boerenschnapser",
        "family_members_farbringerl": "Herengang, Herenschnapser",
    },
    "tr": {
        "trump": "Koz",
        "no_trump": "Koz yok",
        "trump_not_chosen": "Koz henüz seçilmedi",
        "points": "{n} puan",
        "point": "1 puan",
        "tricks": "{n} el",
        "trick": "1 el",
        "sits_out": "oynamıyor",
        "to_play": "sırada",
        "first_trick": "İlk el",
        "team": "{a} & {b}",
        "wins": "{team} kazandı",
        "game_points": "+{n} oyun sayısı",
        "game_point": "+1 oyun sayısı",
        "card_points": "Kart puanı",
        "bummerl_lost": "Kaybedilen Bummerl: {n}",
        "you": "sen",
        "compass": "K D G B",  # North, East, South, West, as a compass rose marks them
        "alt_hand": "Kartların: {cards}.",
        "alt_hand_empty": "Elinde kart yok.",
        "alt_playable": "Oynanabilir: {cards}.",
        "alt_trump": "Koz: {suit}.",
        "alt_no_trump": "Koz yok.",
        "alt_trump_not_chosen": "Koz henüz seçilmedi.",
        "alt_contract": "Oyun: {contract}.",
        "alt_multiplier": "Çarpan ×{n}.",
        # "<name>: <card>" avoids the case suffixes a verb would need on the card name.
        "alt_played": "{name}: {card}",
        "alt_trick": "Masada: {plays}.",
        "alt_trick_empty": "Masada kart yok.",
        "alt_to_play": "Sıra {name} oyuncusunda.",
        "alt_sits_out": "{name} bu turda oynamıyor.",
        "alt_team": "{team}: {score}.",
        "alt_first_trick": "{team} ilk eli: {cards}.",
        "alt_wins": "{team} turu {points} ile kazandı.",
        "alt_card_points": "Kart puanı {a} - {b}.",
        "alt_score": "Skor: {team_a} {a}, {team_b} {b}.",
        "alt_bummerl": "Kaybedilen Bummerl: {team_a} {a}, {team_b} {b}.",
        # The deal review ("Show the deal").
        "review_hands": "Dağıtılan kartlar",
        "review_tricks": "Eller",
        "review_trick": "{n}. el",
        "review_not_played": "Hiç oynanmadı",
        "review_declarer": "oyunu alan",
        "review_aufschlag": "açılan koz",
        "review_deal_over": "tur bitti",
        "review_led": "ilk kartı attı",
        "review_won": "eli aldı",
        "alt_review_title": "Turun özeti.",
        "alt_review_hand": "{name} kartları: {cards}.",
        "alt_review_declarer": "{name} {contract} oyununu aldı.",
        "alt_review_aufschlag": "Koz için {card} açıldı.",
        "alt_review_trick": "{n}. el: {plays}; eli {name} aldı.",
        "alt_review_won": "{n}. eli {name} aldı.",
        "alt_review_final_lead": "{n}. el: {name} ilk kartı attı ({card}) ve tur bitti.",
        "alt_review_marriage": "{name} {suit} renginde {value} dedi.",
        "alt_review_not_played": "Hiç oynanmadı: {cards}.",
        "alt_review_held": "{name} ({cards})",
        "and": " ve ",
        # The profile card (/schnapsen stats).
        "profile_rating": "Reyting",
        "profile_unrated": "Henüz reyting yok",
        "profile_no_rated_games": "Henüz reytingli oyun yok",
        "profile_chart": "Son {n} Bummerl",
        "profile_rank": "Bu sunucuda {rank}. sırada",
        "profile_bummerl": "Kazanılan Bummerl",
        "profile_deals": "Kazanılan turlar",
        "profile_kontra": "Kazanılan kontrlar",
        "profile_of": "{total} içinde {won}",
        "profile_contracts": "Oyunlar",
        "profile_declared": "söylenen",
        "profile_made": "kazanılan",
        "profile_partner": "En iyi ortak",
        "profile_partner_line": "{name}: birlikte {together} Bummerl, {won} galibiyet",
        "profile_no_partner": "Henüz düzenli ortak yok (birlikte en az {n} Bummerl)",
        "profile_no_games": "Bu sunucuda henüz bitmiş oyun yok.",
        "profile_no_games_hint": "/schnapsen new ile bir masa aç ve bir tur oyna.",
        "alt_profile": "Profil: {name}.",
        "alt_profile_trend": "Son {n} Bummerl: {first} → {last}.",
        "family_normal": "Kolay Çağıran",
        "family_bettler": "Dilenci",
        "family_schnapser": "Schnapser",
        "family_all_tricks": "Tüm eller",
        "family_farbringerl": "Erkekler Çetesi",
        "family_members_bettler": "Dilenci, As-Dilenci",
        "family_members_schnapser": "Schnapser, Kontra-Schnapser",
        "family_members_all_tricks": "Çete, On'lar, Bauernschnapser, Kontra-Bauernschnapser",
        "family_members_farbringerl": "Erkekler Çetesi, Erkekler-Schnapser",
    },
}


def check_deck(deck: str) -> str:
    if deck not in DECK_STYLES:
        raise ValueError(f"unknown deck style {deck!r}; expected one of {DECK_STYLES}")
    return deck


def check_lang(lang: str) -> str:
    if lang not in LANGUAGES:
        raise ValueError(f"unknown language {lang!r}; expected one of {LANGUAGES}")
    return lang


def check_card(card: str) -> str:
    if len(card) != 2 or card[0] not in SUITS or card[1] not in RANKS:
        raise ValueError(f"not a card code: {card!r} (expected suit HDCS + rank ATKQJ, e.g. 'HA')")
    return card


def check_suit(suit: str) -> str:
    if len(suit) != 1 or suit not in SUITS:
        raise ValueError(f"not a suit letter: {suit!r} (expected one of H D C S)")
    return suit


def suit_name(suit: str, deck: str = DEFAULT_DECK, lang: str = DEFAULT_LANGUAGE) -> str:
    """The suit as a player of that language calls it for that deck.

    >>> suit_name("D", "doppeldeutsch", "de")
    'Schellen'
    """
    return SUIT_NAMES[check_deck(deck)][check_lang(lang)][check_suit(suit)]


def card_name(card: str, deck: str = DEFAULT_DECK, lang: str = DEFAULT_LANGUAGE) -> str:
    """The spoken name of a card.

    >>> card_name("HA", "doppeldeutsch", "de"), card_name("SQ", "french", "en")
    ('Herz-Sau', 'Queen of Spades')
    """
    check_card(card)
    rank = RANK_NAMES[check_deck(deck)][check_lang(lang)][card[1]]
    return CARD_PATTERNS[lang].format(suit=SUIT_NAMES[deck][lang][card[0]], rank=rank)


def label(key: str, lang: str = DEFAULT_LANGUAGE, **values: object) -> str:
    """A translated label or sentence, with {placeholders} filled in."""
    return LABELS[check_lang(lang)][key].format(**values)


def count_label(n: int, singular_key: str, plural_key: str, lang: str) -> str:
    return label(singular_key, lang) if n == 1 else label(plural_key, lang, n=n)


def join_names(items: list[str], lang: str) -> str:
    """Plain list joining: "a, b and c"."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + label("and", lang) + items[-1]


def family_label(family: str, lang: str = DEFAULT_LANGUAGE) -> str:
    """A contract family's name, e.g. "Bettler" for Bettler and Ass-Bettler.

    >>> family_label("all_tricks", "de")
    'Alle Stiche'
    """
    if family not in CONTRACT_FAMILIES:
        raise ValueError(f"unknown contract family {family!r}; expected one of {CONTRACT_FAMILIES}")
    return label(f"family_{family}", lang)


def family_members(family: str, lang: str = DEFAULT_LANGUAGE) -> str | None:
    """The contracts of a family as players of that language name them; None for the normal game alone."""
    family_label(family, lang)  # refuses an unknown family or language
    return LABELS[lang].get(f"family_members_{family}")
