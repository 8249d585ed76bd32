"""What the messages say, in the reader's language: names, the status line, contract, trump, score and trick
texts, and why a deal ended. Discord-free: built from the tables and the engine's views only, so nothing
hidden can leak into a text (``payloads.py`` makes messages of them)."""

from __future__ import annotations

from typing import Any

import engine
from bot.game.profile import MIN_BUMMERL_TOGETHER, PlayerProfile
from bot.game.ratings import ai_strength_of
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.render import ProfileScene, card_name, suit_name
from bot.render.names import family_label, family_members, label
from engine import Contract, PlayerView
from engine.ai import Evaluation
from engine.ai.analysis import Judged, costly

SUIT_EMOJI = {
    "french": {"H": "♥️", "D": "♦️", "C": "♣️", "S": "♠️"},
    "doppeldeutsch": {"H": "❤️", "D": "🔔", "C": "🌰", "S": "🍃"},
}


# --- names ---------------------------------------------------------------------------------------------


def contract_name(lang: str, contract: Contract | str) -> str:
    return t(lang, f"contract.{contract.id if isinstance(contract, Contract) else contract}")


def suit_label(table: TableSnapshot, lang: str, suit: str) -> str:
    return suit_name(suit, table.deck, lang)


def seat_name(table: TableSnapshot, seat: int) -> str:
    occupant = table.seats[seat]
    if occupant is None:
        return "—"
    return occupant.display_name + (" 🤖" if occupant.user_id is None else "")


def team_names(table: TableSnapshot, team: int) -> str:
    return f"{seat_name(table, team)} & {seat_name(table, team + 2)}"


def pair_label(pair: tuple[int, int]) -> str:
    """A pair of a tally: its people mentioned, an AI seat (user id 0) as a robot."""
    return " & ".join("🤖" if user_id == 0 else f"<@{user_id}>" for user_id in pair)


def board_name(lang: str, player_id: int, display_name: str) -> str:
    """A name on the rating board: a person's, or the AI strength an AI identity stands for."""
    strength = ai_strength_of(player_id)
    if strength is None:
        return display_name
    return "🤖 " + t(lang, "leaderboard.ai_player", strength=t(lang, f"command.choice.{strength}"))


def signed(delta: int) -> str:
    """A rating change as people write it: +14, −9 (a minus sign, not a hyphen), ±0.

    >>> signed(14), signed(-9), signed(0)
    ('+14', '−9', '±0')
    """
    return f"+{delta}" if delta > 0 else f"−{-delta}" if delta < 0 else "±0"


def rating_changes_text(lang: str, changes: list[dict[str, Any]]) -> str:
    """Every person's rating change after a Bummerl, one line each (``changes`` as stored with the result:
    name, delta, shown)."""
    return "\n".join(
        t(lang, "result.rating_line", name=change["name"], delta=signed(change["delta"]), rating=change["shown"])
        for change in changes
    )


def log_line(table: TableSnapshot, lang: str, key: str, values: dict[str, object]) -> str:
    shown: dict[str, object] = dict(values)
    if isinstance(values.get("seat"), int):
        shown["name"] = seat_name(table, values["seat"])  # type: ignore[arg-type]
    if isinstance(values.get("dealer"), int):
        shown["name"] = seat_name(table, values["dealer"])  # type: ignore[arg-type]
    if values.get("suit"):
        shown["suit"] = suit_label(table, lang, str(values["suit"]))
    if values.get("card"):
        shown["card"] = card_name(str(values["card"]), table.deck, lang)
    if values.get("contract"):
        shown["contract"] = contract_name(lang, str(values["contract"]))
    if values.get("word"):
        shown["word"] = t(lang, f"double.{values['word']}")
    if isinstance(values.get("team"), int):
        shown["team"] = team_names(table, values["team"])  # type: ignore[arg-type]
    if key == "log.scored":
        shown["count"] = shown.pop("points")  # the game points pick the plural form
    if key == "log.contract" and values.get("contract") == Contract.NORMAL.id:
        key = "log.normal_game"  # nobody bid: the forehand declares the normal game only on paper
    return t(lang, key, **shown)


def action_label(table: TableSnapshot, lang: str, action: engine.Action) -> str:
    return action_name(table.deck, lang, action)


def action_name(deck: str, lang: str, action: engine.Action) -> str:
    """An action as its button names it, in a deck's words (a finished table's too)."""
    match action:
        case engine.ChooseTrump(suit):
            return suit_name(suit, deck, lang)
        case engine.Aufschlagen():
            return t(lang, "button.aufschlagen")
        case engine.Bid(contract):
            return contract_name(lang, contract)
        case engine.Pass():
            return t(lang, "button.pass")
        case engine.Double(word):
            return t(lang, f"double.{word}")
        case engine.PlayCard(card, None):
            return card_name(card, deck, lang)
        case engine.PlayCard(card, value):
            return t(lang, "button.marriage", card=card_name(card, deck, lang), value=value)
    raise TypeError(action)


def action_emoji(table: TableSnapshot, action: engine.Action) -> str | None:
    emoji = SUIT_EMOJI[table.deck]
    match action:
        case engine.ChooseTrump(suit):
            return emoji[suit]
        case engine.PlayCard(card, _):
            return emoji[card[0]]
    return None


# --- status ----------------------------------------------------------------------------------------------


def status_line(table: TableSnapshot, lang: str) -> str:
    if table.status == "lobby":
        return t(lang, "status.lobby")
    if table.status == "closed":
        return t(lang, "status.closed")
    deal = table.deal
    if table.status == "finished" or deal is None:
        return t(lang, "status.bummerl_over")
    if deal.to_act is None:
        return t(lang, "status.deal_over")
    name = seat_name(table, deal.to_act)
    return t(lang, f"status.{deal.phase}", name=name)


def contract_text(table: TableSnapshot, lang: str, view: PlayerView) -> str:
    if view.contract is None:
        return t(lang, "table.no_contract")
    if view.contract is Contract.NORMAL:
        text = t(lang, "table.normal_game")
    else:
        text = t(
            lang,
            "table.contract_by",
            contract=contract_name(lang, view.contract),
            name=seat_name(table, view.declarer),  # type: ignore[arg-type]  # a contract has its declarer
        )
    if view.multiplier > 1:
        text += f" ×{view.multiplier}"
    if view.sitting_out is not None:
        text += "\n" + t(lang, "table.sits_out", name=seat_name(table, view.sitting_out))
    return text


def trump_text(table: TableSnapshot, lang: str, view: PlayerView) -> str:
    if view.trump is None:
        return t(lang, "table.no_trump_yet")
    text = f"{SUIT_EMOJI[table.deck][view.trump]} {suit_label(table, lang, view.trump)}"
    if view.contract is not None and view.contract not in (
        Contract.NORMAL,
        Contract.SCHNAPSER,
        Contract.BAUERNSCHNAPSER,
        Contract.KONTRASCHNAPSER,
        Contract.KONTRABAUERNSCHNAPSER,
    ):
        text = t(lang, "table.no_trumps_in_contract")
    if view.aufschlag_card:
        text += "\n" + t(
            lang, "table.aufschlag", card=card_name(view.aufschlag_card, table.deck, lang)
        )
    return text


def score_text(table: TableSnapshot, lang: str) -> str:
    shown = engine.displayed_score(table.rules, table.match.score)
    key = "table.score_down" if table.rules.score_display == "count_down" else "table.score_up"
    lines = [t(lang, key, team=team_names(table, team), points=shown[team]) for team in (0, 1)]
    lost = [sum(b.count for b in table.match.bummerls if b.winner != team) for team in (0, 1)]
    if any(lost):  # on each team's own line, so that nobody has to work out which number is whose
        lines = [t(lang, "table.bummerl_lost", score=line, lost=lost[team]) for team, line in enumerate(lines)]
    return "\n".join(lines)


def tricks_text(table: TableSnapshot, lang: str, view: PlayerView) -> str:
    text = t(lang, "table.tricks", a=view.team_tricks[0], b=view.team_tricks[1])
    if view.team_points is not None:
        text += "\n" + t(lang, "table.card_points", a=view.team_points[0], b=view.team_points[1])
    return text


def trick_text(table: TableSnapshot, lang: str, view: PlayerView, my_turn: bool) -> tuple[str, str] | None:
    """The trick in words: on your turn the one to play to, or the one just taken when you lead; at the deal's
    end its last trick. While others play, a hand shows no trick: the table message shows every card live, and
    a trick field there would cost a hand edit for every card and every trick taken (``handmodel.py``)."""
    if view.trick and my_turn:
        title, plays = t(lang, "hand.trick"), view.trick
    elif (my_turn or view.result is not None) and view.last_trick is not None and view.last_trick.plays is not None:
        title = t(lang, "hand.last_trick", name=seat_name(table, view.last_trick.winner))
        plays = view.last_trick.plays
    else:
        return None
    emoji = SUIT_EMOJI[table.deck]
    lines = [
        f"{seat_name(table, who)}: {emoji[card[0]]} {card_name(card, table.deck, lang)}"
        for who, card in plays
    ]
    return title, "\n".join(lines)


# --- results -----------------------------------------------------------------------------------------------


def why_text(table: TableSnapshot, lang: str, deal: engine.DealState) -> str:
    """Why the deal ended, in the reader's language, worked out from the final position."""
    result, contract, declarer = deal.result, deal.contract, deal.declarer
    assert result is not None and contract is not None and declarer is not None
    contracts = engine.contracts
    side = declarer & 1
    trick_no = len(deal.tricks)
    last = deal.tricks[-1] if deal.tricks else None
    team = team_names(table, result.winner)
    claim = deal.final_lead  # an announcement that ended the deal at once, its card led but never played
    if contract in contracts.IMMEDIATE_CONTRACTS:
        return t(lang, "result.why.at_once")
    if claim is not None:
        points = deal.team_cards[claim.seat & 1] + claim.value
        if contract is Contract.NORMAL:
            reached = t(lang, "result.why.marriage", team=team, points=deal.total(result.winner), value=claim.value)
            return f"{reached}; {normal_game_points(table, lang, deal)}"
        key = "result.why.claim_made" if result.made else "result.why.claim_short"
        return t(lang, key, points=points, value=claim.value)
    if contract is Contract.NORMAL:
        if deal.total(result.winner) >= 66:
            reached = t(lang, "result.why.reached", team=team, points=deal.total(result.winner), trick=trick_no)
            return f"{reached}; {normal_game_points(table, lang, deal)}"
        return t(lang, "result.why.last_trick", team=team)
    if contract in contracts.BEGGAR_CONTRACTS:
        if result.made:
            return t(lang, "result.why.no_trick")
        return t(lang, "result.why.declarer_won", trick=trick_no)
    assert last is not None
    if last.winner != declarer:
        return t(lang, "result.why.other_won", name=seat_name(table, last.winner), trick=trick_no)
    if contract in contracts.SCHNAPSER_CONTRACTS:
        key = "result.why.declarer_reached" if result.made else "result.why.short"
        return t(lang, key, points=deal.total(side), trick=trick_no)
    return t(lang, "result.why.all_tricks")


def normal_game_points(table: TableSnapshot, lang: str, deal: engine.DealState) -> str:
    """Why a normal game won at 66 is worth 3, 2 or 1 game points: what the other side took (RULES.md D10)."""
    assert deal.result is not None
    loser = 1 - deal.result.winner
    team = team_names(table, loser)
    if deal.team_tricks[loser] == 0:
        return t(lang, "result.why.took_no_trick", team=team)
    points = deal.total(loser)
    return t(lang, "result.why.under_33" if points < 33 else "result.why.33_or_more", team=team, points=points)


def result_line(table: TableSnapshot, lang: str, deal: engine.DealState) -> str:
    """Whose contract was made or failed; a normal game is nobody's contract, so it says which side won it."""
    result, contract, declarer = deal.result, deal.contract, deal.declarer
    assert result is not None and contract is not None and declarer is not None
    if contract is Contract.NORMAL:
        return t(lang, "result.normal", team=t(lang, f"team.{result.winner}"))
    key = "result.made" if result.made else "result.failed"
    return t(lang, key, contract=contract_name(lang, contract), name=seat_name(table, declarer))


# --- a player's profile --------------------------------------------------------------------------------------


def profile_scene(profile: PlayerProfile, name: str, lang: str) -> ProfileScene:
    """The profile card of ``profile``, headed with ``name`` (the player's name as the server shows it now)."""
    rating = profile.rating
    partner = profile.best_partner
    return ProfileScene(
        display_name=name,
        lang=lang,
        rating=None if rating is None else rating.shown,
        uncertainty=None if rating is None else rating.uncertainty,
        history=() if rating is None else rating.history,
        rank=profile.rank,
        bummerl=(profile.bummerl_won, profile.bummerl_played),
        deals=(profile.deals_won, profile.deals_played),
        contracts=tuple((record.family, record.declared, record.made) for record in profile.contracts),
        kontra=(profile.kontra_won, profile.kontra_said),
        partner=None if partner is None else (partner.display_name, partner.together, partner.won),
        min_together=MIN_BUMMERL_TOGETHER,
    )


def _share(won: int, total: int) -> str:
    return f"{won / total:.0%}" if total else "—"


def profile_fields(profile: PlayerProfile, lang: str) -> list[tuple[str, str, bool]]:
    """The profile as (name, value, inline) fields, for where the card cannot be attached: in the card's own
    words (``bot.render``'s labels), with what only text needs from the catalogue."""
    rating = profile.rating
    if rating is None:
        rating_text = label("profile_unrated", lang)
    else:
        rating_text = t(lang, "stats.rating_value", rating=rating.shown, uncertainty=rating.uncertainty)
        if len(rating.history) > 1:
            trend = t(lang, "stats.trend", n=len(rating.history), first=rating.history[0], last=rating.history[-1])
            rating_text += "\n" + trend
    if profile.rank is not None:
        rating_text += "\n" + label("profile_rank", lang, rank=profile.rank)
    fields = [(label("profile_rating", lang), rating_text, False)]
    for key, won, total in (
        ("profile_bummerl", profile.bummerl_won, profile.bummerl_played),
        ("profile_deals", profile.deals_won, profile.deals_played),
        ("profile_kontra", profile.kontra_won, profile.kontra_said),
    ):
        fields.append((label(key, lang), t(lang, "stats.of", won=won, total=total, share=_share(won, total)), True))
    contracts = [
        t(lang, "stats.contract_line",
          family=family_members(record.family, lang) or family_label(record.family, lang),
          declared=record.declared, made=record.made)
        for record in profile.contracts
    ]  # fmt: skip
    fields.append((t(lang, "stats.contracts"), "\n".join(contracts), False))
    partner = profile.best_partner
    if partner is None:
        partner_text = label("profile_no_partner", lang, n=MIN_BUMMERL_TOGETHER)
    else:
        partner_text = label(
            "profile_partner_line", lang, name=partner.display_name, won=partner.won, together=partner.together
        )
    fields.append((label("profile_partner", lang), partner_text, False))
    return fields


# --- the coach: "Review my play" and hints --------------------------------------------------------------


def game_points(lang: str, value: float, *, signed: bool = True) -> str:
    """Expected game points as the reader writes them, two decimals, signed unless told otherwise.

    >>> game_points("en", 1.5), game_points("de", -0.25), game_points("en", 0.0), game_points("nl", 2, signed=False)
    ('+1.50', '−0,25', '±0.00', '2,00')
    """
    text = f"{abs(value):.2f}"
    if lang != "en":
        text = text.replace(".", ",")
    if not signed:
        return text
    return ("+" if value > 0.004 else "−" if value < -0.004 else "±") + text


def decision_place(lang: str, view: PlayerView) -> str:
    """Where in the deal a decision was: trump, bidding, Kontra/Re, or the trick."""
    if view.phase == engine.PLAY:
        return t(lang, "coach.where.play", trick=len(view.tricks) + 1)
    return t(lang, f"coach.where.{view.phase}")


def review_lines(deck: str, lang: str, decisions: list[Judged]) -> list[str]:
    """The decisions that cost expected game points, biggest loss first, one line each."""
    return [
        t(
            lang,
            "coach.review_line",
            where=decision_place(lang, d.moment.view),
            played=action_name(deck, lang, d.moment.played),
            played_value=game_points(lang, d.played_value),
            best=action_name(deck, lang, d.best),
            best_value=game_points(lang, d.best_value),
            loss=game_points(lang, d.loss, signed=False),
        )
        for d in costly(decisions)
    ]


def hint_lines(deck: str, lang: str, best: engine.Action, evaluations: tuple[Evaluation, ...]) -> list[str]:
    """The AI's choice, then every legal action with its value, best first."""
    ranked = sorted(evaluations, key=lambda e: (e.action != best, -e.value))
    return [t(lang, "coach.hint_best", action=action_name(deck, lang, best))] + [
        t(lang, "coach.hint_line", action=action_name(deck, lang, e.action), value=game_points(lang, e.value))
        for e in ranked
    ]


def round_name(lang: str, index: int, rounds: int) -> str:
    """A bracket round's name: the last three by their stage, the others by number."""
    stage = ("tournament.image.final", "tournament.image.semi_final", "tournament.image.quarter_final")
    left = rounds - 1 - index
    return t(lang, stage[left]) if left < len(stage) else t(lang, "tournament.image.round", round=index + 1)
