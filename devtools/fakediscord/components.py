"""Finding buttons and selects inside a message's component JSON, the way a user looks for them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

BUTTON = 2
LINK_STYLE = 5


def iter_components(components: list[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    """Every interactive leaf: inside action rows, containers and section accessories alike."""
    for component in components:
        children = component.get("components")
        if children:
            yield from iter_components(children)
        accessory = component.get("accessory")
        if accessory:
            yield from iter_components([accessory])
        if not children and component.get("type") != 1:
            yield component


def describe_buttons(components: list[dict[str, Any]]) -> str:
    buttons = [c for c in iter_components(components) if c.get("type") == BUTTON]
    if not buttons:
        return "no buttons"
    return ", ".join(f"{b.get('label')!r}={b.get('custom_id')!r}" for b in buttons)


def find_button(components: list[dict[str, Any]], *, label: str | None = None, custom_id: str | None = None,
                custom_id_prefix: str | None = None) -> dict[str, Any]:
    """The one button matching every given criterion; LookupError naming what exists otherwise."""
    if label is None and custom_id is None and custom_id_prefix is None:
        raise ValueError("give a label, a custom_id or a custom_id_prefix")
    matches = [
        c for c in iter_components(components)
        if c.get("type") == BUTTON
        and (label is None or c.get("label") == label)
        and (custom_id is None or c.get("custom_id") == custom_id)
        and (custom_id_prefix is None or str(c.get("custom_id", "")).startswith(custom_id_prefix))
    ]
    wanted = f"label={label!r} custom_id={custom_id!r} prefix={custom_id_prefix!r}"
    if not matches:
        raise LookupError(f"no button with {wanted}; the message has {describe_buttons(components)}")
    if len(matches) > 1:
        raise LookupError(f"{len(matches)} buttons match {wanted}: {describe_buttons(components)}")
    return matches[0]


def find_component(components: list[dict[str, Any]], custom_id: str) -> dict[str, Any] | None:
    for component in iter_components(components):
        if component.get("custom_id") == custom_id:
            return component
    return None
