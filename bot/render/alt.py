"""Alt text: plain sentences that say what each image shows, so screen-reader users can play."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.render.names import (
    DEFAULT_DECK,
    DEFAULT_LANGUAGE,
    card_name,
    check_card,
    count_label,
    family_label,
    join_names,
    label,
    suit_name,
)
from bot.render.scenes import ProfileScene, ResultScene, TableScene


def _cards(cards: Sequence[str], deck: str, lang: str) -> str:
    return ", ".join(card_name(card, deck, lang) for card in cards)


def _trump(trump: str | None, deck: str, lang: str) -> str:
    if trump is None:
        return label("alt_no_trump", lang)
    return label("alt_trump", lang, suit=suit_name(trump, deck, lang))


def hand_alt_text(
    cards: Sequence[str],
    playable: Collection[str] | None = None,
    trump: str | None = None,
    deck: str = DEFAULT_DECK,
    lang: str = DEFAULT_LANGUAGE,
) -> str:
    """E.g. "Your hand: Herz-Sau, Laub-Ober. Trump: Herz. Playable: Herz-Sau." (in lang)."""
    cards = [check_card(card) for card in cards]
    sentences = [
        label("alt_hand", lang, cards=_cards(cards, deck, lang)) if cards else label("alt_hand_empty", lang)
    ]
    if trump is not None:
        sentences.append(_trump(trump, deck, lang))
    if playable is not None and cards:
        allowed = [card for card in cards if card in set(playable)]
        sentences.append(label("alt_playable", lang, cards=_cards(allowed, deck, lang)))
    return " ".join(sentences)


def _team(names: Sequence[str], team: int, lang: str) -> str:
    return label("team", lang, a=names[team], b=names[team + 2])


def table_alt_text(scene: TableScene) -> str:
    deck, lang, names = scene.deck, scene.lang, scene.seat_names
    named = scene.trump is not None or scene.contract_label  # no contract yet: trump is still to be named
    sentences = [_trump(scene.trump, deck, lang) if named else label("alt_trump_not_chosen", lang)]
    if scene.contract_label:
        sentences.append(label("alt_contract", lang, contract=scene.contract_label))
    if scene.multiplier > 1:
        sentences.append(label("alt_multiplier", lang, n=scene.multiplier))
    if scene.trick:
        plays = [
            label("alt_played", lang, name=names[seat], card=card_name(card, deck, lang))
            for seat, card in scene.trick
        ]
        sentences.append(label("alt_trick", lang, plays=join_names(plays, lang)))
    else:
        sentences.append(label("alt_trick_empty", lang))
    if scene.to_act_seat is not None:
        sentences.append(label("alt_to_play", lang, name=names[scene.to_act_seat]))
    if scene.sitting_out_seat is not None:
        sentences.append(label("alt_sits_out", lang, name=names[scene.sitting_out_seat]))
    for team in (0, 1):
        score = [count_label(scene.team_tricks[team], "trick", "tricks", lang)]
        if scene.team_points is not None:
            score.insert(0, count_label(scene.team_points[team], "point", "points", lang))
        sentences.append(label("alt_team", lang, team=_team(names, team, lang), score=", ".join(score)))
    for team, cards in enumerate(scene.first_tricks):
        if cards:
            sentences.append(
                label("alt_first_trick", lang, team=_team(names, team, lang), cards=_cards(cards, deck, lang))
            )
    return " ".join(sentences)


def result_alt_text(scene: ResultScene) -> str:
    lang, names = scene.lang, scene.seat_names
    points = count_label(scene.game_points, "game_point", "game_points", lang).lstrip("+")
    sentences = [label("alt_wins", lang, team=_team(names, scene.winner_team, lang), points=points)]
    if scene.detail:
        sentences.append(scene.detail.rstrip(".") + ".")
    if scene.contract_label:
        sentences.append(label("alt_contract", lang, contract=scene.contract_label))
    if scene.card_points is not None:
        sentences.append(label("alt_card_points", lang, a=scene.card_points[0], b=scene.card_points[1]))
    team_a, team_b = _team(names, 0, lang), _team(names, 1, lang)
    sentences.append(
        label(
            "alt_score",
            lang,
            team_a=team_a,
            team_b=team_b,
            a=f"{scene.score[0]}/{scene.target}",
            b=f"{scene.score[1]}/{scene.target}",
        )
    )
    if any(scene.bummerls):
        sentences.append(
            label("alt_bummerl", lang, team_a=team_a, team_b=team_b, a=scene.bummerls[0], b=scene.bummerls[1])
        )
    return " ".join(sentences)


def profile_alt_text(scene: ProfileScene) -> str:
    """What the profile card shows, as sentences in the reader's language."""
    lang = scene.lang
    sentences = [label("alt_profile", lang, name=scene.display_name)]
    if scene.rank is not None:
        sentences.append(label("profile_rank", lang, rank=scene.rank) + ".")
    if not scene.has_games:
        sentences.append(label("profile_no_games", lang))
        return " ".join(sentences)
    if scene.rating is None:
        sentences.append(label("profile_unrated", lang) + ".")
    else:
        sentences.append(f"{label('profile_rating', lang)}: {scene.rating} ± {scene.uncertainty}.")
    if len(scene.history) > 1:
        first, last = scene.history[0], scene.history[-1]
        sentences.append(label("alt_profile_trend", lang, n=len(scene.history), first=first, last=last))
    for key, (won, total) in (
        ("profile_bummerl", scene.bummerl),
        ("profile_deals", scene.deals),
        ("profile_kontra", scene.kontra),
    ):
        sentences.append(f"{label(key, lang)}: {label('profile_of', lang, won=won, total=total)}.")
    declared = [
        f"{family_label(family, lang)} {label('profile_declared', lang)} {times}, {label('profile_made', lang)} {made}"
        for family, times, made in scene.contracts
        if times
    ]
    if declared:
        sentences.append(f"{label('profile_contracts', lang)}: {'; '.join(declared)}.")
    if scene.partner is not None:
        name, together, won = scene.partner
        line = label("profile_partner_line", lang, name=name, won=won, together=together)
        sentences.append(f"{label('profile_partner', lang)}: {line}.")
    else:
        sentences.append(label("profile_no_partner", lang, n=scene.min_together) + ".")
    return " ".join(sentences)
