"""The bounded cache every memory of the bot uses: it never holds more than its size, forgets the least
recently used entry first, and a read counts as a use."""

from __future__ import annotations

import pytest

from bot.cache import Lru


def test_it_holds_at_most_its_size_and_drops_the_least_recently_used() -> None:
    seen = Lru[int, str](3)
    for key in range(3):
        seen[key] = str(key)
    assert seen[0] == "0"  # used: 1 is now the least recent
    seen[3] = "3"
    assert sorted(seen) == [0, 2, 3] and len(seen) == 3
    assert seen.peek(2) == "2"  # a peek is no use: 2 goes next
    seen[4] = "4"
    assert 2 not in seen and sorted(seen) == [0, 3, 4]


def test_get_pop_and_forget_where() -> None:
    seen = Lru[tuple[int, int], str](10)
    seen[(1, 1)], seen[(1, 2)], seen[(2, 1)] = "a", "b", "c"
    assert seen.get((9, 9)) is None and seen.get((9, 9), "x") == "x"
    assert seen.pop((1, 2)) == "b" and seen.pop((1, 2)) is None
    seen.forget_where(lambda key: key[0] == 1)
    assert list(seen) == [(2, 1)]


def test_a_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError):
        Lru[int, int](0)
