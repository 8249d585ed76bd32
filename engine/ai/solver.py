"""Exact alpha-beta over a ``Position`` with every hand known, with a transposition table.

The value is the signed base of the contract (team NS positive, EW negative): the game points without the
multiplier, which is constant during play. Both members of a team maximise their team's value (the game is
zero-sum between teams). The table is keyed at trick boundaries only: there the rest of the hand depends
on the cards left, the leader and the scores, not on the order in which earlier cards fell.
"""

from __future__ import annotations

from functools import cache
from typing import Final

from ..cards import SUITS
from .accelerator import compiled_copy
from .compact import (
    ALL_TRICKS,
    BEGGAR,
    KING_QUEEN,
    NORMAL,
    POINTS,
    SCHNAPSER,
    SUIT_MASK,
    SUIT_OF,
    Position,
    SearchAborted,
    Table,
)

INFINITY: Final = 1000
HAND: Final = (1 << 20) - 1  # one seat's 20 bits of a hands word (``Solver._node``)


class Solver:
    def __init__(self, table: Table, node_limit: int = 10**9) -> None:
        self.table = table
        self.node_limit = node_limit
        self.nodes = 0
        # Bounds per position at a trick boundary: ``(lower + INFINITY) << 11 | (upper + INFINITY)``.
        self.cache: dict[tuple[int, int], int] = {}
        # Move lists per hand and situation; a move is ``card | marriage value << 5`` (one int is cheaper
        # to store and take apart than a pair).
        self.orders: dict[int, list[int]] = {}
        # Point-free contracts: only who wins tricks matters, so touching cards of one hand are equivalent.
        self.point_free = table.family in (BEGGAR, ALL_TRICKS)
        # Every value lies in [-bound, bound]: the normal game scores 1 to 3, a contract its value.
        self.bound = 3 if table.family == NORMAL else table.value
        # Move ordering: the Bettler declarer wants to lose tricks, everyone else to win them.
        self.ducker = table.declarer if table.family == BEGGAR else -1
        self.lead_order = sorted(range(20), key=lambda i: (-table.strength[i], i))
        self.duck_order = self.lead_order[::-1]
        # The normal game's values narrow as points fall (``_normal_range``); tests may switch it off.
        self.normal = table.family == NORMAL and table.players == 4
        # Marriages a team may still announce: (K and Q of the suit, value), per suit.
        self.pairs = [(KING_QUEEN[suit], 40 if SUITS[suit] == table.trump else 20) for suit in range(4)]
        self.suit_order = [
            sorted(range(5 * s, 5 * s + 5), key=lambda i: -table.strength[i]) for s in range(4)
        ]
        # ``_drop_equivalent`` looks its answer up per suit (it runs at most nodes of point-free contracts).
        self.run_heads = [_run_heads(tuple(order)) for order in self.suit_order]
        # The table's fixed facts as typed attributes of the solver: the search reads them at every node,
        # and the compiled solver (docs/ai.md) reads its own attributes far faster than a Python object's.
        self.beats: list[int] = list(table.beats)
        self.next_seat: list[int] = list(table.next_seat)
        self.players: int = table.players
        self.is_normal = table.family == NORMAL
        self.is_beggar = table.family == BEGGAR
        self.is_schnapser = table.family == SCHNAPSER
        self.declarer: int = table.declarer
        self.value: int = table.value
        self.claim = table.rules.schnapser_marriages == "claim"
        self.suit_of: list[int] = list(SUIT_OF)
        self.card_points: list[int] = list(POINTS)
        # ``legal_mask``'s facts, so the search computes legal cards here instead of calling the table.
        self.suit_mask: list[int] = list(SUIT_MASK)
        self.above: list[int] = list(table.above)
        self.trump_mask: int = table.trump_mask
        self.must_beat: bool = table.must_beat
        self.undertrump: bool = table.rules.undertrump_required
        # Move lists and legal cards are functions of the table and their key alone, so the solvers of one
        # table (the decisions of a deal) share them (``_shared_memo``). Not the point-free contracts' lead
        # orders: those thin by the live cards of the world that first met them, so they stay per solver.
        shared = _shared_memo(table)
        # Replies per hand and trick (contracts with points; point-free ones thin by the live cards).
        self.replies: dict[int, list[int]] = shared[0]
        # Legal cards per hand and trick (point-free contracts, whose replies also depend on other hands).
        self.legal: dict[int, int] = shared[1]
        if not self.point_free:
            self.orders = shared[2]

    def solve(self, pos: Position, alpha: int | None = None, beta: int | None = None) -> int:
        """The exact value of ``pos`` (within the window, as usual for alpha-beta). The default window is
        the contract's whole range of values, [-bound, bound]: a side that reaches the bound needs to look
        no further, which cuts many branches at no loss of exactness."""
        if alpha is None:
            alpha = -self.bound
        if beta is None:
            beta = self.bound
        hands = pos.hands
        trick = pos.trick
        if trick:
            # ``compact.trick_winner`` and the trick's points, here so the compiled solver calls no Python
            # function at each of a decision's thousands of searches (no card beats itself).
            win_seat, win_card = trick[0]
            led = self.suit_of[win_card]
            trick_points = 0
            beats = self.beats
            for seat, card in trick:
                trick_points += self.card_points[card]
                if beats[win_card] >> card & 1:
                    win_seat, win_card = seat, card
        else:
            win_seat = win_card = led = -1
            trick_points = 0
        return self._node(
            pos.to_act,
            len(trick),
            led,
            win_card,
            win_seat,
            trick_points,
            pos.trick_no,
            pos.points[0],
            pos.points[1],
            pos.tricks[0],
            pos.tricks[1],
            pos.marriages[0],
            pos.marriages[1],
            self._trick_cards_mask(trick),
            hands[0] | hands[1] << 20,
            hands[2] | hands[3] << 20,
            alpha,
            beta,
        )

    def solve_mtd(self, pos: Position, guess: int = 0) -> int:
        """The exact value of ``pos`` by null-window searches converging from ``guess`` (MTD(f))."""
        lower, upper = -self.bound, self.bound
        g = max(lower, min(upper, guess))
        while lower < upper:
            beta = g if g > lower else g + 1
            g = self.solve(pos, beta - 1, beta)
            if g < beta:
                upper = g
            else:
                lower = g
        return g

    @staticmethod
    def _trick_cards_mask(trick: list[tuple[int, int]]) -> int:
        mask = 0
        for _, card in trick:
            mask |= 1 << card
        return mask

    # The recursion passes the whole mutable state as arguments: local variables are the fastest storage
    # CPython has, nothing needs undoing, and the compiled solver keeps them as machine integers. The hands
    # travel as two words, ``low`` (seats 0 and 1) and ``high`` (seats 2 and 3), 20 bits a seat: a seat's hand
    # is ``(high if seat & 2 else low) >> 20 * (seat & 1) & HAND``, and they are the halves of the
    # transposition key.
    def _node(
        self,
        seat: int,
        in_trick: int,
        led: int,
        win_card: int,
        win_seat: int,
        trick_points: int,
        trick_no: int,
        p0: int,
        p1: int,
        t0: int,
        t1: int,
        m0: int,
        m1: int,
        trick_mask: int,
        low: int,
        high: int,
        alpha: int,
        beta: int,
    ) -> int:
        self.nodes += 1
        if self.nodes > self.node_limit:
            raise SearchAborted
        shift = 20 if seat & 1 else 0
        hand = (high if seat & 2 else low) >> shift & HAND
        key = None
        entry = -1
        if in_trick == 0:
            if trick_no == 5:
                return self._last_trick(seat, p0, p1, t0, t1, m0, m1, low, high)
            if self.normal:
                least, most = self._normal_range(p0, p1, t0, t1, m0, m1, low, high)
                if most <= alpha:
                    return most
                if least >= beta:
                    return least
                if least > alpha:
                    alpha = least
                if most < beta:
                    beta = most
            # Two integers below 2**62 (hands, scores, marriages, who leads, whether a team has a trick).
            key = (
                low | m0 << 40 | m1 << 47 | (t0 > 0) << 54 | (t1 > 0) << 55,
                high | seat << 40 | p0 << 42 | p1 << 49,
            )
            entry = self.cache.get(key, -1)
            if entry >= 0:
                lower = (entry >> 11) - INFINITY
                upper = (entry & 2047) - INFINITY
                if lower == upper or lower >= beta:
                    return lower
                if upper <= alpha:
                    return upper
                if lower > alpha:
                    alpha = lower
                if upper < beta:
                    beta = upper
            order_key = hand | seat << 20 | trick_no << 22
            moves = self.orders.get(order_key)
            if moves is None:
                moves = self.orders[order_key] = self._lead_moves(seat, hand, trick_no, _live(low, high))
        else:
            # Orders are remembered per solver: the same hand meets the same trick in many worlds.
            partner_wins = (win_seat ^ seat) & 1 == 0
            last = in_trick + 1 == self.players
            if self.point_free:
                legal_key = hand | led << 20 | win_card << 22
                legal = self.legal.get(legal_key, -1)
                if legal < 0:
                    legal = self.legal[legal_key] = self._legal_mask(hand, led, win_card)
                legal = self._drop_equivalent(legal, _live(low, high) | trick_mask)
                duck = seat == self.ducker
                order_key = legal | win_card << 20 | partner_wins << 25 | last << 26 | 1 << 27 | duck << 28
                moves = self.orders.get(order_key)
                if moves is None:
                    moves = self.orders[order_key] = self._follow_order(
                        legal, win_card, duck, partner_wins, last
                    )
            else:
                # Nobody ducks here: only a Bettler declarer does, and the Bettler is point-free.
                reply_key = hand | led << 20 | win_card << 22 | partner_wins << 27 | last << 28
                moves = self.replies.get(reply_key)
                if moves is None:
                    legal = self._legal_mask(hand, led, win_card)
                    moves = self.replies[reply_key] = self._follow_order(
                        legal, win_card, False, partner_wins, last
                    )
        maximising = seat & 1 == 0
        alpha0 = alpha
        beta0 = beta
        best = -INFINITY if maximising else INFINITY
        beats = self.beats
        card_points = self.card_points
        last_of_trick = in_trick + 1 == self.players
        following = self.next_seat[seat]
        for move in moves:
            card = move & 31
            marriage = move >> 5
            bit = 1 << card
            if seat & 2:
                after_low, after_high = low, high ^ bit << shift
            else:
                after_low, after_high = low ^ bit << shift, high
            if marriage:
                found = self._marriage(seat, marriage, p0, p1, t0, t1, m0, m1)
                if found is None:
                    if seat & 1 == 0:
                        m0_after, m1_after = m0 + marriage, m1
                    else:
                        m0_after, m1_after = m0, m1 + marriage
                    value = self._node(
                        following, 1, self.suit_of[card], card, seat, card_points[card], trick_no,
                        p0, p1, t0, t1, m0_after, m1_after, bit, after_low, after_high, alpha, beta,
                    )  # fmt: skip
                else:
                    value = found
            else:
                if in_trick == 0:
                    value = self._node(
                        following, 1, self.suit_of[card], card, seat, card_points[card], trick_no,
                        p0, p1, t0, t1, m0, m1, bit, after_low, after_high, alpha, beta,
                    )  # fmt: skip
                else:
                    if beats[win_card] & bit:
                        new_card = card
                        new_seat = seat
                    else:
                        new_card = win_card
                        new_seat = win_seat
                    points = trick_points + card_points[card]
                    if not last_of_trick:
                        value = self._node(
                            following, in_trick + 1, led, new_card, new_seat, points, trick_no,
                            p0, p1, t0, t1, m0, m1, trick_mask | bit, after_low, after_high, alpha, beta,
                        )  # fmt: skip
                    else:
                        if new_seat & 1 == 0:
                            q0, q1, u0, u1 = p0 + points, p1, t0 + 1, t1
                        else:
                            q0, q1, u0, u1 = p0, p1 + points, t0, t1 + 1
                        ended = self._end(new_seat, trick_no, q0, q1, u0, u1, m0, m1)
                        if ended is None:
                            value = self._node(
                                new_seat, 0, -1, -1, -1, 0, trick_no + 1,
                                q0, q1, u0, u1, m0, m1, 0, after_low, after_high, alpha, beta,
                            )  # fmt: skip
                        else:
                            value = ended
            if maximising:
                if value > best:
                    best = value
                    if value > alpha:
                        alpha = value
            else:
                if value < best:
                    best = value
                    if value < beta:
                        beta = value
            if alpha >= beta:
                break
        if key is not None:
            if entry >= 0:
                lower = (entry >> 11) - INFINITY
                upper = (entry & 2047) - INFINITY
            else:
                lower = -INFINITY
                upper = INFINITY
            if best <= alpha0:
                upper = min(upper, best)
            elif best >= beta0:
                lower = max(lower, best)
            else:
                lower = upper = best
            self.cache[key] = (lower + INFINITY) << 11 | (upper + INFINITY)
        return best

    def _normal_range(
        self, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int, low: int, high: int
    ) -> tuple[int, int]:
        """The values the normal game can still end with, at a trick boundary: a team that cannot reach
        66 any more (card points left plus the marriages its hands may still announce) wins at most the
        last trick (1); a team whose opponents hold a trick cannot win 3, nor 2 once they hold 33."""
        left = 120 - p0 - p1
        if p0 + m0 + left < 66 and p0 + m0 + left + self._pending(low & HAND, high & HAND) < 66:
            high = 1
        elif t1 == 0:
            high = 3
        else:
            high = 2 if p1 + m1 < 33 else 1
        if p1 + m1 + left < 66 and p1 + m1 + left + self._pending(low >> 20, high >> 20) < 66:
            low = -1
        elif t0 == 0:
            low = -3
        else:
            low = -2 if p0 + m0 < 33 else -1
        return low, high

    def _legal_mask(self, hand: int, led_suit: int, winning: int) -> int:
        """``Table.legal_mask`` on the solver's own attributes (tests/engine/ai/test_solver.py holds them
        equal)."""
        follow = hand & self.suit_mask[led_suit]
        if follow:
            if self.must_beat and self.suit_of[winning] == led_suit:
                higher = follow & self.above[winning]
                if higher:
                    return higher
            return follow
        trumps = hand & self.trump_mask
        if trumps:
            if not self.must_beat:
                return trumps
            over = trumps & self.beats[winning]
            if over:
                return over
            return trumps if self.undertrump else hand
        return hand

    def _pending(self, hand: int, partner: int) -> int:
        """The marriages a team's two hands may still announce."""
        total = 0
        for pair, value in self.pairs:
            if hand & pair == pair or partner & pair == pair:
                total += value
        return total

    def _lead_moves(self, seat: int, hand: int, trick_no: int, live: int) -> list[int]:
        table = self.table
        options = table.marriage_options(seat, hand, trick_no)
        announced_suits = {suit for suit, _ in options}
        moves = []
        if options:
            for suit, value in options:
                pair = hand & KING_QUEEN[suit]
                moves.append((pair & -pair).bit_length() - 1 | value << 5)
        mask = hand
        if self.point_free:
            mask = self._drop_equivalent(mask, live)
        # Strongest cards first (a Bettler declarer: weakest first): the likely best leads, so the window
        # narrows early (about an eighth fewer nodes in the normal game than suit-by-suit order).
        for card in self.duck_order if seat == self.ducker else self.lead_order:
            if not mask >> card & 1:
                continue
            # In the normal game announcing never hurts (points only add up), so the plain lead of a
            # marriage card is dominated; K and Q of an announced pair lead alike, so one of them is enough.
            if SUIT_OF[card] in announced_suits and self.is_normal and card % 5 in (2, 3):
                continue
            moves.append(card)
        return moves

    def _follow_order(
        self, legal: int, win_card: int, duck: bool = False, partner_wins: bool = False, last: bool = False
    ) -> list[int]:
        """Likely best replies first. Against an opponent's card: the cards that win the trick so far
        (the cheapest first when playing last), then the rest from the lowest; on a partner's card: the
        cards that leave it winning, richest first (smearing), then the rest. A Bettler declarer: the
        cards that do not win first."""
        winners = legal & self.beats[win_card]
        rest = legal ^ winners
        if duck or partner_wins:
            return _card_moves(rest, strongest_first=False) + _card_moves(winners, strongest_first=False)
        return _card_moves(winners, strongest_first=last) + _card_moves(rest, strongest_first=True)

    def _drop_equivalent(self, mask: int, live: int) -> int:
        """Keep one card of each run of cards that touch in rank among the ``live`` cards of its suit (those
        in the hands and in the trick)."""
        heads = self.run_heads
        return (
            heads[0][(live & 31) << 5 | mask & 31]
            | heads[1][(live >> 5 & 31) << 5 | mask >> 5 & 31] << 5
            | heads[2][(live >> 10 & 31) << 5 | mask >> 10 & 31] << 10
            | heads[3][(live >> 15 & 31) << 5 | mask >> 15 & 31] << 15
        )

    def _marriage(
        self, seat: int, value: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int
    ) -> int | None:
        """The signed base when announcing a marriage ends the hand, else None (RULES.md 6.2)."""
        team = seat & 1
        if self.is_normal:
            if team == 0:
                if t0 and p0 + m0 + value >= 66:
                    return _normal_base(t1, p1 + (m1 if t1 else 0))
            elif t1 and p1 + m1 + value >= 66:
                return -_normal_base(t0, p0 + (m0 if t0 else 0))
            return None
        sign = 1 if team == 0 else -1
        points = p0 if team == 0 else p1
        if self.claim:
            return sign * self.value if points + value >= 66 else -sign * self.value
        if points + (m0 if team == 0 else m1) + value >= 66:
            return sign * self.value
        return None

    def _last_trick(
        self, leader: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int, low: int, high: int
    ) -> int:
        """Trick 5: every hand holds one card, so there is nothing left to choose."""
        beats = self.beats
        card_points = self.card_points
        next_seat = self.next_seat
        card = ((high if leader & 2 else low) >> (20 if leader & 1 else 0) & HAND).bit_length() - 1
        win_card = card
        win_seat = leader
        points = card_points[card]
        seat = leader
        for _ in range(self.players - 1):
            seat = next_seat[seat]
            card = ((high if seat & 2 else low) >> (20 if seat & 1 else 0) & HAND).bit_length() - 1
            if beats[win_card] >> card & 1:
                win_card = card
                win_seat = seat
            points += card_points[card]
        if win_seat & 1 == 0:
            p0, t0 = p0 + points, t0 + 1
        else:
            p1, t1 = p1 + points, t1 + 1
        value = self._end(win_seat, 5, p0, p1, t0, t1, m0, m1)
        assert value is not None
        return value

    def _end(
        self, winner: int, trick_no: int, p0: int, p1: int, t0: int, t1: int, m0: int, m1: int
    ) -> int | None:
        if self.is_normal:
            if winner & 1 == 0:
                if p0 + m0 >= 66:
                    return _normal_base(t1, p1 + (m1 if t1 else 0))
                return 1 if trick_no == 5 else None
            if p1 + m1 >= 66:
                return -_normal_base(t0, p0 + (m0 if t0 else 0))
            return -1 if trick_no == 5 else None
        declarer = self.declarer
        sign = 1 if declarer & 1 == 0 else -1
        value = self.value
        if self.is_beggar:
            if winner == declarer:
                return -sign * value
            return sign * value if trick_no == 5 else None
        if winner != declarer:
            return -sign * value
        if self.is_schnapser:
            if (p0 + m0 if sign == 1 else p1 + m1) >= 66:
                return sign * value
            return -sign * value if trick_no == 3 else None
        return sign * value if trick_no == 5 else None


# Per table (its multiplier aside): the replies, legal cards and move orders its solvers share, for the
# few tables met last (a process serves many deals; an entry only saves time, so dropping one is safe).
SHARED_TABLES: Final = 8
SHARED_ENTRIES: Final = 200_000
Memo = tuple[dict[int, list[int]], dict[int, int], dict[int, list[int]]]  # replies, legal cards, orders
_memos: dict[tuple[object, ...], Memo] = {}


def _shared_memo(table: Table) -> Memo:
    key = (table.rules, table.contract, table.trump, table.declarer, table.sitting_out)
    memo = _memos.pop(key, None)
    if memo is None or len(memo[0]) + len(memo[1]) + len(memo[2]) > SHARED_ENTRIES:
        memo = ({}, {}, {})
    _memos[key] = memo  # newest last
    while len(_memos) > SHARED_TABLES:
        del _memos[next(iter(_memos))]
    return memo


def _card_moves(mask: int, *, strongest_first: bool) -> list[int]:
    """The cards of ``mask`` as moves (no marriage), by card index from the highest or from the lowest."""
    moves = []
    while mask:
        card = mask.bit_length() - 1 if strongest_first else (mask & -mask).bit_length() - 1
        moves.append(card)
        mask ^= 1 << card
    return moves


@cache
def _run_heads(order: tuple[int, ...]) -> tuple[int, ...]:
    """For one suit, its cards strongest first: per ``live << 5 | held`` (the suit's five bits of the live
    cards and of the cards to thin), the held cards that head a run of held cards touching among the live
    ones. A handful of card orders exist, so each table is built once per process."""
    low = 5 * (order[0] // 5)
    heads = []
    for index in range(1024):
        live, held = index >> 5, index & 31
        kept = 0
        previous_held = False
        for card in order:
            bit = 1 << (card - low)
            if not live & bit:
                continue
            mine = bool(held & bit)
            if mine and not previous_held:
                kept |= bit
            previous_held = mine
        heads.append(kept)
    return tuple(heads)


def _live(low: int, high: int) -> int:
    """The cards in the four hands of the two words ``low`` and ``high``."""
    both = low | high
    return (both | both >> 20) & HAND


def _normal_base(loser_tricks: int, loser_total: int) -> int:
    if loser_tricks == 0:
        return 3
    return 2 if loser_total < 33 else 1


# The accelerator (docs/ai.md, ``accelerator``): setup.py compiles a copy of this file with mypyc as
# ``_solver_compiled``. It replaces ``Solver`` below only while this file still has the hash written into
# it, so an edit here is never shadowed by a stale build: the edited pure Python runs until the next install.
PureSolver = Solver
_compiled = compiled_copy(__name__, __file__)
KIND = "pure" if _compiled is None else "compiled"
if _compiled is not None:
    globals()["Solver"] = _compiled.Solver


def solver_classes() -> dict[str, type[Solver]]:
    """Every solver this process has: "pure" always, "compiled" where the accelerator is built and current."""
    classes = {"pure": PureSolver}
    if _compiled is not None:
        classes["compiled"] = _compiled.Solver
    return classes


__all__ = ["INFINITY", "KIND", "SUITS", "PureSolver", "SearchAborted", "Solver", "solver_classes"]
