"""The rating update (bot/game/ratings.py) and what the service stores and shows of it: partners share their
team's result, AI seats are rated as the identity of their strength, results order players without draws,
a Bummerl is rated only with enough people, and the rating board asks for a minimum of rated Bummerl."""

from __future__ import annotations

import random

import pytest

import engine
from bot.db import (
    AI_IDENTITIES,
    RATING_MIN_GAMES,
    BummerlRow,
    Database,
    Player,
    PlayerRating,
)
from bot.game import ratings
from bot.game.service import TableService
from bot.vocabulary import AiStrength
from tests.bot.game.test_service import (
    ALICE,
    BOB,
    CARL,
    DORA,
    GUILD,
    act_once,
    four_at_play,
    open_lobby,
    play_deal,
    stored_actions,
)

A, B, C, D = Player(1, "a"), Player(2, "b"), Player(3, "c"), Player(4, "d")
AI = Player(None, "Sepp")


def bummerl(
    winners: tuple[Player, Player], losers: tuple[Player, Player], strength: AiStrength = "pimc"
) -> BummerlRow:
    return BummerlRow(GUILD, 1, winners, losers, "bummerl", 1, 24, 10, 0, ai_strength=strength)


def fresh(*ids: int) -> dict[int, PlayerRating]:
    return {i: PlayerRating(i) for i in ids}


def test_partners_share_their_team_result_and_each_gets_one_more_game() -> None:
    changes = {c.player_id: c for c in ratings.changes_of(bummerl((A, B), (C, D)), fresh(1, 2, 3, 4))}
    assert set(changes) == {1, 2, 3, 4}
    assert changes[1].after == PlayerRating(1, changes[2].after.mu, changes[2].after.sigma, 1)
    assert changes[3].after.mu == changes[4].after.mu
    assert changes[1].after.mu > 25 > changes[3].after.mu
    assert all(c.after.sigma < c.before.sigma and c.after.games == 1 for c in changes.values())
    assert changes[1].delta > 0


def test_a_weaker_partner_gains_more_from_the_same_win() -> None:
    start = fresh(1, 3, 4) | {2: PlayerRating(2, mu=30.0, sigma=3.0, games=20)}
    changes = {c.player_id: c for c in ratings.changes_of(bummerl((A, B), (C, D)), start)}
    assert changes[1].after.mu - 25 > changes[2].after.mu - 30 > 0


def test_ai_seats_are_rated_as_the_identity_of_the_strength_they_played() -> None:
    row = bummerl((A, AI), (C, D), strength="greedy")
    assert ratings.teams_of(row) == ((1, AI_IDENTITIES["greedy"]), (3, 4))
    assert ratings.ai_strength_of(AI_IDENTITIES["greedy"]) == "greedy" and ratings.ai_strength_of(1) is None
    assert AI_IDENTITIES["pimc"] != AI_IDENTITIES["greedy"] and all(i < 0 for i in AI_IDENTITIES.values())
    changes = ratings.changes_of(row, fresh(1, 3, 4, AI_IDENTITIES["greedy"]))
    assert {c.player_id for c in changes} == {1, 3, 4, AI_IDENTITIES["greedy"]}


def test_an_ai_identity_on_both_teams_is_not_updated_and_two_ai_partners_are_updated_once() -> None:
    pimc = AI_IDENTITIES["pimc"]
    changes = ratings.changes_of(bummerl((A, AI), (C, AI)), fresh(1, 3, pimc))
    assert {c.player_id for c in changes} == {1, 3}
    assert changes[0].after.mu > 25 > changes[1].after.mu
    changes = ratings.changes_of(bummerl((A, B), (AI, AI)), fresh(1, 2, pimc))
    assert [c.player_id for c in changes].count(pimc) == 1
    assert next(c for c in changes if c.player_id == pimc).after.games == 1


def test_results_order_players_by_how_often_they_win_without_ties() -> None:
    """Eight players of known strength in random foursomes: who wins more is rated higher."""
    rng = random.Random(5)
    strength = {i: i for i in range(1, 9)}
    current = fresh(*strength)
    for _ in range(400):
        seated = [Player(i, str(i)) for i in rng.sample(sorted(strength), 4)]
        teams = ((seated[0], seated[2]), (seated[1], seated[3]))
        power = [sum(strength[p.user_id or 0] for p in team) for team in teams]
        first_wins = rng.random() < power[0] / sum(power)
        winners, losers = (teams[0], teams[1]) if first_wins else (teams[1], teams[0])
        for change in ratings.changes_of(bummerl(winners, losers), current):
            current[change.player_id] = change.after
    order = sorted(current, key=lambda i: current[i].shown)
    assert len({r.shown for r in current.values()}) == len(current)  # no two players share a rating
    assert order[:2] == sorted(order[:2]) and set(order[:3]) <= {1, 2, 3, 4}
    assert set(order[-3:]) <= {5, 6, 7, 8}


@pytest.mark.parametrize(("people", "minimum", "rated"), [(1, 2, False), (2, 2, True), (3, 4, False), (4, 4, True)])
def test_a_bummerl_is_rated_only_with_at_least_the_guilds_number_of_people(
    people: int, minimum: int, rated: bool
) -> None:
    seats = [A, B, C, D][:people] + [AI] * (4 - people)
    row = bummerl((seats[0], seats[2]), (seats[1], seats[3]))
    assert ratings.people_in(row) == people
    assert ratings.is_rated(row, minimum) is rated


# --- the service ---------------------------------------------------------------------------------------


async def play_bummerl(service: TableService, table_id: int) -> dict:
    """Play the table's Bummerl to its end; the payload of its last result message."""
    table = service.get(table_id)
    while table.status == "playing":
        table = (await play_deal(service, table)).table
    entries = [e for e in await service.outbox.pending_announcements(table_id) if e.kind == "result"]
    return entries[-1].payload


async def test_a_finished_bummerl_rates_every_seat_and_its_result_shows_each_persons_change(
    service: TableService, db: Database
) -> None:
    table = await four_at_play(service)
    payload = await play_bummerl(service, table.id)
    assert [change["name"] for change in payload["ratings"]] == ["alice", "bob", "carl", "dora"]
    stored = await db.ratings.get_ratings(GUILD, [ALICE, BOB, CARL, DORA])
    for change in payload["ratings"]:
        user = {"alice": ALICE, "bob": BOB, "carl": CARL, "dora": DORA}[change["name"]]
        assert change["shown"] == stored[user].shown and stored[user].games == 1
        assert change["delta"] == stored[user].shown - PlayerRating(user).shown
    winners = [c["delta"] for c in payload["ratings"][0::2]], [c["delta"] for c in payload["ratings"][1::2]]
    assert winners[0][0] == winners[0][1] and winners[1][0] == winners[1][1]  # partners move together


async def test_a_rating_write_that_fails_leaves_the_bummerls_last_action_unstored_and_it_goes_through_again(
    service: TableService, db: Database, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = await four_at_play(service)
    while True:  # up to the last action of the Bummerl's last deal
        assert table.deal is not None and table.deal.to_act is not None
        after, _ = engine.apply(table.deal, table.deal.to_act, engine.legal_actions(table.deal)[0])
        if after.result is not None and engine.score_deal(table.match, after.result)[1] is not None:
            break
        table = (await act_once(service, table)).table
    actions = await stored_actions(db, table.id)

    async def full_disk(*args: object) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(db.ratings, "store_rating_changes", full_disk)
    with pytest.raises(OSError):
        await act_once(service, table)
    assert await stored_actions(db, table.id) == actions
    assert await db.ratings.all_ratings() == [] and service.snapshot(table.id) == table
    pending = await service.outbox.pending_announcements(table.id)
    assert all(e.payload["deal_no"] < table.deal_no for e in pending if e.kind == "result")
    monkeypatch.undo()
    outcome = await act_once(service, table)
    assert outcome.bummerl is not None and outcome.table.status == "finished"
    assert {rating.player_id for _, rating in await db.ratings.all_ratings()} == {ALICE, BOB, CARL, DORA}


async def test_a_table_with_fewer_people_than_the_guild_asks_for_is_not_rated(
    service: TableService, db: Database
) -> None:
    await service.guilds.update_guild_settings(GUILD, rated_min_people=3)
    lobby = await open_lobby(service)
    lobby = await service.take_seat(lobby.id, BOB, "bob", 2)
    table = await service.start(lobby.id, ALICE)  # alice and bob (partners) against two AI seats
    payload = await play_bummerl(service, table.id)
    assert payload["ratings"] == []
    assert await db.ratings.all_ratings() == []

    await service.guilds.update_guild_settings(GUILD, rated_min_people=2)
    await service.rematch(table.id, ALICE)
    payload = await play_bummerl(service, table.id)
    assert {c["name"] for c in payload["ratings"]} == {"alice", "bob"}
    rated = {rating.player_id: rating.games for _, rating in await db.ratings.all_ratings()}
    assert rated == {ALICE: 1, BOB: 1, AI_IDENTITIES["pimc"]: 1}  # both AI seats: one identity, once


async def test_the_rating_board_needs_its_minimum_of_rated_bummerl_and_is_the_default_once_reached(
    service: TableService,
) -> None:
    table = await four_at_play(service)
    for played in range(1, RATING_MIN_GAMES + 1):
        await play_bummerl(service, table.id)
        board = await service.queries.leaderboard(GUILD, "rating", RATING_MIN_GAMES, 0, 10)
        if played < RATING_MIN_GAMES:
            assert board.entries == () and board.total == 0
            assert await service.queries.default_leaderboard_sort(GUILD) == "bummerl"
            await service.rematch(table.id, ALICE)
    assert await service.queries.default_leaderboard_sort(GUILD) == "rating"
    board = await service.queries.leaderboard(GUILD, "rating", RATING_MIN_GAMES, 0, 10)
    assert {e.stats.user_id for e in board.entries} == {ALICE, BOB, CARL, DORA}
    shown = [e.rating.shown for e in board.entries if e.rating is not None]
    assert shown == sorted(shown, reverse=True) and board.entries[0].rank == 1
    rating = (await service.profiles.player_profile(GUILD, ALICE)).rating
    assert rating is not None and len(rating.history) == RATING_MIN_GAMES
    assert rating.history[-1] == rating.shown and rating.rank is not None
    entry = await service.queries.rank_of(GUILD, ALICE, "rating", RATING_MIN_GAMES)
    assert entry is not None and entry.rank == rating.rank and entry.rating is not None
    assert (entry.rating.shown, entry.rating.uncertainty) == (rating.shown, rating.uncertainty)


async def test_a_player_never_rated_has_no_rating_on_the_profile(service: TableService) -> None:
    profile = await service.profiles.player_profile(GUILD, 999)
    assert profile.rating is None and profile.rank is None