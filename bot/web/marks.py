"""A kept review's marks on the replay (docs/web.md): at each decision "Review my play" judged, the choice made
and the AI's, with their values, in the viewer's language and the words of the review answer itself."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bot.game.reviews import Review
from bot.i18n import t
from bot.schnapsen.texts import action_name, game_points
from engine.actions import parse_action


def review_marks(review: Review, steps: Sequence[dict[str, Any]], names: Sequence[str], deck: str, lang: str) -> dict[str, Any]:
    """The marks by the replay's step that shows the decision made (step ``index + 1``: the deal after it)."""
    marks = []
    for mark in review.marks:
        if not 0 <= mark.index < len(steps) - 1:
            continue  # not a decision of this deal's record (cannot happen for a review of it)
        before = steps[mark.index]  # the position the decision was made in
        phase = before["phase"]
        where = t(lang, "coach.where.play", trick=before["done"] + 1) if phase == "play" else t(lang, f"coach.where.{phase}")
        played = action_name(deck, lang, parse_action(mark.played)[1])
        values = {"played": played, "played_value": game_points(lang, mark.played_value)}
        if mark.costly:
            best = action_name(deck, lang, parse_action(mark.best)[1])
            text = t(
                lang, "web.review.costly", **values, best=best, best_value=game_points(lang, mark.best_value),
                loss=game_points(lang, mark.loss, signed=False),
            )
        else:
            text = t(lang, "web.review.good", **values)
        marks.append({"step": mark.index + 1, "where": where, "costly": mark.costly, "text": text})
    return {"name": names[review.seat], "seat": review.seat, "marks": marks}
