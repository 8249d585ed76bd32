"""The README's sample images come from a real game: the committed record replays through the engine, and the
committed images are exactly what tools/sample_images.py draws from it."""

from __future__ import annotations

import engine
from engine.record import replay  # not engine.replay: importing the module engine.replay shadows it
from tools import sample_images


def test_the_sample_record_replays_through_the_engine_to_a_whole_bummerl() -> None:
    record = sample_images.load_game_record()
    replayed = replay(record)
    assert replayed.error is None, f"the rules refuse an action of the record: {replayed.error}"
    steps = list(engine.replay_steps(record))
    ends = [step for step in steps if step.state.finished]
    assert len(ends) == len(record.deals) > 1, "every deal of the record is played to its end"
    assert ends[-1].bummerl is not None and replayed.match.bummerls, "the record ends with its Bummerl"
    assert all(step.bummerl is None for step in ends[:-1])


async def test_the_committed_images_are_what_the_record_draws() -> None:
    game = await sample_images.replayed(sample_images.load_game_record())
    for name, draw in sample_images.SAMPLES.items():
        committed = (sample_images.IMAGES / name).read_bytes()
        assert await draw(game) == committed, f"docs/images/{name} is stale: run python tools/sample_images.py"
