"""What people see: the table message, the private hand (DM or ephemeral), results. Built from the engine's
views only, so nothing hidden can leak into a message. Images are rendered off the event loop."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import discord

import engine
from bot import render
from bot.game.table import TableSnapshot
from bot.i18n import t
from engine import Contract, PlayerView

from .ids import ButtonId, action_id

SUIT_EMOJI = {
    "french": {"H": "♥️", "D": "♦️", "C": "♣️", "S": "♠️"},
    "doppeldeutsch": {"H": "❤️", "D": "🔔", "C": "🌰", "S": "🍃"},
}
# Rendering runs off the event loop in a small pool of its own: bounded concurrency, and few threads means
# few malloc arenas (each thread that allocates gets one, which inflated memory with the default executor).
RENDER_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="render")


async def rendered(function: Callable[..., bytes], *args: Any) -> bytes:
    return await asyncio.get_running_loop().run_in_executor(RENDER_POOL, function, *args)


@lru_cache(maxsize=1024)
def _hand_png(
    cards: tuple[str, ...], playable: tuple[str, ...] | None, trump: str | None, deck: str, lang: str
) -> bytes:
    """A hand changes only for the player who acted: the other three DMs reuse their image."""
    return render.render_hand(cards, playable, trump, deck, lang)


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
                description=self.alt.get(name)[:1000] if self.alt.get(name) else None,
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


# --- names ---------------------------------------------------------------------------------------------


def contract_name(lang: str, contract: Contract | str) -> str:
    return t(lang, f"contract.{contract.id if isinstance(contract, Contract) else contract}")


def suit_label(table: TableSnapshot, lang: str, suit: str) -> str:
    return render.suit_name(suit, table.row.deck, lang)


def seat_name(table: TableSnapshot, seat: int) -> str:
    occupant = table.seats[seat]
    if occupant is None:
        return "—"
    return occupant.display_name + (" 🤖" if occupant.user_id is None else "")


def team_names(table: TableSnapshot, team: int) -> str:
    return f"{seat_name(table, team)} & {seat_name(table, team + 2)}"


def log_line(table: TableSnapshot, lang: str, key: str, values: dict[str, object]) -> str:
    shown: dict[str, object] = dict(values)
    if isinstance(values.get("seat"), int):
        shown["name"] = seat_name(table, values["seat"])  # type: ignore[arg-type]
    if isinstance(values.get("dealer"), int):
        shown["name"] = seat_name(table, values["dealer"])  # type: ignore[arg-type]
    if values.get("suit"):
        shown["suit"] = suit_label(table, lang, str(values["suit"]))
    if values.get("card"):
        shown["card"] = render.card_name(str(values["card"]), table.row.deck, lang)
    if values.get("contract"):
        shown["contract"] = contract_name(lang, str(values["contract"]))
    if values.get("word"):
        shown["word"] = t(lang, f"double.{values['word']}")
    if isinstance(values.get("team"), int):
        shown["team"] = team_names(table, values["team"])  # type: ignore[arg-type]
    return t(lang, key, **shown)


def action_label(table: TableSnapshot, lang: str, action: engine.Action) -> str:
    deck = table.row.deck
    match action:
        case engine.ChooseTrump(suit):
            return suit_label(table, lang, suit)
        case engine.Aufschlagen():
            return t(lang, "button.aufschlagen")
        case engine.Bid(contract):
            return contract_name(lang, contract)
        case engine.Pass():
            return t(lang, "button.pass")
        case engine.Double(word):
            return t(lang, f"double.{word}")
        case engine.PlayCard(card, None):
            return render.card_name(card, deck, lang)
        case engine.PlayCard(card, value):
            return t(lang, "button.marriage", card=render.card_name(card, deck, lang), value=value)
    raise TypeError(action)


def action_emoji(table: TableSnapshot, action: engine.Action) -> str | None:
    emoji = SUIT_EMOJI[table.row.deck]
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
    text = t(
        lang,
        "table.contract_by",
        contract=contract_name(lang, view.contract),
        name=seat_name(table, view.declarer),
    )  # type: ignore[arg-type]
    if view.multiplier > 1:
        text += f" ×{view.multiplier}"
    if view.sitting_out is not None:
        text += "\n" + t(lang, "table.sits_out", name=seat_name(table, view.sitting_out))
    return text


def trump_text(table: TableSnapshot, lang: str, view: PlayerView) -> str:
    if view.trump is None:
        return t(lang, "table.no_trump_yet")
    text = f"{SUIT_EMOJI[table.row.deck][view.trump]} {suit_label(table, lang, view.trump)}"
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
            lang, "table.aufschlag", card=render.card_name(view.aufschlag_card, table.row.deck, lang)
        )
    return text


def score_text(table: TableSnapshot, lang: str) -> str:
    shown = engine.displayed_score(table.rules, table.match.score)
    key = "table.score_down" if table.rules.score_display == "count_down" else "table.score_up"
    lines = [t(lang, key, team=team_names(table, team), points=shown[team]) for team in (0, 1)]
    lost = [sum(b.count for b in table.match.bummerls if b.winner != team) for team in (0, 1)]
    if any(lost):
        lines.append(t(lang, "table.bummerl_lost", a=lost[0], b=lost[1]))
    return "\n".join(lines)


def tricks_text(table: TableSnapshot, lang: str, view: PlayerView) -> str:
    text = t(lang, "table.tricks", a=view.team_tricks[0], b=view.team_tricks[1])
    if view.team_points is not None:
        text += "\n" + t(lang, "table.card_points", a=view.team_points[0], b=view.team_points[1])
    return text


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
    payload = Payload([embed])
    if table.status == "lobby":
        for seat in range(4):
            embed.add_field(
                name=t(lang, f"seat.{seat}"),
                value=seat_name(table, seat) if table.seats[seat] else t(lang, "seat.empty"),
                inline=True,
            )
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
    payload.view = table_view(table, lang)
    if scene is not None:
        payload.images["table.png"] = await rendered(render.render_table, scene)
        payload.alt["table.png"] = render.table_alt_text(scene)
    return payload


def _button(
    label: str,
    custom_id: ButtonId,
    style: discord.ButtonStyle = discord.ButtonStyle.secondary,
    *,
    disabled: bool = False,
    emoji: str | None = None,
    row: int | None = None,
) -> discord.ui.Button[Any]:
    return discord.ui.Button(
        label=label[:80], custom_id=str(custom_id), style=style, disabled=disabled, emoji=emoji, row=row
    )


def lobby_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    for seat in range(4):
        occupant = table.seats[seat]
        taken = occupant is not None and occupant.user_id is not None
        view.add_item(
            _button(
                t(lang, "button.sit", seat=t(lang, f"seat.{seat}")),
                ButtonId(table.id, 0, "sit", str(seat)),
                discord.ButtonStyle.primary,
                disabled=taken,
                row=0,
            )
        )
    view.add_item(_button(t(lang, "button.add_ai"), ButtonId(table.id, 0, "ai"), row=1))
    view.add_item(
        _button(t(lang, "button.leave"), ButtonId(table.id, 0, "leave"), discord.ButtonStyle.danger, row=1)
    )
    view.add_item(
        _button(t(lang, "button.start"), ButtonId(table.id, 0, "start"), discord.ButtonStyle.success, row=1)
    )
    return view


def table_view(table: TableSnapshot, lang: str) -> discord.ui.View:
    view = discord.ui.View(timeout=None)
    if table.status == "playing":
        view.add_item(
            _button(t(lang, "button.my_hand"), ButtonId(table.id, 0, "hand"), discord.ButtonStyle.primary)
        )
    elif table.status == "finished":
        view.add_item(
            _button(
                t(lang, "button.rematch"), ButtonId(table.id, table.version, "rematch"), discord.ButtonStyle.success
            )
        )
        view.add_item(
            _button(t(lang, "button.close"), ButtonId(table.id, table.version, "close"), discord.ButtonStyle.danger)
        )
    return view


# --- a player's hand (DM or ephemeral) -----------------------------------------------------------------------


async def hand_payload(
    table: TableSnapshot, seat: int, lang: str, where: str, deal: engine.DealState | None = None
) -> Payload:
    """The seat's private message: their hand as an image, the trick and the contract as text, and their
    buttons when it is their turn. ``deal`` defaults to the running deal (a finished one for its last word)."""
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
    trick_field = trick_text(table, lang, view, my_turn)
    if trick_field:
        embed.add_field(name=trick_field[0], value=trick_field[1], inline=False)
    playable = None
    if my_turn and deal.phase == engine.PLAY:
        playable = tuple(a.card for a in view.legal if isinstance(a, engine.PlayCard))
    trump = view.trump if view.contract is None or view.contract in engine.contracts.TRUMP_CONTRACTS else None
    # The buttons carry the version of the position they were made for: build them before the render
    # awaits, or an action meanwhile would stamp the old position's buttons with the new version.
    buttons = hand_view(table, seat, lang, view, my_turn)
    hand_png = await rendered(_hand_png, tuple(view.hand), playable, trump, table.row.deck, lang)
    payload.images = {"hand.png": hand_png}
    payload.alt = {"hand.png": render.hand_alt_text(view.hand, playable, trump, table.row.deck, lang)}
    embed.set_image(url="attachment://hand.png")
    payload.view = buttons
    return payload


def hand_signature(table: TableSnapshot, seat: int) -> tuple[object, ...]:
    """Everything a seat's DM shows, so that it is edited only when one of these changed: every edit of
    every DM on every click would cost four requests a click and run into Discord's global rate limit."""
    deal, occupant = table.deal, table.seats[seat]
    if deal is None or occupant is None:
        return ()
    my_turn = deal.to_act == seat and not occupant.ai_takeover
    return (
        table.version if my_turn else None,  # the buttons carry the version
        deal.phase,
        my_turn,
        deal.hands[seat],
        deal.trick if my_turn else None,
        len(deal.tricks),
        deal.trump,
        deal.aufschlag_card,
        deal.contract,
        deal.multiplier,
        occupant.ai_takeover,
        occupant.display_name,
    )


def trick_text(table: TableSnapshot, lang: str, view: PlayerView, my_turn: bool) -> tuple[str, str] | None:
    """The trick in words: the one to play to on your turn, else the last one completed. The table message
    shows every card live; a DM changes only when something of its owner's changes (see ``hand_signature``)."""
    if view.trick and my_turn:
        title, plays = t(lang, "hand.trick"), view.trick
    elif view.last_trick is not None and view.last_trick.plays is not None:
        title = t(lang, "hand.last_trick", name=seat_name(table, view.last_trick.winner))
        plays = view.last_trick.plays
    else:
        return None
    emoji = SUIT_EMOJI[table.row.deck]
    lines = [
        f"{seat_name(table, who)}: {emoji[card[0]]} {render.card_name(card, table.row.deck, lang)}"
        for who, card in plays
    ]
    return title, "\n".join(lines)


def hand_view(
    table: TableSnapshot, seat: int, lang: str, view: PlayerView, my_turn: bool
) -> discord.ui.View | None:
    buttons = discord.ui.View(timeout=None)
    occupant = table.seats[seat]
    if occupant is not None and occupant.ai_takeover:
        buttons.add_item(
            _button(t(lang, "button.back"), ButtonId(table.id, 0, "back"), discord.ButtonStyle.success)
        )
        return buttons
    if not my_turn:
        return buttons
    if view.phase == engine.PLAY:
        # Every card is shown; the illegal ones disabled, so a player sees why nothing else is allowed.
        legal = set(view.legal)
        for card in view.hand:
            action = engine.PlayCard(card)
            buttons.add_item(
                _button(
                    action_label(table, lang, action),
                    action_id(table.id, table.version, action),
                    discord.ButtonStyle.primary,
                    disabled=action not in legal,
                    emoji=action_emoji(table, action),
                    row=0,
                )
            )
        for action in view.legal:
            if isinstance(action, engine.PlayCard) and action.marriage:
                buttons.add_item(
                    _button(
                        action_label(table, lang, action),
                        action_id(table.id, table.version, action),
                        discord.ButtonStyle.success,
                        emoji=action_emoji(table, action),
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
            _button(
                action_label(table, lang, action),
                action_id(table.id, table.version, action),
                style,
                emoji=action_emoji(table, action),
                row=index // 5,
            )
        )
    return buttons


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
    # An announcement that ends the deal leaves its card unplayed: the marriage belongs to the next trick.
    claim = deal.marriages[-1] if deal.marriages and deal.marriages[-1].trick_no == trick_no + 1 else None
    if contract in contracts.IMMEDIATE_CONTRACTS:
        return t(lang, "result.why.at_once")
    if claim is not None:
        points = deal.team_cards[claim.seat & 1] + claim.value
        if contract is Contract.NORMAL:
            return t(
                lang, "result.why.marriage", team=team, points=deal.total(result.winner), value=claim.value
            )
        key = "result.why.claim_made" if result.made else "result.why.claim_short"
        return t(lang, key, points=points, value=claim.value)
    if contract is Contract.NORMAL:
        if deal.total(result.winner) >= 66:
            return t(lang, "result.why.reached", team=team, points=deal.total(result.winner), trick=trick_no)
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


async def result_payload(
    table: TableSnapshot, lang: str, deal: engine.DealState, bummerl: Any, tally: tuple[int, int] | None
) -> Payload:
    result = deal.result
    assert result is not None and deal.contract is not None and deal.declarer is not None
    winners = team_names(table, result.winner)
    reason = t(
        lang,
        "result.made" if result.made else "result.failed",
        contract=contract_name(lang, deal.contract),
        name=seat_name(table, deal.declarer),
    )
    embed = discord.Embed(
        title=t(lang, "result.title", team=winners, points=result.game_points),
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
    return Payload([embed], {"result.png": png}, {"result.png": render.result_alt_text(scene)})
