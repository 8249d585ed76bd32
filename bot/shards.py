"""Which process serves which guild: Discord's shard rule, and the range of shards one process holds.

A guild's tables belong to the process holding the guild's shard; only that process restores, drives and
announces them. This module is the one place that says so (standard library only, no I/O).
"""

from __future__ import annotations

from dataclasses import dataclass


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard Discord delivers a guild's events on (its creation time modulo the shard count).

    >>> shard_of(41771983423143937, 1)
    0
    >>> shard_of(1 << 22, 2), shard_of(2 << 22, 2), shard_of((3 << 22) + 12345, 2)
    (1, 0, 1)
    """
    return (guild_id >> 22) % shard_count


@dataclass(frozen=True, slots=True)
class ShardRange:
    """The shards this process holds, out of ``count``.

    >>> shards = ShardRange.parse("2", "1")
    >>> shards.owns_guild(1 << 22), shards.owns_guild(2 << 22)
    (True, False)
    >>> ShardRange.parse("4", "0-1,3").ids
    (0, 1, 3)
    >>> str(ShardRange.parse("4", ""))
    'shards 0-3 of 4'
    """

    count: int
    ids: tuple[int, ...]

    def owns_guild(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    @property
    def keeps_storage(self) -> bool:
        """Storage-wide upkeep (pruning closed tables' logs) is done by one process: the one holding shard 0.

        >>> ShardRange(2, (0,)).keeps_storage, ShardRange(2, (1,)).keeps_storage
        (True, False)
        """
        return 0 in self.ids

    def __str__(self) -> str:
        return f"shards {describe_ids(self.ids)} of {self.count}"

    @classmethod
    def parse(cls, count_text: str, ids_text: str) -> ShardRange:
        """``SHARD_COUNT`` and ``SHARD_IDS`` as written (ids empty: all of them); ``ValueError`` says what is
        wrong and how to write it.

        >>> ShardRange.parse("2", "2")
        Traceback (most recent call last):
        ...
        ValueError: SHARD_IDS names shard 2, but SHARD_COUNT is 2: shard ids run from 0 to 1.
        """
        count_text, ids_text = count_text.strip(), ids_text.strip()
        if not count_text.isascii() or not count_text.isdigit() or int(count_text) < 1:
            raise ValueError(f"SHARD_COUNT must be a whole number of shards, 1 or more, not {count_text!r}.")
        count = int(count_text)
        ids = parse_ids(ids_text) if ids_text else tuple(range(count))
        if (beyond := [i for i in ids if i >= count]):
            raise ValueError(
                f"SHARD_IDS names shard {beyond[0]}, but SHARD_COUNT is {count}: shard ids run from 0 to "
                f"{count - 1}."
            )
        return cls(count, ids)


def parse_ids(text: str) -> tuple[int, ...]:
    """Shard ids as ``0-3``, ``1`` or ``0,2`` (ranges and single ids, comma-separated), sorted.

    >>> parse_ids("4-5, 0")
    (0, 4, 5)
    >>> parse_ids("3-1")
    Traceback (most recent call last):
    ...
    ValueError: SHARD_IDS: the range '3-1' runs backwards; write it as 1-3.
    """
    ids: list[int] = []
    for part in (piece.strip() for piece in text.split(",")):
        low, dash, high = part.partition("-")
        low, high = low.strip(), high.strip()
        if not _is_number(low) or (dash and not _is_number(high)):
            raise ValueError(
                f"SHARD_IDS must list shard ids such as 0-3, 1 or 0,2 (ranges and single ids, separated by "
                f"commas), not {text!r}."
            )
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"SHARD_IDS: the range {part!r} runs backwards; write it as {last}-{first}.")
        ids.extend(range(first, last + 1))
    if len(set(ids)) != len(ids):
        twice = next(i for i in ids if ids.count(i) > 1)
        raise ValueError(f"SHARD_IDS names shard {twice} twice in {text!r}.")
    return tuple(sorted(ids))


def describe_ids(ids: tuple[int, ...]) -> str:
    """Shard ids written back compactly.

    >>> describe_ids((0, 1, 2, 5))
    '0-2,5'
    """
    runs: list[str] = []
    start = previous = ids[0]
    for shard in (*ids[1:], None):
        if shard is not None and shard == previous + 1:
            previous = shard
            continue
        runs.append(str(start) if start == previous else f"{start}-{previous}")
        if shard is not None:
            start = previous = shard
    return ",".join(runs)


def _is_number(text: str) -> bool:
    return text.isascii() and text.isdigit()
