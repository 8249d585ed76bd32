"""What a seat knows about the hidden cards, derived from its ``PlayerView`` alone, and sampling of the
hidden cards consistent with it.

Facts used: the seat's own cards, every card played, the Aufschlag card, the partner card of an announced
marriage, the voids and "could not beat" facts that Farb-, Stich- and Trumpfzwang reveal, the forehand
holding a card of the suit he named, an Ass-Bettler declarer holding an ace. All of these are of the form
"seat s holds card c" or "seat s cannot hold card c" except the last two, which are checked on each sample.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass

from ..cards import SUITS
from ..contracts import IMMEDIATE_CONTRACTS, Contract
from ..ruleset import STANDARD, Ruleset
from ..state import PLAY, TRUMP
from ..views import PlayerView
from .accelerator import compiled_copy
from .compact import ALL_CARDS, BIT, INDEX, SUIT_MASK, SUIT_OF, Table, mask_of, shared_table

C = Contract


@dataclass
class Knowledge:
    seat: int
    own: int  # cards the seat holds now (in the trump phase: its first three)
    played_by: list[int]  # per seat: cards it has played (completed tricks and the trick in progress)
    need: list[int]  # per seat: hidden cards still to place (the seat's own two unseen ones in trump phase)
    known: list[int]  # per seat: hidden cards known to be in its hand (subset of the cards to place)
    forbidden: list[int]  # per seat: cards it cannot hold
    # Per seat, a mask of which it must have been dealt at least one card (dealt = held + played).
    at_least_one: list[tuple[int, int]]
    unknown: int  # cards whose place is not known, to be distributed

    def dealt_mask(self, seat: int, held: int) -> int:
        return held | self.played_by[seat]


def rules_of(view: PlayerView, rules: Ruleset | None) -> Ruleset:
    """The rules the seat plays by: explicit, or a ``rules`` field of the view if it has one."""
    return rules or getattr(view, "rules", None) or STANDARD


def table_of(view: PlayerView, rules: Ruleset) -> Table | None:
    if view.contract is None or view.declarer is None or view.contract in IMMEDIATE_CONTRACTS:
        return None
    return shared_table(rules, view.contract, view.trump, view.declarer, view.sitting_out, view.multiplier)


def gather(view: PlayerView, rules: Ruleset) -> Knowledge:
    assert view.seat is not None
    me = view.seat
    played_by = [0, 0, 0, 0]
    for seat, card in (*view.witnessed, *view.trick):
        played_by[seat] |= BIT[card]
    own = mask_of(view.hand)
    if view.phase == TRUMP:
        need = [5, 5, 5, 5]
        need[me] = 2
    else:
        need = [view.hand_sizes[s] for s in range(4)]
        need[me] = 0
    known = [0, 0, 0, 0]
    forbidden = [0, 0, 0, 0]
    for seat in range(4):
        if seat != me:
            known[seat] |= mask_of(view.known_cards[seat])
    played = played_by[0] | played_by[1] | played_by[2] | played_by[3]
    for marriage in view.marriages:
        pair = BIT[marriage.suit + "K"] | BIT[marriage.suit + "Q"]
        rest = pair & ~played & ~own
        if marriage.seat != me:
            known[marriage.seat] |= rest
    table = table_of(view, rules)
    if table is not None and view.phase == PLAY:
        _obligation_facts(view, table, forbidden)
    at_least_one: list[tuple[int, int]] = []
    if view.trump is not None and view.aufschlag_card is None and view.forehand != me:
        at_least_one.append((view.forehand, SUIT_MASK[SUITS.index(view.trump)]))
    for seat, contract in view.auction:
        if contract is C.ASS_BETTLER and seat != me:
            at_least_one.append((seat, sum(BIT[s + "A"] for s in SUITS)))
    placed = known[0] | known[1] | known[2] | known[3]
    unknown = ALL_CARDS & ~own & ~played & ~placed
    for seat in range(4):
        need[seat] -= bin(known[seat]).count("1")
    return Knowledge(me, own, played_by, need, known, forbidden, at_least_one, unknown)


def _obligation_facts(view: PlayerView, table: Table, forbidden: list[int]) -> None:
    """Voids and 'could not beat' facts from every trick this seat watched (RULES.md section 5)."""
    plays = list(view.witnessed)
    size = table.players
    tricks = [plays[i : i + size] for i in range(0, len(plays), size)]
    if view.trick:
        tricks.append(list(view.trick))
    for trick in tricks:
        led_suit = SUIT_OF[INDEX[trick[0][1]]]
        winning = INDEX[trick[0][1]]
        for seat, card_text in trick[1:]:
            card = INDEX[card_text]
            suit = SUIT_OF[card]
            beat = table.beats[winning] >> card & 1
            if suit == led_suit:
                if table.must_beat and SUIT_OF[winning] == led_suit and not beat:
                    forbidden[seat] |= table.above[winning]
            else:
                forbidden[seat] |= SUIT_MASK[led_suit]
                trumps = table.trump_mask
                if trumps and suit != table.trump_suit:
                    if table.rules.undertrump_required or not table.must_beat:
                        forbidden[seat] |= trumps
                    else:
                        forbidden[seat] |= trumps & table.beats[winning]
                elif trumps and table.must_beat and not beat:
                    forbidden[seat] |= trumps & table.beats[winning]
            if beat:
                winning = card


# Per seat the mask of cards it holds in a drawn world -> is that world plausible / how likely is it.
Plausible = Callable[[list[int]], bool]
Weight = Callable[[list[int]], float]


# ``Sampler._attempt`` draws as ``random.Random.randrange(n)`` does for n > 0 (``_randbelow_with_getrandbits``),
# inline, where this Python's Random draws so; tests/engine/ai/test_sampler_draws.py holds the two equal.
INLINE_DRAWS = getattr(random.Random, "_randbelow", None) is getattr(
    random.Random, "_randbelow_with_getrandbits", object()
)


# ``total.bit_length()`` for every total a draw meets (at most the 20 cards of the deck).
_WIDTHS = [n.bit_length() for n in range(21)]


class Sampler:
    """Draws hidden-card worlds: per seat the mask of cards it holds now (its own hand included).

    ``weight`` (optional, hands -> probability) is the bidder model: a drawn world is kept with that
    probability, so worlds come in proportion to how likely they make what the other seats said. Weighing
    costs a search per new hand, so at most ``weigh_limit`` worlds are weighed per sampler, and none once
    ``exhausted()`` (the decision's allowance for those searches is spent); after that ``draw_weighted``
    returns None (the decision then uses the worlds it has)."""

    def __init__(
        self,
        knowledge: Knowledge,
        rng: random.Random,
        plausible: Plausible | None = None,
        weight: Weight | None = None,
        weigh_limit: int = 150,
        exhausted: Callable[[], bool] | None = None,
    ) -> None:
        self.k = knowledge
        self.rng = rng
        self.plausible = plausible  # optional check(hands) -> bool, tried first and dropped if too rare
        self.weight = weight
        self.weigh_left = weigh_limit
        self.exhausted = exhausted
        self.kept = 0
        cards = []
        mask = knowledge.unknown
        while mask:
            low = mask & -mask
            cards.append(low.bit_length() - 1)
            mask ^= low
        allowed = {c: [s for s in range(4) if knowledge.need[s] > 0 and not knowledge.forbidden[s] >> c & 1]
                   for c in cards}  # fmt: skip
        # Most constrained cards first, so dead ends are rare.
        self.cards = sorted(cards, key=lambda c: len(allowed[c]))
        self.allowed = allowed
        # Per card in placing order, its bit and the seats that may hold it: ``_attempt`` runs up to 40
        # times per world when a bidder's hand is checked, so it reads these instead of rebuilding them.
        # A card whose seats are the previous card's (``same``) has one card less among them to share than
        # that one had: its total needs no sum.
        self.placing = [
            (1 << card, allowed[card], i > 0 and allowed[card] == allowed[self.cards[i - 1]])
            for i, card in enumerate(self.cards)
        ]
        base = list(knowledge.known)
        base[knowledge.seat] |= knowledge.own
        self.base = base
        self.relaxed = False

    def _base(self) -> list[int]:
        return list(self.base)

    def _ok(self, hands: list[int]) -> bool:
        # Most decisions have no such fact: no generator to start then.
        return not self.k.at_least_one or all(
            self.k.dealt_mask(seat, hands[seat]) & mask for seat, mask in self.k.at_least_one
        )

    def draw_weighted(self) -> list[int] | None:
        """A world kept with probability ``weight(world)``; None once the weighing budget is spent (then,
        if no world was ever kept, the likeliest one seen)."""
        assert self.weight is not None, "a weighted draw needs a weight"
        best: list[int] | None = None
        best_weight = -1.0
        for _ in range(20 * max(0, self.weigh_left)):
            if self.weigh_left <= 0 or (self.exhausted is not None and self.exhausted()):
                break
            hands = self._attempt()
            if hands is None or not self._ok(hands):
                continue
            self.weigh_left -= 1
            weight = self.weight(hands)
            if self.rng.random() < weight:
                self.kept += 1
                return hands
            if weight > best_weight:
                best, best_weight = hands, weight
        if self.kept == 0 and best is not None:
            self.kept += 1
            return best
        return None

    def draw(self) -> list[int]:
        plausible = self.plausible
        plausible_tries = 40 if plausible is not None else 0
        for attempt in range(400):
            hands = self._attempt()
            if hands is None or not self._ok(hands):
                continue
            if plausible is not None and attempt < plausible_tries and not plausible(hands):
                continue
            return hands
        # Facts can only be inconsistent if the view was built by other rules than assumed: place freely.
        self.relaxed = True
        return self._free()

    def _attempt(self) -> list[int] | None:
        """Each card to a seat that may hold it, chosen in proportion to the cards the seat still needs."""
        need = list(self.k.need)
        hands = list(self.base)
        rng = self.rng
        inline = INLINE_DRAWS and type(rng) is random.Random
        randrange = rng.randrange
        getrandbits = rng.getrandbits
        widths = _WIDTHS
        total = 0
        for bit, seats, same in self.placing:
            if same:
                total -= 1  # the previous card went to one of these very seats
            else:
                total = 0
                for seat in seats:
                    total += need[seat]
            if not total:
                return None
            if inline:
                # What ``randrange(total)`` returns, drawn as random.py draws it: the sampler places
                # hundreds of thousands of cards per decision, and the call costs a third of its time.
                width = widths[total]
                pick = getrandbits(width)
                while pick >= total:
                    pick = getrandbits(width)
            else:
                pick = randrange(total)
            # A seat that needs nothing more subtracts 0 and cannot be picked: pick is never negative
            # before the seat that takes the card.
            for seat in seats:
                pick -= need[seat]
                if pick < 0:
                    break
            need[seat] -= 1
            hands[seat] |= bit
        return hands

    def _free(self) -> list[int]:
        need = list(self.k.need)
        hands = self._base()
        cards = list(self.cards)
        self.rng.shuffle(cards)
        for card in cards:
            seat = next(s for s in range(4) if need[s] > 0)
            need[seat] -= 1
            hands[seat] |= 1 << card
        return hands

    def upper_bound(self) -> int:
        """Number of ways to place the unknown cards ignoring the forbidden facts."""
        remaining = len(self.cards)
        count = 1
        for n in self.k.need:
            if n > 0:
                count *= math.comb(remaining, n)
                remaining -= n
        return count

    def enumerate(self, limit: int) -> list[list[int]] | None:
        """Every consistent world if there are at most ``limit``, else None."""
        if self.upper_bound() > limit * 50:
            return None
        worlds: list[list[int]] = []
        need = list(self.k.need)
        hands = self._base()
        cards = self.cards

        def place(i: int) -> bool:
            if i == len(cards):
                if self._ok(hands):
                    worlds.append(list(hands))
                return len(worlds) <= limit
            card = cards[i]
            for seat in self.allowed[card]:
                if need[seat] > 0:
                    need[seat] -= 1
                    hands[seat] |= 1 << card
                    going = place(i + 1)
                    hands[seat] &= ~(1 << card)
                    need[seat] += 1
                    if not going:
                        return False
            return True

        place(0)
        if len(worlds) > limit or not worlds:
            return None
        return worlds


# The accelerator (docs/ai.md, ``accelerator``): setup.py compiles a copy of this file with mypyc as
# ``_knowledge_compiled``; while this file still has the hash written into it, its ``gather`` and ``Sampler``
# replace the ones above (a compiled Sampler takes the compiled Knowledge that the compiled gather returns;
# ``Knowledge`` here stays the pure class, which only types it).
PureSampler = Sampler
pure_gather = gather
_compiled = compiled_copy(__name__, __file__)
KIND = "pure" if _compiled is None else "compiled"
if _compiled is not None:
    globals()["gather"] = _compiled.gather
    globals()["Sampler"] = _compiled.Sampler


Implementation = tuple[Callable[[PlayerView, Ruleset], Knowledge], type[Sampler]]


def implementations() -> dict[str, Implementation]:
    """Every (gather, Sampler) pair this process has: "pure" always, "compiled" where the accelerator is
    built and current."""
    found: dict[str, Implementation] = {"pure": (pure_gather, PureSampler)}
    if _compiled is not None:
        found["compiled"] = (_compiled.gather, _compiled.Sampler)
    return found
