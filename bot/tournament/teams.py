"""Forming teams of two from the sign-ups: a person signs up with a partner, or alone to be paired with
another single."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Signup:
    user_id: int
    partner_id: int | None = None  # None: alone, to be paired with another single


def form_teams(signups: Sequence[Signup]) -> tuple[list[tuple[int, int]], list[int]]:
    """The teams (in sign-up order of their first member) and the singles left without a partner.

    Two people who named each other, or one who named a partner who did not sign up at all, form a team;
    a person named by someone who signed up with another partner stays with their own choice. Singles are
    paired in sign-up order; an odd one out is left over. Nobody is in two teams.

    >>> form_teams([Signup(1), Signup(2, 3), Signup(4), Signup(5)])
    ([(1, 4), (2, 3)], [5])
    """
    signed = {s.user_id: s for s in signups}
    placed: set[int] = set()
    teams: list[tuple[int, tuple[int, int]]] = []  # (sign-up position, team)
    singles: list[tuple[int, int]] = []
    for position, signup in enumerate(signups):
        user = signup.user_id
        if user in placed:
            continue
        partner = signup.partner_id
        named_back = partner is not None and partner in signed and signed[partner].partner_id in (None, user)
        if (
            partner is not None
            and partner != user
            and partner not in placed
            and (partner not in signed or named_back)
        ):
            teams.append((position, (user, partner)))
            placed.update((user, partner))
        else:
            singles.append((position, user))
    single_ids = [(position, user) for position, user in singles if user not in placed]
    for index in range(0, len(single_ids) - 1, 2):
        teams.append((single_ids[index][0], (single_ids[index][1], single_ids[index + 1][1])))
    left = [user for _, user in single_ids[len(single_ids) - len(single_ids) % 2 :]]
    return [team for _, team in sorted(teams)], left
