"""Skill ratings: one openskill (Plackett-Luce) update per rated Bummerl; see docs/ratings.md for the choice.

Who is rated: every seat of a rated Bummerl as it stood at its end. A person is their user id; an AI seat is
the identity of the AI strength it played with (``AI_IDENTITIES``, reserved ids below zero), so people see
where they stand against each AI. A person the AI stood in for because they were idle still holds their seat
and is rated as themselves (going idle never dodges a loss); a person who left handed the seat to the AI for
good, and the AI is rated for it. Partners share their team's result; there are no draws.

A Bummerl is rated when at least the guild's ``rated_min_people`` people played it. An AI identity that sat on
both teams (a person and the AI against a person and the AI) won and lost the same Bummerl: it is not
updated, and counts as the opponents' and partners' strength as it stood. Two AI seats of one team are one
identity updated once.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from openskill.models import PlackettLuce

from bot.db import (
    AI_IDENTITIES,
    BummerlRow,
    Database,
    GuildSettings,
    Player,
    PlayerRating,
    RatingChange,
)
from bot.db.models import INITIAL_MU, INITIAL_SIGMA
from bot.db.ratings import REBUILD_PENDING
from bot.vocabulary import AiStrength

log = logging.getLogger(__name__)

MODEL = PlackettLuce(mu=INITIAL_MU, sigma=INITIAL_SIGMA)


def ai_strength_of(player_id: int) -> AiStrength | None:
    """The AI strength a rated identity stands for; None for a person."""
    return next((strength for strength, identity in AI_IDENTITIES.items() if identity == player_id), None)


def rated_id(player: Player, bummerl: BummerlRow) -> int:
    """The rated identity of a seat: the person's user id, or the identity of the AI strength played."""
    return AI_IDENTITIES[bummerl.ai_strength] if player.user_id is None else player.user_id


def people_in(bummerl: BummerlRow) -> int:
    return sum(player.user_id is not None for player in (*bummerl.winners, *bummerl.losers))


def is_rated(bummerl: BummerlRow, rated_min_people: int) -> bool:
    """Is the Bummerl rated under a guild's ``rated_min_people``?"""
    return people_in(bummerl) >= rated_min_people


def teams_of(bummerl: BummerlRow) -> tuple[tuple[int, int], tuple[int, int]]:
    """The rated identities of the winners and of the losers."""
    w1, w2 = (rated_id(p, bummerl) for p in bummerl.winners)
    l1, l2 = (rated_id(p, bummerl) for p in bummerl.losers)
    return (w1, w2), (l1, l2)


def update(
    winners: Sequence[PlayerRating], losers: Sequence[PlayerRating]
) -> list[RatingChange]:
    """The rating changes of one Bummerl won by ``winners`` (two ratings) against ``losers``, one per
    identity (in the order first seen); an identity on both teams is left as it was (see the module doc)."""
    rated = MODEL.rate(
        [[MODEL.rating(mu=r.mu, sigma=r.sigma) for r in winners], [MODEL.rating(mu=r.mu, sigma=r.sigma) for r in losers]],
        ranks=[0, 1],
    )
    on_both = {r.player_id for r in winners} & {r.player_id for r in losers}
    changes: dict[int, RatingChange] = {}
    for before, after in zip((*winners, *losers), (*rated[0], *rated[1]), strict=True):
        if before.player_id in on_both or before.player_id in changes:
            continue
        new = PlayerRating(before.player_id, after.mu, after.sigma, before.games + 1)
        changes[before.player_id] = RatingChange(before.player_id, before, new)
    return list(changes.values())


def changes_of(bummerl: BummerlRow, ratings: dict[int, PlayerRating]) -> list[RatingChange]:
    """The changes of one Bummerl, given the current ratings of its identities."""
    winners, losers = teams_of(bummerl)
    return update([ratings[i] for i in winners], [ratings[i] for i in losers])


async def rate_bummerl(
    db: Database, bummerl: BummerlRow, bummerl_id: int, settings: GuildSettings
) -> list[RatingChange]:
    """Inside the caller's transaction: rate a stored Bummerl (no changes when it is not rated)."""
    if not is_rated(bummerl, settings.rated_min_people):
        return []
    winners, losers = teams_of(bummerl)
    ratings = await db.ratings.get_ratings(bummerl.guild_id, (*winners, *losers))
    changes = changes_of(bummerl, ratings)
    await db.ratings.store_rating_changes(bummerl.guild_id, bummerl_id, changes)
    return changes


def replay(
    bummerls: Iterable[BummerlRow], rated_min_people: dict[int, int]
) -> tuple[dict[tuple[int, int], PlayerRating], list[tuple[BummerlRow, list[RatingChange]]]]:
    """Every guild's ratings from its Bummerl in order (``rated_min_people`` per guild id), in memory:
    the final ratings by (guild id, player id) and each rated Bummerl's changes."""
    current: dict[tuple[int, int], PlayerRating] = {}
    rated: list[tuple[BummerlRow, list[RatingChange]]] = []
    for bummerl in bummerls:
        if not is_rated(bummerl, rated_min_people[bummerl.guild_id]):
            continue
        winners, losers = teams_of(bummerl)
        ratings = {i: current.get((bummerl.guild_id, i), PlayerRating(i)) for i in (*winners, *losers)}
        changes = changes_of(bummerl, ratings)
        for change in changes:
            current[(bummerl.guild_id, change.player_id)] = change.after
        rated.append((bummerl, changes))
    return current, rated


async def rebuild(db: Database) -> int:
    """Recompute every rating from the stored Bummerl, in ONE transaction; returns how many were rated.

    Each guild's ``rated_min_people`` of today applies to its whole history."""
    async with db.transaction():
        bummerls = await db.stats.all_bummerl_results()
        settings = {g: (await db.settings.get_guild_settings(g)).rated_min_people for g in {b.guild_id for b in bummerls}}
        final, rated = replay(bummerls, settings)
        await db.ratings.clear_ratings()
        history = []
        for bummerl, changes in rated:
            assert bummerl.id is not None
            history += [(bummerl.id, bummerl.guild_id, change) for change in changes]
        await db.ratings.store_rebuilt_ratings(final, history)
    log.info("ratings rebuilt from %d stored Bummerl (%d rated)", len(bummerls), len(rated))
    return len(rated)


async def rebuild_if_pending(db: Database) -> int | None:
    """Rebuild when a migration asked for it (existing databases get ratings from their stored results);
    None when nothing was pending."""
    if await db.meta.get(REBUILD_PENDING) != "1":
        return None
    async with db.transaction():
        # Asked again under the write lock: of processes starting together on one PostgreSQL, the first
        # rebuilds and the others find it done.
        if await db.meta.get(REBUILD_PENDING) != "1":
            return None
        return await rebuild(db)
