"""Which process serves which guild: Discord's shard rule, and the range of shards one process holds.

A guild's tables belong to the process holding the guild's shard; only that process restores, drives and
announces them. This module is the one place that says so (standard library only, no I/O).
"""

from __future__ import annotations

from dataclasses import dataclass

# Discord asks for a shard per 1,000 to 2,500 servers: 1,024 shards serve over a million servers.
MAX_SHARD_COUNT = 1024


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
        if (
            not count_text.isascii() or not count_text.isdigit() or len(count_text) > 6
            or not 1 <= int(count_text) <= MAX_SHARD_COUNT
        ):
            raise ValueError(
                f"SHARD_COUNT must be a whole number of shards from 1 to {MAX_SHARD_COUNT}, not {count_text[:20]!r}."
            )
        count = int(count_text)
        ids = parse_ids(ids_text, count) if ids_text else tuple(range(count))
        return cls(count, ids)


def parse_ids(text: str, count: int) -> tuple[int, ...]:
    """Shard ids as ``0-3``, ``1`` or ``0,2`` (ranges and single ids, comma-separated) out of ``count``,
    sorted. Each range is checked against the count before it is spelt out, so a huge one costs nothing.

    >>> parse_ids("4-5, 0", 6)
    (0, 4, 5)
    >>> parse_ids("3-1", 4)
    Traceback (most recent call last):
    ...
    ValueError: SHARD_IDS: the range '3-1' runs backwards; write it as 1-3.
    >>> parse_ids("0-99999999999", 2)
    Traceback (most recent call last):
    ...
    ValueError: SHARD_IDS names shard 99999999999, but SHARD_COUNT is 2: shard ids run from 0 to 1.
    """
    ids: set[int] = set()
    for part in (piece.strip() for piece in text.split(",")):
        low, dash, high = part.partition("-")
        low, high = low.strip(), high.strip()
        if not _is_number(low) or (dash and not _is_number(high)) or len(low) > 20 or len(high) > 20:
            raise ValueError(
                f"SHARD_IDS must list shard ids such as 0-3, 1 or 0,2 (ranges and single ids, separated by "
                f"commas), not {text[:40]!r}."
            )
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"SHARD_IDS: the range {part!r} runs backwards; write it as {last}-{first}.")
        if last >= count:
            raise ValueError(
                f"SHARD_IDS names shard {last}, but SHARD_COUNT is {count}: shard ids run from 0 to {count - 1}."
            )
        named = range(first, last + 1)
        if twice := ids.intersection(named):
            raise ValueError(f"SHARD_IDS names shard {min(twice)} twice in {text[:40]!r}.")
        ids.update(named)
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
