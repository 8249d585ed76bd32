"""Card images for the bot: hand, table and result PNGs plus their alt text.

Pure functions of plain values (card codes like "HA", seats 0..3 = N E S W); this package never imports discord,
so it can be tested and benchmarked on its own. Call it off the event loop (asyncio.to_thread); it is thread-safe.
"""

from bot.render.alt import hand_alt_text, profile_alt_text, result_alt_text, table_alt_text
from bot.render.images import (
    HAND_SIZE,
    TABLE_SIZE,
    WIDTH,
    preload,
    render_hand,
    render_result,
    render_table,
)
from bot.render.names import ALL_CARDS, DECK_STYLES, LANGUAGES, card_name, label, suit_name
from bot.render.profile import render_profile
from bot.render.review import (
    DealReviewScene,
    ReviewTrick,
    deal_review_alt_text,
    deal_review_lines,
    render_deal_review,
    review_size,
)
from bot.render.scenes import ProfileScene, ResultScene, TableScene
from bot.render.turn import TURN_SIZE, TurnScene, render_turn, turn_alt_text, turn_size

__all__ = [
    "ALL_CARDS",
    "DECK_STYLES",
    "HAND_SIZE",
    "LANGUAGES",
    "TABLE_SIZE",
    "TURN_SIZE",
    "WIDTH",
    "DealReviewScene",
    "ProfileScene",
    "ResultScene",
    "ReviewTrick",
    "TableScene",
    "TurnScene",
    "card_name",
    "deal_review_alt_text",
    "deal_review_lines",
    "hand_alt_text",
    "label",
    "preload",
    "profile_alt_text",
    "render_deal_review",
    "render_hand",
    "render_profile",
    "render_result",
    "render_table",
    "render_turn",
    "result_alt_text",
    "review_size",
    "suit_name",
    "table_alt_text",
    "turn_alt_text",
    "turn_size",
]
