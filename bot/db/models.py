"""Plain values that go in and out of the storage layer (never sqlite rows)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.vocabulary import DEFAULT_DECK, AiStrength, DeckStyle, Language, TableStatus
from engine import BummerlKind, DealRecord, GameRecord, Preset, ruleset_from_json

OutboxKind = Literal["result", "final_hand", "notice", "set_aside"]

# A pair of partners is the sorted pair of their user ids; an AI seat counts as this id.
AI_USER_ID = 0

# Ratings (docs/ratings.md). Each AI strength is one rated player with a reserved id below zero (user ids
# are > 0, and 0 is an AI seat in a tally pair).
AI_IDENTITIES: dict[AiStrength, int] = {"pimc": -1, "greedy": -2}
INITIAL_MU = 25.0  # openskill's defaults, named so that storage and the model agree
INITIAL_SIGMA = 25.0 / 3
RATING_BASE = 1000  # the shown number: RATING_BASE + RATING_SCALE * (mu - 3 sigma); a newcomer shows 1000
RATING_SCALE = 30
DEFAULT_RATED_MIN_PEOPLE = 2
RATING_MIN_GAMES = 5  # rated Bummerl a player needs to appear on the rating board


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    language: Language | None = None  # None: use the guild's locale
    preset: Preset = "standard"
    deck: DeckStyle = DEFAULT_DECK
    turn_seconds: int = 90
    ai_strength: AiStrength = "pimc"
    ai_delay_ms: int = 1200
    rated_min_people: int = DEFAULT_RATED_MIN_PEOPLE  # a Bummerl is rated when this many people played it
    table_threads: bool = False  # `/schnapsen new` opens a thread of its own for each table
    deal_review: bool = True  # "Show the deal" on result messages
    web_pages: bool = False  # the server's web pages (docs/web.md) are served
    web_token: str | None = None  # their URLs' unguessable part; made when first turned on, then kept
    # The rule settings new tables change from the preset, in the record's JSON form ({"target": 12}); kept
    # when the preset changes (bot/game/rulesettings.py checks them).
    rule_changes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class TableRow:
    id: int
    guild_id: int
    channel_id: int
    host_id: int
    status: TableStatus
    rules_json: str
    deck: DeckStyle
    turn_seconds: int
    language: Language
    table_message_id: int | None
    version: int
    first_dealer: int
    created_at: int
    updated_at: int
    thread_parent_id: int | None = None  # the table lives in a thread the bot opened in this channel
    practice: bool = False  # a practice table: hints, and its deals count for no statistic or rating

    @property
    def is_open(self) -> bool:
        return self.status != "closed"


@dataclass(frozen=True, slots=True)
class SeatRow:
    table_id: int
    seat: int
    user_id: int | None  # None: an AI player
    display_name: str
    ai_takeover: bool  # a human's seat played by the AI because they were idle
    dm_channel_id: int | None
    dm_message_id: int | None
    dms_closed: bool
    warned: bool  # idle warning sent for the current turn

    @property
    def is_ai(self) -> bool:
        return self.user_id is None


@dataclass(frozen=True, slots=True)
class StoredDeal:
    deal_no: int
    dealer: int
    seed: int
    hands: tuple[tuple[str, ...], ...]  # seats N, E, S, W; each hand in deal order
    actions: tuple[str, ...]
    started_at: int
    finished: bool


@dataclass(frozen=True, slots=True)
class TableRecord:
    table_id: int
    rules_json: str
    first_dealer: int
    deals: tuple[StoredDeal, ...]
    practice: bool = False

    def to_game_record(self, *, include_unfinished: bool = False) -> GameRecord:
        """The record as the engine's game record (it writes the export format); the unfinished deal, whose
        hands are still hidden, only on request."""
        return GameRecord(
            rules=ruleset_from_json(json.loads(self.rules_json)),
            dealer=self.first_dealer,
            deals=tuple(
                DealRecord(deal.hands, deal.actions) for deal in self.deals if deal.finished or include_unfinished
            ),
            practice=self.practice,
        )


@dataclass(frozen=True, slots=True)
class DealResultRow:
    table_id: int
    deal_no: int
    contract: str  # a contract id of RECORD.md, e.g. "normal", "schnapser"
    declarer_seat: int
    winner_team: int  # 0 = NS, 1 = EW
    game_points: int
    multiplier: int
    reason: str
    finished_at: int


@dataclass(frozen=True, slots=True)
class Player:
    user_id: int | None  # None: an AI player
    display_name: str


@dataclass(frozen=True, slots=True)
class BummerlRow:
    guild_id: int
    table_id: int
    winners: tuple[Player, Player]
    losers: tuple[Player, Player]
    kind: BummerlKind
    count: int  # Bummerl charged to the losers (Schneider counts more)
    score_winner: int
    score_loser: int
    finished_at: int
    id: int | None = None  # assigned by the database
    ai_strength: AiStrength = "pimc"  # what the AI seats played with (their rating identity)


@dataclass(frozen=True, slots=True)
class PlayerDealStats:
    """One human's share of one finished deal, added to their per-guild statistics."""

    user_id: int
    display_name: str
    won: bool
    game_points: int  # game points their team scored in this deal (0 when lost)
    declared: bool  # they declared the contract
    made: bool  # they declared it and it was made


@dataclass(frozen=True, slots=True)
class PlayerStats:
    guild_id: int
    user_id: int
    display_name: str
    bummerl_won: int
    bummerl_lost: int
    deals_played: int
    deals_won: int
    game_points: int
    contracts_declared: int
    contracts_made: int

    @property
    def bummerl_played(self) -> int:
        return self.bummerl_won + self.bummerl_lost

    @property
    def win_rate(self) -> float | None:
        return self.bummerl_won / self.bummerl_played if self.bummerl_played else None


def shown_rating(mu: float, sigma: float) -> int:
    """The rating people see: a conservative estimate (openskill's ordinal, mu - 3 sigma) on a familiar scale.

    >>> shown_rating(INITIAL_MU, INITIAL_SIGMA), shown_rating(30.0, 2.0)
    (1000, 1720)
    """
    return round(RATING_BASE + RATING_SCALE * (mu - 3 * sigma))


@dataclass(frozen=True, slots=True)
class PlayerRating:
    """One rated player's rating in one guild; ``player_id`` is a user id or an AI identity (< 0)."""

    player_id: int
    mu: float = INITIAL_MU
    sigma: float = INITIAL_SIGMA
    games: int = 0  # rated Bummerl played

    @property
    def shown(self) -> int:
        return shown_rating(self.mu, self.sigma)

    @property
    def uncertainty(self) -> int:
        """The +- shown beside the rating: one sigma on the shown scale."""
        return round(RATING_SCALE * self.sigma)


@dataclass(frozen=True, slots=True)
class RatingChange:
    """A player's rating before and after one rated Bummerl."""

    player_id: int
    before: PlayerRating
    after: PlayerRating

    @property
    def delta(self) -> int:
        return self.after.shown - self.before.shown


@dataclass(frozen=True, slots=True)
class LeaderboardEntry:
    rank: int  # competition ranking: equal keys share a rank (1, 2, 2, 4)
    stats: PlayerStats  # an AI identity on the rating board has empty statistics and its id as user_id
    rating: PlayerRating | None = None  # on the rating board


@dataclass(frozen=True, slots=True)
class LeaderboardPage:
    entries: tuple[LeaderboardEntry, ...]
    total: int  # players on the whole board (for paging)


@dataclass(frozen=True, slots=True)
class Tally:
    """The running Bummerl tally between `pair` and `opponents` (each a sorted pair of user ids)."""

    pair: tuple[int, int]
    opponents: tuple[int, int]
    wins: int
    losses: int


def pair_key(first: int | None, second: int | None) -> tuple[int, int]:
    """The identity of a pair of partners: both user ids sorted, an AI seat counting as `AI_USER_ID`.

    >>> pair_key(42, None), pair_key(7, 3)
    ((0, 42), (3, 7))
    """
    a = AI_USER_ID if first is None else first
    b = AI_USER_ID if second is None else second
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True, slots=True)
class OutboxEntry:
    """An announcement a stored change still owes (see migrations/002-outbox.sql)."""

    id: int
    table_id: int
    kind: OutboxKind
    payload: dict[str, Any]
    created_at: int
