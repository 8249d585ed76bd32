"""What people see of a table, as Discord messages: the table message, the private hand (DM or ephemeral) and a
deal's result; embeds made of the texts of ``texts.py``, views made of the buttons the families of
``components.py`` build, and the images, rendered off the event loop (``content.py``). The answers that carry
no game button are in ``answers.py``."""

from __future__ import annotations

import logging
from typing import Any

import discord

import engine
from bot import render
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.vocabulary import HandOrder
from engine import PlayerView

from .answers import add_rules_field, add_tally_field, replay_link
from .components import CoachButton, GameActionButton, HandButton, HostButton, SeatButton
from .content import ANSWER_POOL, Kept, Payload, rendered
from .handmodel import HandModel, PlainHand, hand_model
from .shellbuttons import DealReviewButton
from .texts import (
    contract_name,
    contract_text,
    log_line,
    rating_changes_text,
    result_line,
    score_text,
    seat_name,
    status_line,
    team_names,
    tricks_text,
    trump_text,
    why_text,
)

__all__ = ["Payload", "hand_payload", "result_payload", "stop_view", "table_payload", "turn_notice_view"]

log = logging.getLogger(__name__)


def _draw_hand(
    cards: tuple[str, ...],
    playable: tuple[str, ...] | None,
    trump: str | None,
    deck: str,
    lang: str,
    contract: str | None = None,
) -> bytes:
    """``contract``: its name, so that the image tells "no trump in this contract" from "trump not chosen yet"."""
    return render.render_hand(cards, playable, trump, deck, lang, contract)


def _draw_turn(scene: render.TurnScene) -> bytes:
    return render.render_turn(scene)


def _draw_table(scene: render.TableScene) -> bytes:
    return render.render_table(scene)


# A hand changes only for the player who acted: the other three DMs reuse their image.
_hand_png = Kept(_draw_hand, 1024)
# A position's turn image, drawn once: a retried or repeated edit of the same position reuses it.
_turn_png = Kept(_draw_turn, 1024)
# A table's picture, drawn once per position: the table message shown again for a change the picture does not
# show (a log line, a retried edit) reuses it. About 30 KB (at most 150) each: a few MB.
_table_png = Kept(_draw_table, 128)


COLOUR_OF_PHASE = {"lobby": 0x2E7D32, "playing": 0x1565C0, "finished": 0xF9A825, "closed": 0x616161}


def table_scene(table: TableSnapshot, lang: str, view: PlayerView, viewer: int | None) -> render.TableScene:
    first: list[tuple[str, ...] | None] = [None, None]
    for trick in view.tricks:
        team = trick.winner & 1
        if first[team] is None and trick.plays is not None:
            first[team] = tuple(card for _, card in trick.plays)
    has_trumps = view.contract is None or view.contract in engine.contracts.TRUMP_CONTRACTS
    on_table = view.trick
    if not on_table and view.last_trick is not None and view.last_trick.plays is not None:
        on_table = view.last_trick.plays
    return render.TableScene(
        viewer_seat=viewer,
        seat_names=tuple(seat_name(table, s) for s in range(4)),  # type: ignore[arg-type]
        trick=on_table,
        leader_seat=on_table[0][0] if on_table else None,
        to_act_seat=view.to_act,
        trump=view.trump if has_trumps else None,
        contract_label=None if view.contract is None else contract_name(lang, view.contract),
        multiplier=view.multiplier,
        team_points=view.team_points,
        team_tricks=view.team_tricks,
        first_tricks=(first[0], first[1]),
        sitting_out_seat=view.sitting_out,
        deck=table.deck,
        lang=lang,
    )


# --- the table message -------------------------------------------------------------------------------------


async def table_payload(table: TableSnapshot, lang: str) -> Payload:
    embed = discord.Embed(
        title=t(lang, "table.title", id=table.id),
        description=status_line(table, lang),
        colour=COLOUR_OF_PHASE.get(table.status, 0x1565C0),
    )
    if table.practice:
        embed.description = f"{embed.description}\n{t(lang, 'table.practice')}"
    payload = Payload([embed])
    if table.status == "lobby":
        for seat in range(4):
            embed.add_field(
                name=t(lang, f"seat.{seat}"),
                value=seat_name(table, seat) if table.seats[seat] else t(lang, "seat.empty"),
                inline=True,
            )
        add_rules_field(embed, table.rules, lang)
        embed.set_footer(
            text=t(
                lang,
                "table.lobby_footer",
                preset=t(lang, f"command.choice.{table.rules.preset}"),
                deck=t(lang, f"deck.{table.deck}"),
                seconds=table.turn_seconds,
            )
        )
        payload.view = lobby_view(table, lang)
        return payload
    # Everything is read from the table before the render awaits, so that one message shows one moment.
    embed.add_field(name=t(lang, "table.score"), value=score_text(table, lang), inline=False)
    scene = None
    if table.deal is not None:
        view = engine.view_for(table.deal, None)
        embed.add_field(name=t(lang, "table.trump"), value=trump_text(table, lang, view), inline=True)
        embed.add_field(name=t(lang, "table.contract"), value=contract_text(table, lang, view), inline=True)
        embed.add_field(name=t(lang, "table.tricks_title"), value=tricks_text(table, lang, view), inline=True)
        scene = table_scene(table, lang, view, None)
        embed.set_image(url="attachment://table.png")
    if table.log:
        lines = [log_line(table, lang, key, values) for key, values in table.log]
        embed.add_field(name=t(lang, "table.log"), value="\n".join(lines)[-1024:], inline=False)
    add_rules_field(embed, table.rules, lang)
    payload.view = table_view(table, lang)
    if scene is not None:
        payload.images["table.png"] = await rendered(_table_png, scene)
        payload.alt["table.png"] = render.table_alt_text(scene)
    return payload


def lobby_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for seat in range(4):
        occupant = table.seats[seat]
        taken = occupant is not None and occupant.user_id is not None
        sit = t(lang, "button.sit", seat=t(lang, f"seat.{seat}"))
        view.add_item(SeatButton.sit(table.id, seat, sit, taken=taken))
    view.add_item(SeatButton.add_ai(table.id, t(lang, "button.add_ai")))
    view.add_item(SeatButton.leave(table.id, t(lang, "button.leave")))
    view.add_item(SeatButton.start(table.id, t(lang, "button.start")))
    # The host's switch between a practice table (hints; no statistic or rating) and a normal one.
    practice = t(lang, "button.practice_on" if table.practice else "button.practice_off")
    view.add_item(SeatButton.practice_toggle(table.id, table.practice, practice))
    return view


def table_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if table.status == "playing":
        view.add_item(HandButton.my_hand(table.id, t(lang, "button.my_hand")))
    elif table.status == "finished":
        view.add_item(HostButton.rematch(table.id, table.version, t(lang, "button.rematch")))
        view.add_item(HostButton.close(table.id, table.version, t(lang, "button.close")))
    return view


def turn_notice_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    """The button of a turn notice: the hand of whoever presses it, ephemerally ("My hand" by another name)."""
    view = discord.ui.View(timeout=None)
    view.add_item(HandButton.my_hand(table.id, t(lang, "button.show_hand")))
    return view


def stop_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    """The confirmation of ``/schnapsen stop``, shown only to who asked."""
    view = discord.ui.View(timeout=None)
    view.add_item(HostButton.stop(table.id, t(lang, "button.confirm_stop")))
    return view


# --- a player's hand (DM or ephemeral) -----------------------------------------------------------------------


async def hand_payload(
    table: TableSnapshot,
    seat: int,
    lang: str,
    where: str,
    deal: engine.DealState | None = None,
    order: HandOrder = "sorted",
) -> Payload:
    """The seat's private message as ``handmodel.hand_model`` describes it (see there)."""
    return await hand_message(hand_model(table, seat, lang, where, deal, order))


async def hand_message(model: HandModel) -> Payload:
    """A hand message showing exactly ``model``: its texts, its image (drawn off the event loop) and buttons."""
    embed = discord.Embed(title=model.title, description=model.description, colour=0x6A1B9A)
    for name, value, inline in model.fields:
        embed.add_field(name=name, value=value, inline=inline)
    payload = Payload([embed])
    if model.image is None:
        return payload
    # Everything is in the model, made before the render awaits: the buttons carry the position's version.
    payload.view = hand_buttons(model)
    drawing, args = _hand_image(model.image)
    payload.images = {"hand.png": await rendered(drawing, *args)}
    if isinstance(model.image, render.TurnScene):
        payload.alt = {"hand.png": render.turn_alt_text(model.image)}
    else:
        hand = model.image
        payload.alt = {"hand.png": render.hand_alt_text(hand.cards, None, hand.trump, hand.deck, hand.lang)}
    embed.set_image(url="attachment://hand.png")
    return payload


def draw_answer_ahead(model: HandModel) -> None:
    """Begin drawing ``model``'s image on the thread of clicks' answers, unless it is drawn already: the answer
    about to show it (``hand_message`` under ``DRAW_FIRST``) then joins this drawing, not a queue."""
    if model.image is not None:
        drawing, args = _hand_image(model.image)
        if drawing.kept.get(args) is None:
            drawing.drawing(args, ANSWER_POOL)


def _hand_image(image: PlainHand | render.TurnScene) -> tuple[Kept, tuple[Any, ...]]:
    if isinstance(image, render.TurnScene):
        return _turn_png, (image,)
    return _hand_png, (image.cards, None, image.trump, image.deck, image.lang, image.contract)


def hand_buttons(model: HandModel) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if model.back is not None:
        view.add_item(HandButton.back(model.table_id, model.back))
    for move in model.moves:
        assert model.version is not None
        view.add_item(
            GameActionButton.of_action(
                model.table_id,
                model.version,
                move.action,
                move.label,
                discord.ButtonStyle[move.style],
                disabled=move.disabled,
                emoji=move.emoji,
                row=move.row,
            )
        )
    if model.hint is not None and model.version is not None:
        view.add_item(CoachButton.hint(model.table_id, model.version, model.hint))
    return view


# --- results -----------------------------------------------------------------------------------------------


async def result_payload(
    table: TableSnapshot,
    lang: str,
    deal: engine.DealState,
    bummerl: Any,
    tally: tuple[int, int] | None,
    rating_changes: list[dict[str, Any]] | None = None,
    *,
    review: bool = False,
) -> Payload:
    """A deal's result; ``review``: with the "Show the deal" button (the guild allows deal review)."""
    result = deal.result
    assert result is not None and deal.contract is not None and deal.declarer is not None
    winners = team_names(table, result.winner)
    reason = result_line(table, lang, deal)
    embed = discord.Embed(
        title=t(lang, "result.title", team=winners, count=result.game_points),
        description=f"{reason}\n{t(lang, 'result.reason', reason=why_text(table, lang, deal))}",
        colour=0xF9A825,
    )
    if result.multiplier > 1:
        embed.add_field(
            name=t(lang, "result.multiplier"), value=f"{result.base} × {result.multiplier}", inline=True
        )
    score = bummerl.score if bummerl is not None else table.match.score
    embed.add_field(
        name=t(lang, "table.score"),
        value=t(lang, "result.score", a=team_names(table, 0), b=team_names(table, 1), x=score[0], y=score[1]),
        inline=False,
    )
    if bummerl is not None:
        embed.add_field(
            name=t(lang, "result.bummerl_title"),
            value=t(
                lang,
                f"result.bummerl.{bummerl.kind}",
                team=team_names(table, bummerl.winner),
                loser=team_names(table, 1 - bummerl.winner),
                count=bummerl.count,
            ),
            inline=False,
        )
        if tally is not None:
            add_tally_field(embed, table, lang, bummerl.winner, tally)
        if rating_changes:
            embed.add_field(
                name=t(lang, "result.rating_title"), value=rating_changes_text(lang, rating_changes), inline=False
            )
    lost = [sum(b.count for b in table.match.bummerls if b.winner != team) for team in (0, 1)]
    scene = render.ResultScene(
        seat_names=tuple(seat_name(table, s) for s in range(4)),  # type: ignore[arg-type]
        winner_team=result.winner,
        game_points=result.game_points,
        score=score,
        target=table.rules.target,
        bummerls=(lost[0], lost[1]),
        contract_label=contract_name(lang, deal.contract),
        multiplier=result.multiplier,
        detail=t(lang, f"result.kind.{bummerl.kind}") if bummerl is not None else None,
        card_points=deal.team_cards if table.rules.show_all_tricks else None,
        trump=deal.trump if deal.contract in engine.contracts.TRUMP_CONTRACTS else None,
        deck=table.deck,
        lang=lang,
    )
    png = await rendered(render.render_result, scene)
    embed.set_image(url="attachment://result.png")
    payload = Payload([embed], {"result.png": png}, {"result.png": render.result_alt_text(scene)})
    payload.view = discord.ui.View(timeout=None)
    if review:
        payload.view.add_item(DealReviewButton(table.id, table.deal_no, t(lang, "button.show_deal")))
    payload.view.add_item(review_button(table, lang))
    if (replay := await replay_link(table.guild_id, table.id, table.deal_no, lang)) is not None:
        payload.view.add_item(replay)  # the deal on the web, step by step (docs/web.md)
    return payload


def review_button(table: TableSnapshot, lang: str) -> discord.ui.Item[Any]:
    """ "Review my play" for the deal that just ended (``table`` as it stood then)."""
    return CoachButton.review(table.id, table.deal_no, t(lang, "button.review"))
