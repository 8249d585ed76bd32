"""What people see, as Discord messages: the table message, the private hand (DM or ephemeral), results and
leaderboard pages; embeds made of the texts of ``texts.py``, views made of the buttons of ``components.py``,
and the images, rendered off the event loop."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import discord

import engine
from bot import render
from bot.db import RATING_MIN_GAMES, LeaderboardEntry, Tally
from bot.game.coach import Hint, ReviewSubject
from bot.game.profile import PlayerProfile
from bot.game.table import TableSnapshot
from bot.i18n import t
from bot.vocabulary import LEADERBOARD_SORTS, HandOrder, LeaderboardSort
from engine import PlayerView
from engine.ai.analysis import Judged

from . import components  # its buttons answer with these payloads: both import the module, not names
from .ids import ButtonId, action_id
from .ruletexts import changed_rules_text
from .texts import (
    action_emoji,
    action_label,
    board_name,
    contract_name,
    contract_text,
    hint_lines,
    log_line,
    pair_label,
    profile_fields,
    profile_scene,
    rating_changes_text,
    result_line,
    review_lines,
    score_text,
    seat_name,
    status_line,
    team_names,
    trick_text,
    tricks_text,
    trump_text,
    why_text,
)

if TYPE_CHECKING:
    from bot.client import SchnapsenBot

    Interaction = discord.Interaction[SchnapsenBot]

log = logging.getLogger(__name__)

# Rendering runs off the event loop in a small pool of its own: bounded concurrency, and few threads means
# few malloc arenas (each thread that allocates gets one, which inflated memory with the default executor).
RENDER_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="render")


async def rendered(function: Callable[..., bytes], *args: Any) -> bytes:
    return await asyncio.get_running_loop().run_in_executor(RENDER_POOL, function, *args)


@lru_cache(maxsize=1024)
def _hand_png(
    cards: tuple[str, ...],
    playable: tuple[str, ...] | None,
    trump: str | None,
    deck: str,
    lang: str,
    contract: str | None = None,
) -> bytes:
    """A hand changes only for the player who acted: the other three DMs reuse their image. ``contract``: its
    name, so that the image tells "no trump in this contract" from "trump not chosen yet"."""
    return render.render_hand(cards, playable, trump, deck, lang, contract)


@lru_cache(maxsize=1024)
def _turn_png(scene: render.TurnScene) -> bytes:
    """A position's turn image, drawn once: a retried or repeated edit of the same position reuses it."""
    return render.render_turn(scene)


@lru_cache(maxsize=128)  # a table picture is about 30 KB (at most 150): a few MB
def _table_png(scene: render.TableScene) -> bytes:
    """A table's picture, drawn once per position: the table message shown again for a change the picture
    does not show (a log line, a retried edit) reuses it."""
    return render.render_table(scene)


COLOUR_OF_PHASE = {"lobby": 0x2E7D32, "playing": 0x1565C0, "finished": 0xF9A825, "closed": 0x616161}


@dataclass
class Payload:
    """Message content plus PNGs; ``discord.File`` objects are made fresh for every send (they are consumed)."""

    embeds: list[discord.Embed]
    images: dict[str, bytes] = field(default_factory=dict)  # filename -> PNG
    alt: dict[str, str] = field(default_factory=dict)  # filename -> alt text
    view: discord.ui.View | None = None
    content: str | None = None

    def files(self) -> list[discord.File]:
        return [
            discord.File(
                io.BytesIO(png),
                filename=name,
                description=(self.alt.get(name) or "")[:1000] or None,
            )
            for name, png in self.images.items()
        ]

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"embeds": self.embeds, "files": self.files()}
        if self.view is not None:
            kwargs["view"] = self.view
        if self.content is not None:
            kwargs["content"] = self.content
        return kwargs

    def edit_kwargs(self, *, keep_attachments: bool = False) -> dict[str, Any]:
        """``keep_attachments``: the images are unchanged, so the message keeps the ones it has (no upload)."""
        kwargs: dict[str, Any] = {"content": self.content, "embeds": self.embeds, "view": self.view}
        if not keep_attachments:
            kwargs["attachments"] = self.files()
        return kwargs


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
        deck=table.row.deck,
        lang=lang,
    )


# --- the table message -------------------------------------------------------------------------------------


async def table_payload(table: TableSnapshot, lang: str) -> Payload:
    embed = discord.Embed(
        title=t(lang, "table.title", id=table.id),
        description=status_line(table, lang),
        colour=COLOUR_OF_PHASE.get(table.status, 0x1565C0),
    )
    if table.row.practice:
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
                deck=t(lang, f"deck.{table.row.deck}"),
                seconds=table.row.turn_seconds,
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


def add_rules_field(embed: discord.Embed, rules: engine.Ruleset, lang: str) -> None:
    """The settings a table changed from its preset, for everyone to see before and during play."""
    changed = changed_rules_text(rules, lang)
    if changed is not None:
        preset = t(lang, f"command.choice.{rules.preset}")
        embed.add_field(name=t(lang, "ruleset.field", preset=preset), value=changed[:1024], inline=False)


def lobby_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for seat in range(4):
        occupant = table.seats[seat]
        taken = occupant is not None and occupant.user_id is not None
        sit = t(lang, "button.sit", seat=t(lang, f"seat.{seat}"))
        view.add_item(
            components.SeatButton(
                ButtonId(table.id, 0, "sit", str(seat)),
                sit,
                discord.ButtonStyle.primary,
                disabled=taken,
                row=0,
            )
        )
    view.add_item(components.SeatButton(ButtonId(table.id, 0, "ai"), t(lang, "button.add_ai"), row=1))
    leave, start = ButtonId(table.id, 0, "leave"), ButtonId(table.id, 0, "start")
    view.add_item(components.SeatButton(leave, t(lang, "button.leave"), discord.ButtonStyle.danger, row=1))
    view.add_item(components.SeatButton(start, t(lang, "button.start"), discord.ButtonStyle.success, row=1))
    view.add_item(practice_toggle(table, lang))
    return view


def practice_toggle(table: TableSnapshot, lang: str) -> discord.ui.Item[Any]:
    """The host's lobby switch between a practice table (hints; no statistic or rating) and a normal one."""
    practice = table.row.practice
    toggle = ButtonId(table.id, 0, "practice", "0" if practice else "1")
    label = t(lang, "button.practice_on" if practice else "button.practice_off")
    style = discord.ButtonStyle.success if practice else discord.ButtonStyle.secondary
    return components.SeatButton(toggle, label, style, row=2)


def table_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if table.status == "playing":
        my_hand = ButtonId(table.id, 0, "hand")
        view.add_item(components.HandButton(my_hand, t(lang, "button.my_hand"), discord.ButtonStyle.primary))
    elif table.status == "finished":
        rematch, close = (
            ButtonId(table.id, table.version, "rematch"),
            ButtonId(table.id, table.version, "close"),
        )
        view.add_item(components.HostButton(rematch, t(lang, "button.rematch"), discord.ButtonStyle.success))
        view.add_item(components.HostButton(close, t(lang, "button.close"), discord.ButtonStyle.danger))
    return view


def turn_notice_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    """The button of a turn notice: the hand of whoever presses it, ephemerally ("My hand" by another name)."""
    view = discord.ui.View(timeout=None)
    show = ButtonId(table.id, 0, "hand")
    view.add_item(components.HandButton(show, t(lang, "button.show_hand"), discord.ButtonStyle.primary))
    return view


def stop_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    """The confirmation of ``/schnapsen stop``, shown only to who asked."""
    view = discord.ui.View(timeout=None)
    stop = ButtonId(table.id, 0, "stop")
    view.add_item(components.HostButton(stop, t(lang, "button.confirm_stop"), discord.ButtonStyle.danger))
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
    """The seat's private message: their hand as an image, the trick and the contract as text, and their
    buttons when it is their turn. ``deal`` defaults to the running deal (a finished one for its last word).
    On a card play of theirs the image shows the cards on the table above the hand (one screen is enough);
    ``order`` is the player's choice of how their cards are arranged, in the image and the buttons alike."""
    deal = deal or table.deal
    occupant = table.seats[seat]
    embed = discord.Embed(title=t(lang, "hand.title", id=table.id, where=where), colour=0x6A1B9A)
    payload = Payload([embed])
    if deal is None or occupant is None:
        embed.description = t(lang, "hand.no_deal")
        return payload
    view = engine.view_for(deal, seat)
    my_turn = view.to_act == seat and not occupant.ai_takeover
    if deal.finished:
        embed.description = t(lang, "hand.deal_over")
    elif my_turn:
        embed.description = t(lang, f"hand.prompt.{deal.phase}")
    else:
        embed.description = t(lang, "hand.waiting")
    if occupant.ai_takeover:
        embed.description += "\n" + t(lang, "hand.taken_over")
    embed.add_field(name=t(lang, "table.trump"), value=trump_text(table, lang, view), inline=True)
    embed.add_field(name=t(lang, "table.contract"), value=contract_text(table, lang, view), inline=True)
    embed.add_field(name=t(lang, "table.score"), value=score_text(table, lang), inline=True)
    trick_field = trick_text(table, lang, view, my_turn)
    if trick_field:
        embed.add_field(name=trick_field[0], value=trick_field[1], inline=False)
    playable = None
    if my_turn and deal.phase == engine.PLAY:
        playable = tuple(a.card for a in view.legal if isinstance(a, engine.PlayCard))
    trump = view.trump if view.contract is None or view.contract in engine.contracts.TRUMP_CONTRACTS else None
    cards = engine.display_order(view.hand, view.trump, view.contract) if order == "sorted" else view.hand
    # The buttons carry the version of the position they were made for: build them before the render
    # awaits, or an action meanwhile would stamp the old position's buttons with the new version.
    buttons = hand_view(table, seat, lang, view, my_turn, cards)
    if my_turn and table.row.practice and buttons is not None:
        buttons.add_item(hint_button(table, lang))
    if playable is not None:
        scene = turn_scene(table, lang, view, cards, playable, trump)
        payload.images = {"hand.png": await rendered(_turn_png, scene)}
        payload.alt = {"hand.png": render.turn_alt_text(scene)}
    else:
        contract = None if view.contract is None else contract_name(lang, view.contract)
        hand_png = await rendered(_hand_png, cards, playable, trump, table.row.deck, lang, contract)
        payload.images = {"hand.png": hand_png}
        payload.alt = {"hand.png": render.hand_alt_text(cards, playable, trump, table.row.deck, lang)}
    embed.set_image(url="attachment://hand.png")
    payload.view = buttons
    return payload


def turn_scene(
    table: TableSnapshot,
    lang: str,
    view: PlayerView,
    cards: tuple[str, ...],
    playable: tuple[str, ...],
    trump: str | None,
) -> render.TurnScene:
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
    return render.TurnScene(
        cards=cards,
        playable=playable,
        places=places,
        caption=caption,
        trump=trump,
        contract_label=None if view.contract is None else contract_name(lang, view.contract),
        multiplier=view.multiplier,
        deck=table.row.deck,
        lang=lang,
    )


def hand_view(
    table: TableSnapshot,
    seat: int,
    lang: str,
    view: PlayerView,
    my_turn: bool,
    cards: tuple[str, ...] | None = None,
) -> discord.ui.View | None:
    """The seat's buttons: on their card play one per card in ``cards`` (the order the image shows; the
    order dealt if not given), illegal ones disabled, then the marriages in the same order."""
    cards = view.hand if cards is None else cards
    buttons = discord.ui.View(timeout=None)
    occupant = table.seats[seat]
    if occupant is not None and occupant.ai_takeover:
        buttons.add_item(
            components.HandButton(
                ButtonId(table.id, 0, "back"), t(lang, "button.back"), discord.ButtonStyle.success
            )
        )
        return buttons
    if not my_turn:
        return buttons
    if view.phase == engine.PLAY:
        # Every card is shown; the illegal ones disabled, so a player sees why nothing else is allowed.
        legal = set(view.legal)
        for card in cards:
            play = engine.PlayCard(card)
            buttons.add_item(
                components.GameActionButton(
                    action_id(table.id, table.version, play),
                    action_label(table, lang, play),
                    discord.ButtonStyle.primary,
                    disabled=play not in legal,
                    emoji=action_emoji(table, play),
                    row=0,
                )
            )
        marriages = [a for a in view.legal if isinstance(a, engine.PlayCard) and a.marriage]
        for marriage in sorted(marriages, key=lambda a: cards.index(a.card)):
            buttons.add_item(
                components.GameActionButton(
                    action_id(table.id, table.version, marriage),
                    action_label(table, lang, marriage),
                    discord.ButtonStyle.success,
                    emoji=action_emoji(table, marriage),
                    row=1,
                )
            )
        return buttons
    for index, action in enumerate(view.legal):
        style = (
            discord.ButtonStyle.secondary if isinstance(action, engine.Pass) else discord.ButtonStyle.primary
        )
        if isinstance(action, engine.Double):
            style = discord.ButtonStyle.danger
        buttons.add_item(
            components.GameActionButton(
                action_id(table.id, table.version, action),
                action_label(table, lang, action),
                style,
                emoji=action_emoji(table, action),
                row=index // 5,
            )
        )
    return buttons


def hint_button(table: TableSnapshot, lang: str) -> discord.ui.Item[Any]:
    """A practice table's "Hint", for the position it is shown at."""
    hint = ButtonId(table.id, table.version, "hint")
    return components.CoachButton(hint, t(lang, "button.hint"), discord.ButtonStyle.secondary, emoji="💡", row=4)


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
            embed.add_field(
                name=t(lang, "result.tally_title"),
                value=t(
                    lang,
                    "result.tally",
                    a=team_names(table, bummerl.winner),
                    b=team_names(table, 1 - bummerl.winner),
                    x=tally[0],
                    y=tally[1],
                ),
                inline=False,
            )
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
        deck=table.row.deck,
        lang=lang,
    )
    png = await rendered(render.render_result, scene)
    embed.set_image(url="attachment://result.png")
    payload = Payload([embed], {"result.png": png}, {"result.png": render.result_alt_text(scene)})
    payload.view = discord.ui.View(timeout=None)
    if review:
        payload.view.add_item(components.DealReviewButton(table.id, table.deal_no, t(lang, "button.show_deal")))
    payload.view.add_item(review_button(table, lang))
    return payload


def review_button(table: TableSnapshot, lang: str) -> discord.ui.Item[Any]:
    """ "Review my play" for the deal that just ended (``table`` as it stood then)."""
    review = ButtonId(table.id, 0, "review", str(table.deal_no))
    return components.CoachButton(review, t(lang, "button.review"), discord.ButtonStyle.secondary, emoji="🎓")


# --- the deal review ("Show the deal") ----------------------------------------------------------------------


def deal_review_scene(table: TableSnapshot, lang: str) -> render.DealReviewScene:
    """The finished deal of ``table`` (as it stood when the deal ended) as the review image shows it."""
    deal = table.deal
    assert deal is not None and deal.result is not None
    has_trumps = deal.contract is None or deal.contract in engine.contracts.TRUMP_CONTRACTS
    hands = tuple(tuple(hand) for hand in deal.dealt)
    return render.DealReviewScene(
        seat_names=tuple(seat_name(table, s) for s in range(4)),  # type: ignore[arg-type]
        hands=(hands[0], hands[1], hands[2], hands[3]),
        tricks=tuple(render.ReviewTrick(tuple(trick.plays), trick.winner) for trick in deal.tricks),
        winner_team=deal.result.winner,
        game_points=deal.result.game_points,
        contract_label=None if deal.contract is None else contract_name(lang, deal.contract),
        declarer_seat=deal.declarer,
        trump=deal.trump if has_trumps else None,
        aufschlag_card=deal.aufschlag_card,
        multiplier=deal.multiplier,
        sitting_out_seat=deal.sitting_out,
        marriages=tuple((m.seat, m.suit, m.value, m.trick_no) for m in deal.marriages),
        deck=table.row.deck,
        lang=lang,
    )


@lru_cache(maxsize=64)
def _deal_review_png(scene: render.DealReviewScene) -> bytes:
    """A finished deal never changes: its review is drawn once per table, deal and language (the scene)."""
    return render.render_deal_review(scene)


async def deal_review_payload(table: TableSnapshot, lang: str) -> Payload:
    """The answer to "Show the deal": the review image of ``table``'s finished deal, with its alt text."""
    scene = deal_review_scene(table, lang)
    embed = discord.Embed(
        title=t(lang, "review.title", id=table.id, deal=table.deal_no + 1),
        description="\n".join(render.deal_review_lines(scene))[:4096],  # who played what, as text too
        colour=0xF9A825,
    )
    embed.set_image(url="attachment://deal.png")
    png = await rendered(_deal_review_png, scene)
    return Payload([embed], {"deal.png": png}, {"deal.png": render.deal_review_alt_text(scene)})


def review_embed(subject: ReviewSubject, lang: str, decisions: list[Judged]) -> discord.Embed:
    """The answer to "Review my play": the costly decisions, biggest loss first, with the AI's values."""
    embed = discord.Embed(title=t(lang, "coach.review_title", deal=subject.deal + 1), colour=0x00897B)
    lines = review_lines(subject.deck, lang, decisions)
    if lines:
        embed.description = "\n".join([t(lang, "coach.review_intro"), *lines])[:4000]
    elif decisions:
        embed.description = t(lang, "coach.review_clean", count=len(decisions))
    else:
        embed.description = t(lang, "coach.review_nothing")
    embed.set_footer(text=t(lang, "coach.values_note"))
    return embed


def hint_embed(table: TableSnapshot, lang: str, hint: Hint) -> discord.Embed:
    """The answer to "Hint": the AI's choice and the value of every alternative."""
    embed = discord.Embed(title=t(lang, "coach.hint_title"), colour=0x00897B)
    embed.description = "\n".join(hint_lines(table.row.deck, lang, hint.best, hint.evaluations))
    embed.set_footer(text=t(lang, "coach.values_note"))
    return embed


# --- answers to commands -----------------------------------------------------------------------------------


def score_embed(
    table: TableSnapshot | None, lang: str, wins: tuple[int, int] | None, tallies: list[Tally] | None
) -> discord.Embed:
    """``/schnapsen score``: the table's Bummerl score, the tally between its two pairs (``wins``, when four
    sit there), and the caller's pair's tallies (``tallies``, when they sit there)."""
    embed = discord.Embed(title=t(lang, "score.title"), colour=0xF9A825)
    if table is not None and table.status != "lobby":
        embed.add_field(name=t(lang, "table.score"), value=score_text(table, lang), inline=False)
        if wins is not None:
            embed.add_field(
                name=t(lang, "result.tally_title"),
                value=t(
                    lang,
                    "result.tally",
                    a=team_names(table, 0),
                    b=team_names(table, 1),
                    x=wins[0],
                    y=wins[1],
                ),
                inline=False,
            )
    lines = [
        t(
            lang,
            "score.tally_line",
            pair=pair_label(tally.pair),
            opponents=pair_label(tally.opponents),
            x=tally.wins,
            y=tally.losses,
        )
        for tally in (tallies or [])[:10]
    ]
    if lines:
        embed.add_field(name=t(lang, "score.your_tallies"), value="\n".join(lines), inline=False)
    if not embed.fields:
        embed.description = t(lang, "score.nothing_yet")
    return embed


def rules_embed(rules: engine.Ruleset, lang: str) -> discord.Embed:
    """``/schnapsen rules``: the contracts with their values under ``rules``, who may bid each, and which card
    a player must play."""
    embed = discord.Embed(title=t(lang, "rules.title"), description=t(lang, "rules.intro"), colour=0x2E7D32)
    for contract in engine.Contract:
        if contract is engine.Contract.ASS_BETTLER and not rules.ass_bettler:
            continue
        embed.add_field(
            name=t(
                lang,
                "rules.contract_value",
                contract=contract_name(lang, contract),
                value=t(lang, "rules.normal_value")
                if contract is engine.Contract.NORMAL
                else rules.contract_value(contract),
            ),
            value=t(lang, f"rules.who.{contract.id}"),
            inline=False,
        )
    embed.add_field(name=t(lang, "rules.play_title"), value=t(lang, "rules.play"), inline=False)
    add_rules_field(embed, rules, lang)
    embed.set_footer(text=t(lang, "rules.footer", preset=t(lang, f"command.choice.{rules.preset}")))
    return embed


# --- the leaderboard ---------------------------------------------------------------------------------------

PAGE_SIZE = 10
MIN_GAMES_FOR_WINRATE = 3


def _min_games(sort: LeaderboardSort) -> int:
    return RATING_MIN_GAMES if sort == "rating" else MIN_GAMES_FOR_WINRATE if sort == "winrate" else 0


def leaderboard_line(lang: str, entry: LeaderboardEntry) -> str:
    stats = entry.stats
    if entry.rating is not None:
        return t(
            lang,
            "leaderboard.line_rating",
            rank=entry.rank,
            name=board_name(lang, stats.user_id, stats.display_name),
            rating=entry.rating.shown,
            uncertainty=entry.rating.uncertainty,
            games=entry.rating.games,
        )
    rate = f"{stats.win_rate:.0%}" if stats.win_rate is not None else "—"
    return t(
        lang,
        "leaderboard.line",
        rank=entry.rank,
        name=stats.display_name,
        won=stats.bummerl_won,
        lost=stats.bummerl_lost,
        rate=rate,
        count=stats.game_points,
    )


async def leaderboard_page(
    interaction: Interaction, lang: str, sort: LeaderboardSort, page: int
) -> tuple[discord.Embed, discord.ui.View]:
    """One page of the server's leaderboard, with the caller's own rank, and the buttons to turn pages."""
    service = interaction.client.service
    assert interaction.guild_id is not None
    min_games = _min_games(sort)
    board = await service.queries.leaderboard(interaction.guild_id, sort, min_games, page * PAGE_SIZE, PAGE_SIZE)
    embed = discord.Embed(
        title=t(lang, "leaderboard.title", sort=t(lang, f"leaderboard.sort.{sort}")), colour=0x1565C0
    )
    lines = [leaderboard_line(lang, entry) for entry in board.entries]
    empty = t(lang, "leaderboard.empty_rating", games=min_games) if sort == "rating" else t(lang, "leaderboard.empty")
    embed.description = "\n".join(lines) or empty
    mine = await service.queries.rank_of(interaction.guild_id, interaction.user.id, sort, min_games)
    pages = max(1, -(-board.total // PAGE_SIZE))
    footer = t(lang, "leaderboard.page", page=page + 1, pages=pages)
    footer += " · " + (
        t(lang, "leaderboard.your_rank", rank=mine.rank) if mine else t(lang, "leaderboard.unranked")
    )
    embed.set_footer(text=footer)
    view = discord.ui.View(timeout=None)
    view.add_item(components.LeaderboardButton(sort, max(page - 1, 0), "◀", disabled=page == 0))
    view.add_item(components.LeaderboardButton(sort, page + 1, "▶", disabled=page + 1 >= pages))
    for other in LEADERBOARD_SORTS:
        if other != sort:
            view.add_item(components.LeaderboardButton(other, 0, t(lang, f"leaderboard.sort.{other}")))
    return embed, view


# --- a player's profile -----------------------------------------------------------------------------------

# Seconds the profile card may take to draw (a few hundredths normally); past it the answer is the text.
PROFILE_RENDER_BUDGET = 5.0


async def profile_payload(profile: PlayerProfile, name: str, lang: str, *, attach: bool) -> Payload:
    """``/schnapsen stats``: the profile card with its alt text, or, where the bot may not attach files (or the
    card is not drawn in time), the same counts as embed fields."""
    embed = discord.Embed(title=t(lang, "stats.title", name=name), colour=0x1565C0)
    if not profile.has_games:
        embed.description = t(lang, "stats.no_games", name=name)
    if attach:
        scene = profile_scene(profile, name, lang)
        try:
            png = await asyncio.wait_for(rendered(render.render_profile, scene), PROFILE_RENDER_BUDGET)
        except TimeoutError:
            log.warning("the profile card of user %s took over %s s; answered as text", profile.user_id,
                        PROFILE_RENDER_BUDGET)  # fmt: skip
        else:
            embed.set_image(url="attachment://profile.png")
            return Payload([embed], {"profile.png": png}, {"profile.png": render.profile_alt_text(scene)})
    if profile.has_games:
        for field_name, value, inline in profile_fields(profile, lang):
            embed.add_field(name=field_name, value=value, inline=inline)
    return Payload([embed])


def record_file(table_id: int, record: engine.GameRecord) -> discord.File:
    """The table's game record as a JSON attachment (the format of ``python -m engine.replay``)."""
    data = json.dumps(record.to_json(), indent=2, ensure_ascii=False).encode()
    return discord.File(io.BytesIO(data), filename=f"schnapsen-table-{table_id}.json")
