"""Forgetting a person (``/schnapsen forget-me``, docs/privacy.md): what is theirs alone is deleted, and the
records other people played keep their shape with the person's name and id replaced.

Deleted: their statistics in every guild, their ratings and rating history, the tallies of every pair they
were part of, their own choices and the reviews of their play they asked for (``deal_reviews``). Replaced: in finished Bummerl, their user id by a pseudonym (a random
negative id no person or AI identity has, the same in all their rows, so that a ratings rebuild still sees one
player and gives everybody else the ratings they have now) and their name by ``REMOVED_NAME``; at closed
tables, their seat becomes a nameless seat with no user (their DM ids go too); in tournaments
(``TournamentsRepo.forget_person``) sign-ups not started are withdrawn and the others get the pseudonym and
the removed name, refused while their team plays in a running one. All in one transaction.
"""

from __future__ import annotations

from dataclasses import dataclass

from .core import Repository
from .errors import AlreadySeated
from .tournaments import TournamentsRepo

REMOVED_NAME = "(removed)"
# Pseudonyms lie below this id: far from the AI identities (-1, -2) and from any user id (> 0).
PSEUDONYM_CEILING = -1_000_000
_BUMMERL_SLOTS = ("winner1", "winner2", "loser1", "loser2")


@dataclass(frozen=True, slots=True)
class Forgotten:
    """How many rows forgetting a person deleted or changed, per kind."""

    statistics: int  # per-guild statistics rows deleted
    ratings: int  # ratings and rating history rows deleted
    tallies: int  # pair tallies deleted
    prefs: int  # their choices (0 or 1)
    bummerl: int  # places in finished Bummerl given the pseudonym
    seats: int  # seats at closed tables made nameless
    tournaments: int = 0  # tournament sign-ups withdrawn or given the pseudonym, teams renamed
    reviews: int = 0  # their kept "Review my play" results deleted

    @property
    def anything(self) -> bool:
        counts = (
            self.statistics, self.ratings, self.tallies, self.prefs, self.bummerl, self.seats, self.tournaments,
            self.reviews,
        )
        return any(counts)


class PrivacyRepo(Repository):
    async def forget_person(self, user_id: int, pseudonym: int) -> Forgotten:
        """Forget ``user_id`` (see the module's docstring), in one transaction. Refused with `AlreadySeated`,
        changing nothing, while they sit at an open table: that table still plays with their name."""
        if user_id <= 0 or pseudonym >= PSEUDONYM_CEILING:
            raise ValueError(
                f"forget_person({user_id}, {pseudonym}): a user id > 0 and a pseudonym below the ceiling"
            )
        async with self._core.transaction():
            seated = await self._core.fetch_one(
                "SELECT table_id FROM seats WHERE user_id = ? AND table_open = 1", (user_id,)
            )
            if seated is not None:
                raise AlreadySeated(int(seated["table_id"]))
            statistics = await self._core.execute("DELETE FROM player_stats WHERE user_id = ?", (user_id,))
            ratings = await self._core.execute("DELETE FROM rating_history WHERE player_id = ?", (user_id,))
            ratings += await self._core.execute("DELETE FROM ratings WHERE player_id = ?", (user_id,))
            tallies = await self._core.execute(
                "DELETE FROM team_tallies WHERE ?1 IN (pair1_low, pair1_high, pair2_low, pair2_high)",
                (user_id,),
            )
            prefs = await self._core.execute("DELETE FROM player_prefs WHERE user_id = ?", (user_id,))
            bummerl = 0
            for slot in _BUMMERL_SLOTS:
                bummerl += await self._core.execute(
                    f"UPDATE bummerl_results SET {slot}_id = ?1, {slot}_name = ?2 WHERE {slot}_id = ?3",
                    (pseudonym, REMOVED_NAME, user_id),
                )
            seats = await self._core.execute(
                """
                UPDATE seats SET user_id = NULL, display_name = ?1, ai_takeover = 0, dm_channel_id = NULL,
                                 dm_message_id = NULL
                WHERE user_id = ?2 AND table_open = 0
                """,
                (REMOVED_NAME, user_id),
            )
            await self._core.execute(
                "UPDATE game_tables SET host_id = 0 WHERE host_id = ? AND status = 'closed'", (user_id,)
            )
            await self._core.execute(  # their daily scores stay on the boards, under no name
                "UPDATE daily_attempts SET user_id = ?1, display_name = ?2 WHERE user_id = ?3",
                (pseudonym, REMOVED_NAME, user_id),
            )
            await self._core.execute(  # and keep their place in a league's ladder, under no name
                "UPDATE daily_league_ladder SET user_id = ?1, display_name = ?2 WHERE user_id = ?3",
                (pseudonym, REMOVED_NAME, user_id),
            )
            await self._core.execute("DELETE FROM daily_hidden WHERE user_id = ?", (user_id,))
            tournaments = await TournamentsRepo(self._core).forget_person(user_id, pseudonym, REMOVED_NAME)
            reviews = await self._core.execute("DELETE FROM deal_reviews WHERE user_id = ?", (user_id,))
        return Forgotten(statistics, ratings, tallies, prefs, bummerl, seats, tournaments, reviews)
