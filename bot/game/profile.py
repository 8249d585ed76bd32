"""A player's profile in one guild, as ``/schnapsen stats`` shows it: a Discord-free value built from storage.

``ProfileQueries`` reads it from storage (``TableService.profiles``); the skill rating comes from the stored
ratings (``player_rating``).
"""

from __future__ import annotations

from dataclasses import dataclass

import engine
from bot.db import RATING_MIN_GAMES, Database, shown_rating
from bot.vocabulary import CONTRACT_FAMILIES, ContractFamily
from engine.contracts import ALL_TRICKS_CONTRACTS, BEGGAR_CONTRACTS, IMMEDIATE_CONTRACTS, SCHNAPSER_CONTRACTS

# Bummerl two people must have played together before one is shown as the other's best partner.
MIN_BUMMERL_TOGETHER = 3
# Rating points the profile's chart shows at most (one per Bummerl, oldest first).
RATING_HISTORY_LENGTH = 30

_FAMILY_MEMBERS: dict[ContractFamily, frozenset[engine.Contract]] = {
    "normal": frozenset({engine.Contract.NORMAL}),
    "bettler": BEGGAR_CONTRACTS,
    "schnapser": SCHNAPSER_CONTRACTS,
    "all_tricks": ALL_TRICKS_CONTRACTS,
    "farbringerl": IMMEDIATE_CONTRACTS,
}
FAMILY_OF: dict[str, ContractFamily] = {
    contract.id: family for family, members in _FAMILY_MEMBERS.items() for contract in members
}


@dataclass(frozen=True, slots=True)
class ShownRating:
    """The skill rating as people see it: one number on a familiar scale, its uncertainty (±), its history
    (the shown value after each of the last Bummerl, oldest first) and the place on the rating board."""

    shown: int
    uncertainty: int
    history: tuple[int, ...] = ()
    rank: int | None = None


@dataclass(frozen=True, slots=True)
class FamilyRecord:
    family: ContractFamily
    declared: int
    made: int


@dataclass(frozen=True, slots=True)
class BestPartner:
    user_id: int
    display_name: str
    together: int  # Bummerl played as partners
    won: int


@dataclass(frozen=True, slots=True)
class PlayerProfile:
    guild_id: int
    user_id: int
    display_name: str | None  # as last stored; None when the player never finished a deal here
    rating: ShownRating | None  # None: not rated (yet)
    rank: int | None  # the rating board's place when rated, else the Bummerl leaderboard's
    bummerl_won: int
    bummerl_played: int
    deals_won: int
    deals_played: int
    contracts: tuple[FamilyRecord, ...]  # one per contract family, in CONTRACT_FAMILIES order
    kontra_said: int
    kontra_won: int
    best_partner: BestPartner | None
    tournaments_played: int = 0  # finished server tournaments the player played in a team
    tournaments_won: int = 0

    @property
    def has_games(self) -> bool:
        return self.deals_played > 0 or self.bummerl_played > 0


def families(tallies: dict[str, tuple[int, int]]) -> tuple[FamilyRecord, ...]:
    """(declared, made) per contract id folded into the contract families, every family listed.

    >>> families({"bettler": (2, 1), "ass_bettler": (1, 1), "gang": (1, 0)})[1:4]
    (FamilyRecord(family='bettler', declared=3, made=2), FamilyRecord(family='schnapser', declared=0, made=0), \
FamilyRecord(family='all_tricks', declared=1, made=0))
    """
    declared = dict.fromkeys(CONTRACT_FAMILIES, 0)
    made = dict.fromkeys(CONTRACT_FAMILIES, 0)
    for contract, (times, won) in tallies.items():
        family = FAMILY_OF[contract]
        declared[family] += times
        made[family] += won
    return tuple(FamilyRecord(family, declared[family], made[family]) for family in CONTRACT_FAMILIES)


class ProfileQueries:
    """A player's profile and rating, read from storage (no table lock is needed)."""

    def __init__(self, db: Database) -> None:
        self.db = db

    async def player_rating(self, guild_id: int, user_id: int) -> ShownRating | None:
        """The player's rating in this guild as people see it, with the last ``RATING_HISTORY_LENGTH`` shown
        values and the place on the rating board; None while they have no rated Bummerl."""
        rating = (await self.db.ratings.get_ratings(guild_id, [user_id]))[user_id]
        if rating.games == 0:
            return None
        entry = await self.db.stats.rank_of(guild_id, user_id, "rating", RATING_MIN_GAMES)
        rated = await self.db.ratings.rating_history(guild_id, user_id, RATING_HISTORY_LENGTH)
        history = tuple(shown_rating(mu, sigma) for _, mu, sigma in rated)
        return ShownRating(rating.shown, rating.uncertainty, history, None if entry is None else entry.rank)

    async def player_profile(self, guild_id: int, user_id: int) -> PlayerProfile:
        """Everything ``/schnapsen stats`` shows of the player in this guild (zeros for a player with no games)."""
        stats = await self.db.stats.get_player_stats(guild_id, user_id)
        rating = await self.player_rating(guild_id, user_id)
        if rating is not None:
            rank = rating.rank
        else:
            entry = await self.db.stats.rank_of(guild_id, user_id, "bummerl", 1)
            rank = None if entry is None else entry.rank
        contracts = await self.db.profile.contract_tallies(guild_id, user_id)
        kontra = await self.db.profile.kontra_tally(guild_id, user_id)
        partners = await self.db.profile.partners(guild_id, user_id, MIN_BUMMERL_TOGETHER)
        best = partners[0] if partners else None
        tournaments_played, tournaments_won = await self.db.tournament_controls.record_of(guild_id, user_id)
        return PlayerProfile(
            guild_id=guild_id,
            user_id=user_id,
            display_name=None if stats is None else stats.display_name,
            rating=rating,
            rank=rank,
            bummerl_won=0 if stats is None else stats.bummerl_won,
            bummerl_played=0 if stats is None else stats.bummerl_played,
            deals_won=0 if stats is None else stats.deals_won,
            deals_played=0 if stats is None else stats.deals_played,
            contracts=families({c.contract: (c.declared, c.made) for c in contracts}),
            kontra_said=kontra.said,
            kontra_won=kontra.won,
            best_partner=None
            if best is None
            else BestPartner(best.user_id, best.display_name, best.together, best.won),
            tournaments_played=tournaments_played,
            tournaments_won=tournaments_won,
        )
