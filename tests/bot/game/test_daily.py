"""The daily deal below the shell, on both storage engines: an attempt is a table dealt the day's deals that
closes after the last, its deals' points are stored by their subscriber, one attempt a day, abandoning ends it
with what was played, the boards score against the stored par, par is computed once in the background, and
nobody sees a deal of a day not yet over."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

import engine
from bot.ai_worker import Priority
from bot.db import Database
from bot.db.daily import DailyPar
from bot.game import daily
from bot.game import events as ev
from bot.game.dailypar import ParComputer, greedy_decision
from bot.game.errors import UserError
from bot.game.service import TableService
from bot.game.table import TableSnapshot
from tests.bot.game.conftest import Clock
from tests.bot.game.test_service import ALICE, BOB, CARL, CHANNEL, GUILD, NAMES, open_lobby

OTHER_GUILD = 2


async def start(service: TableService, user: int = ALICE, guild: int = GUILD) -> TableSnapshot:
    return await service.daily.start(
        guild_id=guild, dm_channel_id=900 + user, user_id=user, name=NAMES[user], deck="french", language="en"
    )


async def play_out(service: TableService, table: TableSnapshot, *, deals: int | None = None) -> list[ev.TableEvent]:
    """Play (every seat: the person's first legal action, the AI seats too) until the table closes or
    ``deals`` deals have ended; every domain event."""
    events: list[ev.TableEvent] = []
    ended = 0
    while table.status == "playing" and (deals is None or ended < deals):
        assert table.deal is not None and table.deal.to_act is not None
        seat = table.deal.to_act
        occupant = table.seats[seat]
        user = occupant.user_id if occupant is not None else None
        outcome = await service.act(table.id, seat, engine.legal_actions(table.deal)[0], table.version, user_id=user)
        events.extend(outcome.changes)
        ended += outcome.finished_deal is not None
        table = outcome.table
    return events


async def test_an_attempt_is_dealt_the_days_deals_and_closes_after_the_last(
    service: TableService, db: Database, clock: Clock
) -> None:
    table = await start(service)
    day = daily.day_of(clock())
    secret = await db.daily.known_secret(day)
    assert secret is not None
    assert table.seats[0] is not None and table.seats[0].user_id == ALICE
    assert all(seat is not None and seat.is_ai for seat in table.seats[1:])
    events = await play_out(service, table)
    assert ev.TableClosed("notice.closed_deals_played") in events
    assert service.snapshot(table.id) is None and service.held(table.id) is None
    record = await db.records.load_record(table.id)
    assert [deal.deal_no for deal in record.deals] == list(range(daily.DAILY_DEALS))
    for deal in record.deals:
        assert deal.dealer == daily.dealer_of(secret, deal.deal_no)
        assert deal.hands == engine.deal_hands(daily.deal_seed(secret, deal.deal_no), deal.dealer)
    ended = [e for e in events if isinstance(e, ev.DealEnded)]
    points = await db.daily.deals_of(table.id)
    expected = {}
    for event in ended:
        assert event.table.deal is not None and event.table.deal.result is not None
        expected[event.table.deal_no] = daily.signed_points(event.table.deal.result, 0)
    assert points == expected and len(points) == daily.DAILY_DEALS
    attempt = await db.daily.attempt(day, ALICE)
    assert attempt is not None and attempt.finished and attempt.guild_id == GUILD


async def test_another_person_gets_the_same_deals_and_a_normal_table_its_own(
    service: TableService, db: Database
) -> None:
    first = await start(service, ALICE)
    second = await start(service, BOB, OTHER_GUILD)
    assert first.deal is not None and second.deal is not None
    assert first.deal.dealt == second.deal.dealt and first.deal.dealer == second.deal.dealer
    lobby = await open_lobby(service, host=CARL, channel_id=CHANNEL + 7)
    normal = await service.start(lobby.id, CARL)
    assert normal.deal is not None and normal.deal.dealt != first.deal.dealt
    assert (await db.records.load_record(normal.id)).deals[0].seed == 1  # the service's own seeds


async def test_one_attempt_a_day_and_a_new_one_the_next_day(service: TableService, clock: Clock) -> None:
    table = await start(service)
    with pytest.raises(UserError) as refused:
        await start(service)
    assert refused.value.key == "error.daily_played"
    await play_out(service, table)
    with pytest.raises(UserError) as again:
        await start(service)
    assert again.value.key == "error.daily_played"
    clock.now += daily.SECONDS_PER_DAY
    tomorrow = await start(service)
    assert tomorrow.deal is not None and tomorrow.deal.dealt != table.deal.dealt  # type: ignore[union-attr]


async def test_leaving_ends_the_attempt_with_what_was_played(service: TableService, db: Database, clock: Clock) -> None:
    day = daily.day_of(clock())
    table = await start(service)
    await play_out(service, table, deals=2)
    await service.leave(table.id, ALICE)
    attempt = await db.daily.attempt(day, ALICE)
    assert attempt is not None and attempt.finished
    played = await db.daily.deals_of(table.id)
    assert sorted(played) == [0, 1]
    for deal_no in range(daily.DAILY_DEALS):
        await db.daily.store_par(day, DailyPar(deal_no, 1, ("N:x",)), 0)
    board = await service.daily.board(GUILD)
    (standing,) = board.standings
    # Two deals played against par, four not played: no game points, against par's one each.
    assert standing.score == sum(played.values()) - 2 + (0 - 1) * 4 and standing.played == 2
    assert board.par_ready


async def test_boards_score_against_par_per_server_everywhere_and_per_week(
    service: TableService, db: Database, clock: Clock
) -> None:
    day = daily.day_of(clock())
    alice = await start(service, ALICE)
    bob = await start(service, BOB, OTHER_GUILD)
    await play_out(service, alice)
    await play_out(service, bob, deals=1)  # bob is still playing: only his finished deal counts
    assert (await service.daily.board(GUILD)).standings == ()  # no par yet: nobody's score counts
    assert not (await service.daily.board(GUILD)).par_ready
    pars = [3, -2, 1, 0, 2, -1]
    for deal_no, points in enumerate(pars):
        await db.daily.store_par(day, DailyPar(deal_no, points, ()), 0)
        await db.daily.store_par(day, DailyPar(deal_no, 99, ()), 0)  # stored once: the second is ignored
    assert [p.points for p in await db.daily.par(day)] == pars
    alice_points, bob_points = await db.daily.deals_of(alice.id), await db.daily.deals_of(bob.id)
    here = await service.daily.board(GUILD)
    assert [(s.user_id, s.score, s.played) for s in here.standings] == [(ALICE, sum(alice_points.values()) - sum(pars), 6)]
    everywhere = await service.daily.board(None)
    assert {s.user_id: s.score for s in everywhere.standings} == {
        ALICE: sum(alice_points.values()) - sum(pars),
        BOB: bob_points[0] - pars[0],
    }
    clock.now += daily.SECONDS_PER_DAY
    week = await service.daily.board(None, week=True)
    if len(week.days) > 1:  # the next day is in the same week (not a Monday)
        assert {s.user_id for s in week.standings} == {ALICE, BOB}
    assert (await service.daily.board(None)).standings == ()  # a new day's board is empty
    assert await service.daily.streak(ALICE) == 1


async def test_nobody_sees_a_deal_of_the_day_before_the_day_is_over(service: TableService, clock: Clock) -> None:
    table = await start(service)
    await play_out(service, table, deals=1)
    with pytest.raises(UserError) as sealed:
        await service.queries.finished_deal(GUILD, table.id, 0)
    assert sealed.value.key == "error.review_no_deal"
    assert await service.daily.sealed(table.id)
    own = await service.queries.finished_deal(None, table.id, 0, viewer=ALICE)  # her own, from her DM
    assert own.deal is not None and own.deal.finished
    for guild, viewer in ((None, BOB), (None, None), (GUILD, BOB), (OTHER_GUILD, None)):
        with pytest.raises(UserError) as refused:
            await service.queries.finished_deal(guild, table.id, 0, viewer=viewer)
        assert refused.value.key == "error.review_no_deal"
    clock.now += daily.SECONDS_PER_DAY
    shown = await service.queries.finished_deal(GUILD, table.id, 0)
    assert shown.deal is not None and shown.deal.finished
    assert not await service.daily.sealed(table.id)


class RecordingWorker:
    """An AI queue that answers with greedy's choice and remembers each request's priority, seed and whether its
    budget may shrink."""

    def __init__(self) -> None:
        self.requests: list[tuple[Priority, int, str, bool]] = []

    async def decide(
        self, view: engine.PlayerView, player: str, seed: int, budget_ms: int, hard_cap_ms: int, rules: Any = None,
        *, priority: Priority, may_shrink: bool,
    ) -> engine.Action:
        self.requests.append((priority, seed, player, may_shrink))
        return greedy_decision(view, seed)


async def test_par_is_background_work_computed_once_and_the_same_everywhere(db: Database) -> None:
    worker = RecordingWorker()
    computer = ParComputer(db, worker)  # type: ignore[arg-type]
    secret = await db.daily.day_secret("2026-12-03", 12345, 0)
    assert await computer.ensure_par("2026-12-03", secret) == daily.DAILY_DEALS
    kinds = {(priority, player, shrink) for priority, _, player, shrink in worker.requests}
    assert worker.requests and kinds == {(Priority.BACKGROUND, "pimc", False)}
    stored = await db.daily.par("2026-12-03")
    assert await computer.ensure_par("2026-12-03", secret) == 0  # stored: never computed again
    assert await db.daily.par("2026-12-03") == stored

    async def greedy(view: engine.PlayerView, seed: int) -> engine.Action:
        return greedy_decision(view, seed)

    again = [await daily.play_par(secret, deal_no, greedy) for deal_no in range(daily.DAILY_DEALS)]
    assert again == stored  # the same seeds give the same par wherever it is computed
    for par in stored:  # the line replays to the stored points
        dealer = daily.dealer_of(secret, par.deal_no)
        state = engine.new_deal(daily.daily_rules(), dealer, engine.deal_hands(daily.deal_seed(secret, par.deal_no), dealer))
        for text in par.actions:
            seat, action = engine.parse_action(text)
            state, _ = engine.apply(state, seat, action)
        assert state.result is not None and daily.signed_points(state.result, 0) == par.points


async def test_par_without_an_ai_worker_is_greedys(db: Database) -> None:
    computer = ParComputer(db, None)
    secret = await db.daily.day_secret("2026-12-04", 7, 0)
    assert await computer.ensure_par("2026-12-04", secret) == daily.DAILY_DEALS
    assert computer.fallbacks > 0


async def test_starting_an_attempt_asks_for_its_days_par_at_once(service: TableService, db: Database, clock: Clock) -> None:
    computer = ParComputer(db, None)  # greedy decides: quick
    service.daily.par = computer  # as the shell gives it (bot/schnapsen/daily.py)
    day = daily.day_of(clock())
    assert computer.job(day) is None
    await start(service)
    job = computer.job(day)
    assert job is not None, "asked for as the attempt started, without waiting for any timer"
    assert await job == daily.DAILY_DEALS
    assert [par.deal_no for par in await db.daily.par(day)] == list(range(daily.DAILY_DEALS))
    await start(service, BOB)  # a later attempt of the day: par is stored, nothing is computed again
    second = computer.job(day)
    assert second is not None and await second == 0

    tomorrow = daily.day_of(clock() + daily.SECONDS_PER_DAY)  # one job per day at a time: every caller gets it
    first = computer.request(tomorrow, service.daily.secret)
    assert computer.request(tomorrow, service.daily.secret) is first and await first == daily.DAILY_DEALS


async def test_an_attempt_finished_before_par_is_scored_once_par_is_stored(
    service: TableService, db: Database, clock: Clock
) -> None:
    day = daily.day_of(clock())
    table = await start(service)  # nobody computes par here: the attempt ends before it exists
    await play_out(service, table)
    assert (await db.daily.attempt(day, ALICE)).finished  # type: ignore[union-attr]
    board = await service.daily.board(GUILD)
    assert not board.par_ready and board.standings == (), "no score before par"

    assert await ParComputer(db, None).request(day, service.daily.secret) == daily.DAILY_DEALS
    points, par = await db.daily.deals_of(table.id), await db.daily.par(day)
    board = await service.daily.board(GUILD)
    score = sum(points.values()) - sum(p.points for p in par)
    assert board.par_ready and [(s.user_id, s.score, s.played) for s in board.standings] == [(ALICE, score, 6)]
    assert (await service.daily.beside_par(ALICE, 0)).score == points[0] - par[0].points


async def test_the_days_secret_is_drawn_once(db: Database) -> None:
    assert await db.daily.known_secret("2026-12-05") is None
    first = await db.daily.day_secret("2026-12-05", 1, 0)
    assert await db.daily.day_secret("2026-12-05", 2, 0) == first == 1


async def test_a_person_can_keep_out_of_the_board_of_every_server(service: TableService, db: Database, clock: Clock) -> None:
    day = daily.day_of(clock())
    await play_out(service, await start(service, ALICE))
    for deal_no in range(daily.DAILY_DEALS):
        await db.daily.store_par(day, DailyPar(deal_no, 0, ()), 0)
    await service.daily.show_everywhere(ALICE, False)
    assert (await service.daily.board(None)).standings == ()
    assert [s.user_id for s in (await service.daily.board(GUILD)).standings] == [ALICE]
    await service.daily.show_everywhere(ALICE, True)
    assert [s.user_id for s in (await service.daily.board(None)).standings] == [ALICE]


async def test_a_deal_beside_par_only_once_the_person_finished_it_and_par_is_stored(
    service: TableService, db: Database, clock: Clock
) -> None:
    with pytest.raises(UserError) as none:
        await service.daily.beside_par(ALICE, 0)
    assert none.value.key == "error.daily_not_played"
    table = await start(service)
    with pytest.raises(UserError) as running:
        await service.daily.beside_par(ALICE, 0)
    assert running.value.key == "error.daily_deal_not_played"
    await play_out(service, table, deals=1)
    with pytest.raises(UserError) as pending:
        await service.daily.beside_par(ALICE, 0)
    assert pending.value.key == "error.daily_par_pending"
    day = daily.day_of(clock())
    await db.daily.store_par(day, DailyPar(0, -1, ("N trump H",)), 0)
    beside = await service.daily.beside_par(ALICE, 0)
    record = await db.records.load_record(table.id)
    assert beside.played == record.deals[0].actions and beside.par.actions == ("N trump H",)
    assert beside.score == beside.points + 1


async def test_a_days_results_are_due_once_per_server_with_a_channel_after_the_day(
    service: TableService, db: Database, clock: Clock
) -> None:
    day = daily.day_of(clock())
    await service.daily.set_channel(GUILD, 777)
    await service.daily.set_channel(OTHER_GUILD, 778)  # nobody there played: nothing to post
    await play_out(service, await start(service, ALICE))
    assert await service.daily.results_to_post(clock()) == []  # the day is not over
    tomorrow = clock() + daily.SECONDS_PER_DAY
    assert await service.daily.results_to_post(tomorrow) == []  # no par yet
    for deal_no in range(daily.DAILY_DEALS):
        await db.daily.store_par(day, DailyPar(deal_no, 0, ()), 0)
    (due,) = await service.daily.results_to_post(tomorrow)
    assert (due.guild_id, due.channel_id, due.day) == (GUILD, 777, day)
    assert due.secret == await db.daily.known_secret(day) and [s.user_id for s in due.standings] == [ALICE]
    assert await service.daily.results_to_post(tomorrow) == []  # claimed
    await service.daily.post_failed(due)
    assert [r.guild_id for r in await service.daily.results_to_post(tomorrow)] == [GUILD]  # tried again


async def test_a_days_seed_is_published_only_once_the_day_is_over(service: TableService, clock: Clock) -> None:
    day = daily.day_of(clock())
    await start(service)
    for asked, refusal in (("2026-13-01", "error.daily_bad_day"), ("3 Dec", "error.daily_bad_day"), (day, "error.daily_day_not_over")):
        with pytest.raises(UserError) as refused:
            await service.daily.published_secret(asked)
        assert refused.value.key == refusal
    clock.now += daily.SECONDS_PER_DAY
    assert await service.daily.published_secret(day) == await service.db.daily.known_secret(day)
    with pytest.raises(UserError) as unknown:
        await service.daily.published_secret("2001-01-01")
    assert unknown.value.key == "error.daily_no_such_day"


async def played(db: Database, day: str, user: int, points: int, *, guild: int = GUILD, finished: bool = True) -> None:
    """``user`` played ``day`` (par 0 on every deal) and scored ``points`` over its first deal."""
    await db.daily.day_secret(day, 7, 0)
    for deal_no in range(daily.DAILY_DEALS):
        await db.daily.store_par(day, DailyPar(deal_no, 0, ()), 0)
    table_id = hash((day, user)) % 10**9
    at = int(dt.datetime.fromisoformat(day).replace(tzinfo=dt.UTC).timestamp()) + user  # first played in user order
    await db.daily.start_attempt(day=day, user_id=user, guild_id=guild, table_id=table_id, display_name=f"p{user}", now=at)
    await db.daily.record_deal(table_id, 0, points)
    if finished:
        await db.daily.finish_attempt(table_id, at)


def at_noon(day: str) -> float:
    return dt.datetime.fromisoformat(day).replace(hour=12, tzinfo=dt.UTC).timestamp()


async def test_a_months_league_is_seeded_from_the_month_before_and_stored_once_it_is_over(
    service: TableService, db: Database, clock: Clock
) -> None:
    # October: twelve people play once (the later one first played, the better), one more in another server.
    for user in range(1, 13):
        await played(db, "2026-10-05", user, points=user)
    await played(db, "2026-10-06", 99, points=50, guild=OTHER_GUILD)
    clock.now = at_noon("2026-10-20")
    october = await service.daily.league(GUILD)
    assert october.month == "2026-10" and october.settled  # nobody played in September: nothing to wait for
    assert [[p.member.user_id for p in d] for d in october.divisions] == [[10, 9, 8, 7, 6, 5, 4, 3, 2, 1], [12, 11]]
    assert [p.move for p in october.divisions[0]] == [0] * 8 + [-1, -1]
    assert [p.move for p in october.divisions[1]] == [1, 1]

    # November: the ladder is October's finish with the moves made; one October attempt is still open at first.
    await played(db, "2026-10-31", 13, points=0, finished=False)
    clock.now = at_noon("2026-11-01")
    early = await service.daily.league(GUILD)
    assert not early.settled and await db.daily.league_ladder(GUILD, "2026-11") is None
    await db.daily.finish_attempt(hash(("2026-10-31", 13)) % 10**9, 0)
    november = await service.daily.league(GUILD)
    assert november.settled
    seeded = [user for user, _ in await db.daily.league_ladder(GUILD, "2026-11") or []]
    assert seeded == [10, 9, 8, 7, 6, 5, 4, 3, 12, 11, 2, 1, 13]
    assert [[p.member.user_id for p in d] for d in november.divisions] == [seeded[:10], seeded[10:]]
    assert all(p.score == 0 and p.days == 0 for d in november.divisions for p in d)  # nobody played November yet

    # January: nobody played November, so December started empty (built on the way); its two players meet.
    await played(db, "2026-12-02", 1, points=-3)
    await played(db, "2026-12-03", 14, points=4)
    clock.now = at_noon("2027-01-10")
    january = await service.daily.league(GUILD)
    assert [[p.member.user_id for p in d] for d in january.divisions] == [[14, 1]]
    assert await db.daily.league_ladder(GUILD, "2026-12") == []

    # Forgotten on request: the place stays, the name and id go.
    await db.privacy.forget_person(1, -2_000_000)
    assert (await db.daily.league_ladder(GUILD, "2027-01") or [])[1] == (-2_000_000, "(removed)")
    ladder = await db.daily.league_ladder(GUILD, "2026-11") or []
    assert 1 not in [user for user, _ in ladder] and (-2_000_000, "(removed)") in ladder
    assert (await service.daily.league(OTHER_GUILD)).divisions == ()  # its one October player played no December


async def test_last_months_final_standings_are_due_once_per_server_with_a_channel_once_settled(
    service: TableService, db: Database, clock: Clock
) -> None:
    for user in range(1, 4):
        await played(db, "2026-10-05", user, points=user)
    await played(db, "2026-10-31", 4, points=9, finished=False)
    await played(db, "2026-10-07", 99, points=1, guild=OTHER_GUILD)  # a server without a results channel
    await service.daily.set_channel(GUILD, 555)
    clock.now = at_noon("2026-11-01")
    assert await service.daily.league_finals_to_post() == []  # an October attempt still runs
    await db.daily.finish_attempt(hash(("2026-10-31", 4)) % 10**9, 0)
    [final] = await service.daily.league_finals_to_post()
    assert (final.guild_id, final.channel_id, final.league.month, final.seeds) == (GUILD, 555, "2026-10", "2026-11")
    assert [p.member.user_id for p in final.league.divisions[0]] == [4, 3, 2, 1]
    assert await service.daily.league_finals_to_post() == []  # claimed: posted once
    await service.daily.league_final_failed(final)  # the post failed: the next look tries again
    assert [f.league.month for f in await service.daily.league_finals_to_post()] == ["2026-10"]
    clock.now = at_noon("2026-12-01")
    assert await service.daily.league_finals_to_post() == []  # nobody played November


async def test_where_an_attempt_is_played_is_stored_and_known_after_a_restart(
    service: TableService, db: Database, clock: Clock
) -> None:
    table = await service.daily.start(
        guild_id=GUILD, dm_channel_id=900 + ALICE, user_id=ALICE, name="alice", deck="french", language="en",
        in_channel=True,
    )  # fmt: skip
    assert service.daily.in_channel(table.id) and service.daily.keeps_private(900 + ALICE)
    attempt = await db.daily.attempt(daily.day_of(clock()), ALICE)
    assert attempt is not None and attempt.place == "channel"
    restarted = TableService(db, clock=clock)
    assert not restarted.daily.in_channel(table.id)  # not known until asked or remembered
    assert await restarted.daily.played_in_channel(table.id)
    other = TableService(db, clock=clock)
    await other.daily.remember_open_attempts()
    assert other.daily.in_channel(table.id) and other.daily.keeps_private(900 + ALICE)
    await play_out(service, table)
    bob = await start(service, BOB)
    assert not service.daily.in_channel(bob.id) and not await restarted.daily.played_in_channel(bob.id)
