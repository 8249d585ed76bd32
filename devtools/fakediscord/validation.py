"""The message limits Discord enforces, so a bot that breaks one fails here as it would in production.

Each check returns a list of problems; an empty list means Discord would accept the message.
"""

from __future__ import annotations

from typing import Any

from devtools.fakediscord.components import BUTTON, LINK_STYLE, iter_components

COMPONENTS_V2_FLAG = 1 << 15
MAX_CONTENT = 2000
MAX_EMBEDS = 10
MAX_EMBED_TOTAL = 6000
MAX_ROWS = 5
MAX_ROW_WIDTH = 5
MAX_CUSTOM_ID = 100
MAX_LABEL = 80
SELECT_TYPES = {3, 5, 6, 7, 8}


def embed_problems(embeds: list[dict[str, Any]]) -> list[str]:
    problems = []
    if len(embeds) > MAX_EMBEDS:
        problems.append(f"{len(embeds)} embeds (max {MAX_EMBEDS})")
    total = 0
    for index, embed in enumerate(embeds):
        limits = {"title": 256, "description": 4096}
        for key, limit in limits.items():
            text = embed.get(key) or ""
            total += len(text)
            if len(text) > limit:
                problems.append(f"embeds[{index}].{key} has {len(text)} characters (max {limit})")
        fields = embed.get("fields") or []
        if len(fields) > 25:
            problems.append(f"embeds[{index}] has {len(fields)} fields (max 25)")
        for number, embed_field in enumerate(fields):
            name, value = embed_field.get("name") or "", embed_field.get("value") or ""
            total += len(name) + len(value)
            if not name or not value:
                problems.append(f"embeds[{index}].fields[{number}] needs a name and a value")
            if len(name) > 256 or len(value) > 1024:
                problems.append(f"embeds[{index}].fields[{number}] is too long")
        footer = (embed.get("footer") or {}).get("text") or ""
        author = (embed.get("author") or {}).get("name") or ""
        total += len(footer) + len(author)
        if len(footer) > 2048 or len(author) > 256:
            problems.append(f"embeds[{index}] footer or author is too long")
    if total > MAX_EMBED_TOTAL:
        problems.append(f"embeds hold {total} characters in all (max {MAX_EMBED_TOTAL})")
    return problems


def component_problems(components: list[dict[str, Any]], flags: int) -> list[str]:
    problems = []
    if not flags & COMPONENTS_V2_FLAG:
        if len(components) > MAX_ROWS:
            problems.append(f"{len(components)} action rows (max {MAX_ROWS})")
        for index, row in enumerate(components):
            if row.get("type") != 1:
                problems.append(f"components[{index}] is type {row.get('type')}, not an action row")
                continue
            children = row.get("components") or []
            widths = sum(MAX_ROW_WIDTH if child.get("type") in SELECT_TYPES else 1 for child in children)
            if not children or widths > MAX_ROW_WIDTH:
                problems.append(f"components[{index}] holds {len(children)} components (1 to 5 buttons or 1 select)")
    seen: set[str] = set()
    for component in iter_components(components):
        custom_id = component.get("custom_id")
        if component.get("type") == BUTTON:
            label = component.get("label") or ""
            if len(label) > MAX_LABEL:
                problems.append(f"button label {label[:20]!r}... has {len(label)} characters (max {MAX_LABEL})")
            if not label and not component.get("emoji"):
                problems.append(f"button {custom_id!r} has neither label nor emoji")
            if component.get("style") == LINK_STYLE:
                if not component.get("url"):
                    problems.append("link button without url")
                continue
        if component.get("type") in SELECT_TYPES | {BUTTON}:
            if not custom_id:
                problems.append(f"component of type {component.get('type')} without custom_id")
                continue
            if len(custom_id) > MAX_CUSTOM_ID:
                problems.append(f"custom_id {custom_id!r} has {len(custom_id)} characters (max {MAX_CUSTOM_ID})")
            if custom_id in seen:
                problems.append(f"custom_id {custom_id!r} is used twice in one message")
            seen.add(custom_id)
        if component.get("type") == 3 and not 1 <= len(component.get("options") or []) <= 25:
            problems.append(f"select {custom_id!r} needs 1 to 25 options")
    return problems


def message_problems(content: str, embeds: list[dict[str, Any]], components: list[dict[str, Any]],
                     attachment_count: int, flags: int) -> list[str]:
    """Problems with a message's final state (after an edit has been applied)."""
    problems = []
    if len(content) > MAX_CONTENT:
        problems.append(f"content has {len(content)} characters (max {MAX_CONTENT})")
    if attachment_count > 10:
        problems.append(f"{attachment_count} attachments (max 10)")
    problems += embed_problems(embeds)
    problems += component_problems(components, flags)
    return problems


def is_empty(content: str, embeds: list[Any], components: list[Any], attachment_count: int) -> bool:
    return not content and not embeds and not components and not attachment_count
