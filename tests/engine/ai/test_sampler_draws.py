"""The sampler's inline draw (``knowledge.INLINE_DRAWS``) places every card as ``Random.randrange`` would:
the worlds, and so every decision, are those of the plain call."""

from __future__ import annotations

import random
import sys

import pytest

from engine import STANDARD, apply_unchecked, deal_hands, legal_actions, new_deal, view_for
from engine.ai import knowledge


def _views(count: int):  # type: ignore[no-untyped-def]
    rng = random.Random("draws")
    for seed in range(count):
        state = new_deal(STANDARD, seed % 4, deal_hands(seed, seed % 4))
        for _ in range(rng.randrange(0, 30)):
            if state.finished:
                break
            state, _ = apply_unchecked(state, state.to_act, rng.choice(legal_actions(state)))
        if not state.finished and state.to_act is not None:
            yield view_for(state, state.to_act)


def _worlds(inline: bool, monkeypatch: pytest.MonkeyPatch) -> list[list[int]]:
    # The module the sampler in use reads it from: its compiled copy where the accelerator runs.
    monkeypatch.setattr(sys.modules[knowledge.Sampler.__module__], "INLINE_DRAWS", inline)
    worlds = []
    for index, view in enumerate(_views(60)):
        sampler = knowledge.Sampler(knowledge.gather(view, STANDARD), random.Random(index), None)
        worlds += [sampler.draw() for _ in range(50)]
    return worlds


def test_the_inline_draw_gives_the_worlds_of_randrange(monkeypatch: pytest.MonkeyPatch) -> None:
    if not knowledge.INLINE_DRAWS:
        pytest.skip("this Python's Random draws otherwise, so the sampler calls randrange")
    assert _worlds(True, monkeypatch) == _worlds(False, monkeypatch)
