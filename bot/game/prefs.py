"""A person's own choices (``/schnapsen prefs``: where their hand lives and in which order it is shown), read
once and then kept in memory, and ``/schnapsen forget-me``."""

from __future__ import annotations

import logging
import random
from collections.abc import Callable

from bot.cache import Lru
from bot.db import AlreadySeated, Database, Forgotten, PlayerPrefs
from bot.db.privacy import PSEUDONYM_CEILING
from bot.db.tournaments import InTournament
from bot.vocabulary import HAND_ORDERS, HAND_PLACES

from .core import TableCore
from .errors import UserError, one_of

REMEMBERED_PREFS = 10_000  # people whose choices are kept in memory (least recently used forgotten)
log = logging.getLogger(__name__)


class PrefsCache:
    def __init__(self, db: Database, core: TableCore, clock: Callable[[], float]) -> None:
        self.db = db
        self.core = core
        self.clock = clock
        self._prefs: Lru[int, PlayerPrefs] = Lru(REMEMBERED_PREFS)  # user id -> their choices, as stored
        self._forget_listeners: list[Callable[[], None]] = []

    def on_forget(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` after each person is forgotten here (what keeps copies of stored names drops
        them: the web pages), until the returned function is called."""
        self._forget_listeners.append(listener)
        return lambda: self._forget_listeners.remove(listener)

    async def player_prefs(self, user_id: int) -> PlayerPrefs:
        """Where the person's hand lives and in which order it is shown (read once, then from memory)."""
        prefs = self.cached_prefs(user_id)
        if prefs is None:
            prefs = await self.db.prefs.get_player_prefs(user_id)
            self._remember(prefs)
        return prefs

    def cached_prefs(self, user_id: int) -> PlayerPrefs | None:
        """The person's choices if they were read already (the shell's synchronous paths), else None."""
        return self._prefs.get(user_id)

    async def set_player_prefs(
        self, user_id: int, *, hand_place: str | None = None, hand_order: str | None = None
    ) -> PlayerPrefs:
        """Change the choices that are given (None keeps one); an unknown value changes nothing."""
        current = await self.player_prefs(user_id)
        updated = PlayerPrefs(
            user_id,
            hand_place=current.hand_place if hand_place is None else one_of(hand_place, HAND_PLACES),
            hand_order=current.hand_order if hand_order is None else one_of(hand_order, HAND_ORDERS),
        )
        await self.db.prefs.save_player_prefs(updated, int(self.clock()))
        self._remember(updated)
        return updated

    async def forget_person(self, user_id: int) -> Forgotten:
        """``/schnapsen forget-me``: delete what is the person's alone and take their name and id out of the
        records others played (bot/db/privacy.py), in one transaction. Refused while they sit at an open
        table: they leave it first (a lobby would show their name, a game would go on with it)."""
        if self.core.table_of_user(user_id) is not None:
            raise UserError("error.forget_seated")
        pseudonym = PSEUDONYM_CEILING - random.SystemRandom().getrandbits(52)
        try:
            forgotten = await self.db.privacy.forget_person(user_id, pseudonym)
        except AlreadySeated:  # at a table another process serves
            raise UserError("error.forget_seated") from None
        except InTournament:  # bot/db/tournaments.py: their team plays on
            raise UserError("error.forget_in_tournament") from None
        self._prefs.pop(user_id, None)
        for listener in list(self._forget_listeners):
            listener()
        # No id in the log: the person asked to be forgotten.
        log.info("forgot a person on request: %s", forgotten)
        return forgotten

    def _remember(self, prefs: PlayerPrefs) -> None:
        self._prefs[prefs.user_id] = prefs
