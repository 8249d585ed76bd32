"""What a person's hand message shows, as one frozen value: its texts, its image, its buttons and whether
each is enabled, and the position its buttons act at. ``payloads.hand_message`` draws exactly this, and a
hand message is edited only when the model of the table as it stands differs from the one it shows: the
comparison and the message cannot drift apart, since both are the model. Every edit of every DM on every click
would cost four requests a click and run into Discord's global rate limit.

Discord-free, built from the snapshot and the engine's view of the seat only, so nothing hidden can leak in.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import engine
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.render import TurnScene
from bot.vocabulary import HandOrder
from engine import PlayerView

from .texts import (
    action_emoji,
    action_label,
    contract_name,
    contract_text,
    score_text,
    seat_name,
    trick_text,
    trump_text,
)

ButtonStyle = Literal["primary", "secondary", "success", "danger"]
Field = tuple[str, str, bool]  # (name, value, inline) of an embed field


@dataclass(frozen=True, slots=True)
class PlainHand:
    """The hand drawn on its own (not the viewer's card play): what ``render.render_hand`` takes.
    ``contract``: its name, so that the image tells "no trump in this contract" from "trump not chosen yet"."""

    cards: tuple[str, ...]
    trump: str | None
    deck: str
    lang: str
    contract: str | None


@dataclass(frozen=True, slots=True)
class MoveButton:
    """A legal (or, for a card, shown but disabled) move on the hand."""

    action: engine.Action
    label: str
    style: ButtonStyle
    emoji: str | None
    row: int | None
    disabled: bool = False


@dataclass(frozen=True, slots=True)
class HandModel:
    """One seat's hand message. ``version``: the position its move and hint buttons act at (None: it has
    none, so that a move elsewhere does not change what it shows)."""

    table_id: int
    title: str
    description: str
    fields: tuple[Field, ...] = ()
    image: PlainHand | TurnScene | None = None  # None: no deal to show (nor any button)
    version: int | None = None
    moves: tuple[MoveButton, ...] = ()
    back: str | None = None  # the label of "I'm back", on a hand the AI plays for its idle owner
    hint: str | None = None  # the label of a practice table's "Hint", on the owner's turn


def hand_model(
    table: TableSnapshot,
    seat: int,
    lang: str,
    where: str,
    deal: engine.DealState | None = None,
    order: HandOrder = "sorted",
) -> HandModel:
    """The seat's private message: their hand as an image, the trick and the contract as text, and their
    buttons when it is their turn. ``deal`` defaults to the running deal (a finished one for its last word).
    On a card play of theirs the image shows the cards on the table above the hand (one screen is enough);
    ``order`` is the player's choice of how their cards are arranged, in the image and the buttons alike. A
    closed table's hand says so and offers nothing: no move, no hint, no "I'm back"."""
    deal = deal or table.deal
    occupant = table.seats[seat]
    closed = table.status == "closed"
    title = t(lang, "hand.title", id=table.id, where=where)
    if deal is None or occupant is None:
        return HandModel(table.id, title, t(lang, "hand.table_closed" if closed else "hand.no_deal"))
    view = engine.view_for(deal, seat)
    my_turn = view.to_act == seat and not occupant.ai_takeover and not closed
    if closed:
        description = t(lang, "hand.table_closed")
    elif deal.finished:
        description = t(lang, "hand.deal_over")
    elif my_turn:
        description = t(lang, f"hand.prompt.{deal.phase}")
    else:
        description = t(lang, "hand.waiting")
    if occupant.ai_takeover and not closed:
        description += "\n" + t(lang, "hand.taken_over")
    fields: list[Field] = [
        (t(lang, "table.trump"), trump_text(table, lang, view), True),
        (t(lang, "table.contract"), contract_text(table, lang, view), True),
        (t(lang, "table.score"), score_text(table, lang), True),
    ]
    trick_field = trick_text(table, lang, view, my_turn)
    if trick_field:
        fields.append((trick_field[0], trick_field[1], False))
    trump = view.trump if view.contract is None or view.contract in engine.contracts.TRUMP_CONTRACTS else None
    cards = engine.display_order(view.hand, view.trump, view.contract) if order == "sorted" else view.hand
    image: PlainHand | TurnScene
    if my_turn and deal.phase == engine.PLAY:
        playable = tuple(a.card for a in view.legal if isinstance(a, engine.PlayCard))
        image = turn_scene(table, lang, view, cards, playable, trump)
    else:
        contract = None if view.contract is None else contract_name(lang, view.contract)
        image = PlainHand(cards, trump, table.deck, lang, contract)
    model = HandModel(table.id, title, description, tuple(fields), image)
    if occupant.ai_takeover and not closed:
        return replace(model, back=t(lang, "button.back"))
    if not my_turn:
        return model
    hint = t(lang, "button.hint") if table.practice else None
    return replace(model, version=table.version, moves=move_buttons(table, lang, view, cards), hint=hint)


def move_buttons(
    table: TableSnapshot, lang: str, view: PlayerView, cards: tuple[str, ...]
) -> tuple[MoveButton, ...]:
    """The seat's moves: on their card play one per card in ``cards`` (the order the image shows), illegal
    ones disabled, then the marriages in the same order; else one per legal action."""
    if view.phase == engine.PLAY:
        # Every card is shown; the illegal ones disabled, so a player sees why nothing else is allowed.
        legal = set(view.legal)
        plays = [
            MoveButton(
                play,
                action_label(table, lang, play),
                "primary",
                action_emoji(table, play),
                row=0,
                disabled=play not in legal,
            )
            for play in (engine.PlayCard(card) for card in cards)
        ]
        marriages = [a for a in view.legal if isinstance(a, engine.PlayCard) and a.marriage]
        plays += [
            MoveButton(marriage, action_label(table, lang, marriage), "success", action_emoji(table, marriage), row=1)
            for marriage in sorted(marriages, key=lambda a: cards.index(a.card))
        ]
        return tuple(plays)
    moves = []
    for index, action in enumerate(view.legal):
        style: ButtonStyle = "secondary" if isinstance(action, engine.Pass) else "primary"
        if isinstance(action, engine.Double):
            style = "danger"
        moves.append(MoveButton(action, action_label(table, lang, action), style, action_emoji(table, action), index // 5))
    return tuple(moves)


def turn_scene(
    table: TableSnapshot,
    lang: str,
    view: PlayerView,
    cards: tuple[str, ...],
    playable: tuple[str, ...],
    trump: str | None,
) -> TurnScene:
    """The one-screen image of the viewer's card play: the trick so far (or, when they lead, the trick just
    taken) in playing order, every seat that plays this deal named, above their hand."""
    assert view.seat is not None
    if view.trick:
        plays, caption = view.trick, t(lang, "hand.caption.led", name=seat_name(table, view.trick[0][0]))
    elif view.last_trick is not None and view.last_trick.plays is not None:
        plays = view.last_trick.plays
        caption = t(lang, "hand.caption.last", name=seat_name(table, view.last_trick.winner))
    else:
        plays, caption = (), t(lang, "hand.caption.lead")
    leader = plays[0][0] if plays else view.seat
    in_play = [s for s in range(4) if s != view.sitting_out]
    start = in_play.index(leader)
    played = dict(plays)
    places = tuple(
        (seat_name(table, s), played.get(s), s == view.seat)
        for s in in_play[start:] + in_play[:start]
    )
    return TurnScene(
        cards=cards,
        playable=playable,
        places=places,
        caption=caption,
        trump=trump,
        contract_label=None if view.contract is None else contract_name(lang, view.contract),
        multiplier=view.multiplier,
        deck=table.deck,
        lang=lang,
    )
