"""A bounded mapping that forgets the least recently used entry: the one way the bot keeps a memory of things
that would otherwise grow with every person, click or deal it has ever seen (languages, finished deals, clicks
given back to discord.py, and, in the service, people's choices and other processes' tables)."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import Generic, TypeVar, overload

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")


class Lru(Generic[K, V]):
    """At most ``size`` entries; storing or reading one (``get``, ``[]``) makes it the most recent, and storing
    beyond ``size`` drops the least recent. ``peek`` reads without refreshing.

    >>> seen = Lru[str, int](2)
    >>> seen["a"], seen["b"] = 1, 2
    >>> seen.get("a")
    1
    >>> seen["c"] = 3  # "b" was used least recently
    >>> sorted(seen)
    ['a', 'c']
    """

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ValueError(f"an Lru holds at least one entry, not {size}")
        self.size = size
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __setitem__(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.size:
            self._entries.popitem(last=False)

    def __getitem__(self, key: K) -> V:
        value = self._entries[key]
        self._entries.move_to_end(key)
        return value

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        if key not in self._entries:
            return default
        return self[key]

    def peek(self, key: K) -> V | None:
        return self._entries.get(key)

    def pop(self, key: K, default: V | None = None) -> V | None:
        return self._entries.pop(key, default)

    def forget_where(self, drop: Callable[[K], bool]) -> None:
        """Drop every entry whose key ``drop`` picks (a closed table's, say)."""
        for key in [key for key in self._entries if drop(key)]:
            del self._entries[key]

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def __iter__(self) -> Iterator[K]:
        return iter(self._entries)
