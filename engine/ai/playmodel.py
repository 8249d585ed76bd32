"""How likely a player chooses each card: a model of the AI's own card play, read by the inference from play.

The card play of the normal game weighs each world by how likely it makes the other seats' choices so far
(``pimc._play_likelihood``). This module gives that chance per card for a seat's cards at a moment of play:
a conditional logit, ``P(card) = exp(w . f(card)) / sum over the cards to choose from``, over a few features
of each card that a player sees (is it greedy's card, its points, is it a sure top card led, does it smear
points on the partner's trick or give them to the opponents, ...). The weights were fitted by maximum
likelihood to the choices of the AI itself in self-play of normal games (``tools/fit_play_model.py``;
docs/ai-history.md gives the data and the fit).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..actions import PlayCard
from ..cards import CARD_POINTS, DECK
from .compact import BIT, INDEX, KING_QUEEN, Table, mask_of, trick_winner
from .greedy import Moment

FEATURES = (
    "greedy",  # greedy's card
    "points",  # the card's points / 11
    "trump",  # a trump
    "lead_sure",  # led, and the best card left in its suit
    "lead_trump",  # led, and a trump
    "smear",  # on the partner's winning card: its points / 11
    "give",  # on an opponent's winning card, not beating it: its points / 11
    "lowest",  # the lowest card the seat holds in its suit
    "breaks_pair",  # a King or Ober whose mate the seat holds (played without the marriage's points)
    "top_legal",  # the highest card of its suit among those the seat may play
    "suit_length",  # how many cards of its suit the seat holds / 5
    "singleton",  # the seat's only card of its suit
)
# Whether a card wins the trick is no feature: the normal game's Stichzwang makes every card the seat may
# play win, or none, so it tells the cards to choose from nothing apart.

# Fitted by tools/fit_play_model.py on 3,934 choices of 600 self-played normal games (seeds 920000-920599);
# held-out log-likelihood per choice -0.634, against -0.691 for the flat model the inference used before
# (greedy's card 0.75, the others alike).
WEIGHTS: tuple[float, ...] = (
    1.630,
    0.382,
    0.310,
    0.939,
    0.310,
    -0.405,
    -2.481,
    0.105,
    -0.206,
    0.088,
    -0.451,
    -0.034,
)
_SUIT = [0b11111 << (5 * (i // 5)) for i in range(20)]
# The cards of a card's suit ranked above it (a suit's bits run from its Ace down to its Unter).
_ABOVE = [_SUIT[i] & ((1 << i) - 1) for i in range(20)]
_BELOW = [_SUIT[i] & ~((1 << (i + 1)) - 1) for i in range(20)]
_POINTS = [CARD_POINTS[card] / 11 for card in DECK]
_PAIRED = [KING_QUEEN[i // 5] if DECK[i][1] in "KQ" else 0 for i in range(20)]


def features(moment: Moment, table: Table, greedys: str) -> dict[str, list[float]]:
    """Each card the seat may play at ``moment`` (marriage announcements are the same card) -> its features,
    in ``FEATURES`` order; ``greedys`` is greedy's card there."""
    legal = 0
    for action in moment.legal:
        if isinstance(action, PlayCard):
            legal |= BIT[action.card]
    seat = moment.seat
    assert seat is not None
    held = mask_of(moment.hand)
    trump = table.trump_suit
    trick = moment.trick
    leading = not trick
    partner_wins = False
    if leading:
        gone = held | mask_of(card for _, card in moment.witnessed)
    else:
        plays = [(s, INDEX[c]) for s, c in trick]
        win_seat, win_index = trick_winner(table, plays)
        partner_wins = win_seat == (seat + 2) % 4
        beats = table.beats[win_index]
    out: dict[str, list[float]] = {}
    for index in range(20):
        if not legal >> index & 1:
            continue
        card = DECK[index]
        points = _POINTS[index]
        is_trump = float(index // 5 == trump)
        length = (held & _SUIT[index]).bit_count()
        paired = _PAIRED[index]
        row = [
            float(card == greedys),
            points,
            is_trump,
            float(leading and not _ABOVE[index] & ~gone),
            is_trump if leading else 0.0,
            points if partner_wins else 0.0,
            points if not leading and not partner_wins and not beats >> index & 1 else 0.0,
            float(not held & _BELOW[index]),
            float(paired != 0 and held & paired == paired),
            float(not legal & _ABOVE[index]),
            length / 5,
            float(length == 1),
        ]
        out[card] = row
    return out


def probabilities(rows: dict[str, list[float]], weights: Sequence[float] = WEIGHTS) -> dict[str, float]:
    """The model's chance of each card, from its features (``features``)."""
    scores = {card: sum(w * x for w, x in zip(weights, row, strict=True)) for card, row in rows.items()}
    top = max(scores.values())
    exps = {card: math.exp(score - top) for card, score in scores.items()}
    total = sum(exps.values())
    return {card: value / total for card, value in exps.items()}
