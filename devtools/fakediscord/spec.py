"""Every request the bot sends, checked against Discord's own published HTTP API (OpenAPI 3.1).

The spec is Discord's (devtools/discord_api_spec/, with its licence and the commit it came from). A request is
checked for: a route and method the spec has, path parameters, a query and a JSON body (or a multipart
upload's ``payload_json``) that fit their schemas (JSON Schema 2020-12, as OpenAPI 3.1 says). A request that
does not fit is answered as Discord answers a malformed one: 400, code 50035 "Invalid Form Body", with the
errors by field (``errors.<field>._errors``), so the test whose bot sent it fails.

Where Discord is known to accept more than its spec says, ``LENIENCY`` says what and why; nothing else is
loosened.
"""

from __future__ import annotations

import copy
import functools
import json
import os
import re
import threading
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

SPEC_PATH = Path(__file__).resolve().parents[1] / "discord_api_spec" / "openapi.json"
SPEC_URI = "urn:discord-api-spec"
INVALID_FORM_BODY = 50035

# Where Discord accepts more than its spec says. Each entry: what, and why we know.
LENIENCY = {
    "snowflake as integer": (
        "The spec types every snowflake (SnowflakeType) as a string of digits; Discord also takes a JSON "
        "integer, which discord.py sends (a DM's recipient_id, message_reference.message_id, ...) and which "
        "Discord's docs allow ('snowflakes ... may be sent as integers or strings')."
    ),
    "boolean query as 0/1": (
        "The spec types boolean query parameters (wait, with_components, with_response) as booleans; in a "
        "query string Discord reads 'true'/'false' and '1'/'0', and discord.py sends 1 and 0."
    ),
}

_BOOLEAN_WORDS = {"true": True, "false": False, "1": True, "0": False}


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # the spec's template, e.g. /channels/{channel_id}/messages
    pattern: re.Pattern[str]
    literal_segments: int
    parameters: dict[str, dict[str, Any]]  # "path:name" / "query:name" -> the parameter object
    body: dict[str, Any] | None  # requestBody, with its content per media type


@dataclass
class SpecStats:
    """What the checks of this process saw (summed over a test run by the pytest plugin)."""

    requests: int = 0
    refused: int = 0
    on_purpose: int = 0  # of the refused, those a test sent on purpose (and took: FakeDiscord.take_spec_violations)
    routes: Counter[str] = field(default_factory=Counter)
    problems: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {"requests": self.requests, "refused": self.refused, "on_purpose": self.on_purpose,
                "routes": dict(self.routes), "problems": self.problems[-50:]}


STATS = SpecStats()
_stats_lock = threading.Lock()


class SpecViolation(Exception):
    """``status``: what Discord answers: 404 for a route it lacks, 405 for a method the route lacks, else 400
    (50035, with ``errors`` by field)."""

    def __init__(self, operation: str, errors: dict[str, Any], summary: str, status: int = 400) -> None:
        super().__init__(f"{operation}: {summary}")
        self.operation, self.errors, self.summary, self.status = operation, errors, summary, status


@functools.cache
def _spec() -> dict[str, Any]:
    spec: dict[str, Any] = json.loads(SPEC_PATH.read_text(encoding="utf-8"))
    schemas = spec["components"]["schemas"]
    snowflake = schemas["SnowflakeType"]
    # LENIENCY "snowflake as integer".
    schemas["SnowflakeType"] = {"anyOf": [snowflake, {"type": "integer", "minimum": 0}]}
    return spec


@functools.cache
def _registry() -> Registry:
    # The spec's own "#/components/..." references resolve inside it, the resource at SPEC_URI.
    return Registry().with_resource(SPEC_URI, Resource.from_contents(_spec(), default_specification=DRAFT202012))


# Speed, not leniency: the spec's unions (a component is one of seven kinds, an interaction callback one of
# seven) are anyOf/oneOf lists whose branches each fix the object's "type". A branch whose "type" cannot be the
# instance's fails anyway, so it is left out before validating; the result is the same, 5 to 10 times sooner,
# and the error names the branch the request meant.
_BRANCH_TYPES: dict[int, list[frozenset[Any] | None]] = {}


def _type_values(schema: Any) -> frozenset[Any] | None:
    """The values a branch allows for its object's "type" property (None: any, or not known)."""
    schema = _resolved(schema) if isinstance(schema, dict) else schema
    if not isinstance(schema, dict):
        return None
    if schema.get("type") == "null":
        return frozenset()  # null is never an object with a type
    prop = (schema.get("properties") or {}).get("type")
    if not isinstance(prop, dict) or "type" not in (schema.get("required") or []):
        return None
    if "const" in prop:
        return frozenset([prop["const"]])
    if "enum" in prop:
        return frozenset(prop["enum"])
    return None


def _index_unions(node: Any) -> None:
    if isinstance(node, dict):
        for keyword in ("anyOf", "oneOf"):
            branches = node.get(keyword)
            if isinstance(branches, list):
                values = [_type_values(branch) for branch in branches]
                if any(v is not None for v in values):
                    _BRANCH_TYPES[id(branches)] = values
        for value in node.values():
            _index_unions(value)
    elif isinstance(node, list):
        for value in node:
            _index_unions(value)


def _pruned(branches: list[Any], instance: Any) -> list[Any]:
    values = _BRANCH_TYPES.get(id(branches))
    if values is None or not isinstance(instance, dict):
        return branches
    kind = instance.get("type")
    if not isinstance(kind, (int, str)) or isinstance(kind, bool):
        return branches
    kept = [b for b, allowed in zip(branches, values, strict=True) if allowed is None or kind in allowed]
    return kept or branches  # nothing fits: validate them all, for the error


def _any_of(validator: Any, branches: list[Any], instance: Any, schema: Any) -> Any:
    return Draft202012Validator.VALIDATORS["anyOf"](validator, _pruned(branches, instance), instance, schema)


def _one_of(validator: Any, branches: list[Any], instance: Any, schema: Any) -> Any:
    return Draft202012Validator.VALIDATORS["oneOf"](validator, _pruned(branches, instance), instance, schema)


_Validator = validators.extend(Draft202012Validator, {"anyOf": _any_of, "oneOf": _one_of})


@functools.cache
def _validator(pointer: str) -> Any:
    """A validator for the schema at a JSON pointer into the spec (one per schema, made once)."""
    if not _BRANCH_TYPES:
        _index_unions(_spec())
    return _Validator({"$ref": f"{SPEC_URI}#{pointer}"}, registry=_registry())


def _escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


@functools.cache
def _operations() -> dict[str, list[Operation]]:
    """The spec's operations by method, the most literal paths first (``/users/@me`` before
    ``/users/{user_id}``)."""
    found: dict[str, list[Operation]] = {}
    for path, item in _spec()["paths"].items():
        shared = {f"{p['in']}:{p['name']}": p for p in item.get("parameters", [])}
        segments = path.strip("/").split("/")
        regex = "".join("/[^/]+" if s.startswith("{") else "/" + re.escape(s) for s in segments)
        literal = sum(not s.startswith("{") for s in segments)
        for method, operation in item.items():
            if method == "parameters" or not isinstance(operation, dict):
                continue
            own = {f"{p['in']}:{p['name']}": p for p in operation.get("parameters", [])}
            found.setdefault(method.upper(), []).append(Operation(
                method.upper(), path, re.compile(regex + "$"), literal, shared | own,
                operation.get("requestBody")))
    for operations in found.values():
        operations.sort(key=lambda o: -o.literal_segments)
    return found


def find_operation(method: str, path: str) -> Operation | None:
    """The spec's operation for a request (``path`` after /api/v10), None where Discord has none."""
    for operation in _operations().get(method, []):
        if operation.pattern.match(path):
            return operation
    return None


def _parameter_pointer(operation: Operation, key: str) -> str:
    """Where a parameter's schema is in the spec (on the path item or on the operation)."""
    item = _spec()["paths"][operation.path]
    base = "/paths/" + _escape(operation.path)
    for index, parameter in enumerate(item.get(operation.method.lower(), {}).get("parameters", [])):
        if f"{parameter['in']}:{parameter['name']}" == key:
            return f"{base}/{operation.method.lower()}/parameters/{index}/schema"
    for index, parameter in enumerate(item.get("parameters", [])):
        if f"{parameter['in']}:{parameter['name']}" == key:
            return f"{base}/parameters/{index}/schema"
    raise KeyError(key)


def _query_value(schema: dict[str, Any], raw: str) -> Any:
    """A query string's text as the JSON value its schema types (the spec types the query's values)."""
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    if "boolean" in types and raw.lower() in _BOOLEAN_WORDS:
        return _BOOLEAN_WORDS[raw.lower()]  # LENIENCY "boolean query as 0/1"
    if "integer" in types:
        try:
            return int(raw)
        except ValueError:
            return raw
    if "number" in types:
        try:
            return float(raw)
        except ValueError:
            return raw
    return raw


def _resolved(schema: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in schema:
        target: Any = _spec()
        for token in schema["$ref"].removeprefix("#/").split("/"):
            target = target[token.replace("~1", "/").replace("~0", "~")]
        schema = target
    return schema


def _short(message: str, limit: int = 200) -> str:
    """jsonschema's message quotes the whole value: keep its start and end."""
    return message if len(message) <= limit else f"{message[:limit // 2]} ... {message[-limit // 2:]}"


def _error_tree(errors: list[ValidationError]) -> dict[str, Any]:
    """Discord's shape of errors: nested by field, each field's list under ``_errors``."""
    tree: dict[str, Any] = {}
    for error in errors:
        node = tree
        for part in error.absolute_path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append(
            {"code": f"SPEC_{str(error.validator).upper()}", "message": _short(error.message)})
    return tree


def _check(pointer: str, value: Any, where: str) -> tuple[dict[str, Any], str] | None:
    validator = _validator(pointer)
    errors = list(validator.iter_errors(value))
    if not errors:
        return None
    best = best_match(errors)
    # The deepest reason of the best match (an anyOf's branches each say why they did not fit).
    path = ".".join(str(p) for p in best.absolute_path)
    summary = f"{where}{'.' + path if path else ''}: {_short(best.message)}"
    tree = _error_tree([best])
    return ({where: tree} if where != "body" else tree), summary


def check_request(method: str, path: str, query: dict[str, str], content_type: str, payload: Any,
                  has_body: bool) -> Operation:
    """The spec's operation for this request; raises SpecViolation when the request does not fit it.

    ``path`` is the path after ``/api/v10``; ``payload`` the parsed JSON body or multipart payload_json."""
    operation = find_operation(method, path)
    if operation is None:
        other = any(o.pattern.match(path) for m, ops in _operations().items() if m != method for o in ops)
        why = f"Discord's API spec has no {method} on this route" if other else "no such route in Discord's API spec"
        raise SpecViolation(f"{method} {path}", {}, why, 405 if other else 404)
    name = f"{method} {operation.path}"
    errors: dict[str, Any] = {}
    summaries: list[str] = []
    # Path parameters.
    names = re.findall(r"{([^}]+)}", operation.path)
    values = operation.pattern.match(path)
    assert values is not None
    actual = [s for s, t in zip(path.strip("/").split("/"), operation.path.strip("/").split("/"), strict=True)
              if t.startswith("{")]
    for parameter, value in zip(names, actual, strict=True):
        found = _check(_parameter_pointer(operation, f"path:{parameter}"), value, parameter)
        if found is not None:
            errors.update(found[0])
            summaries.append(found[1])
    # Query.
    for key, raw in query.items():
        if f"query:{key}" not in operation.parameters:
            errors.setdefault(key, {}).setdefault("_errors", []).append(
                {"code": "SPEC_UNKNOWN_QUERY", "message": f"{name} takes no query parameter {key!r}"})
            summaries.append(f"query {key!r} is not a parameter of {name}")
            continue
        pointer = _parameter_pointer(operation, f"query:{key}")
        found = _check(pointer, _query_value(_resolved(operation.parameters[f"query:{key}"]["schema"]), raw), key)
        if found is not None:
            errors.update(found[0])
            summaries.append(found[1])
    for key, parameter in operation.parameters.items():
        if key.startswith("query:") and parameter.get("required") and key[6:] not in query:
            summaries.append(f"query {key[6:]!r} is required by {name}")
            errors.setdefault(key[6:], {}).setdefault("_errors", []).append(
                {"code": "BASE_TYPE_REQUIRED", "message": "This field is required"})
    # Body.
    body = operation.body
    if body is None:
        if has_body and payload not in (None, {}, []):
            summaries.append(f"{name} takes no body")
            errors.setdefault("_errors", []).append({"code": "SPEC_NO_BODY", "message": f"{name} takes no body"})
    elif payload is None and not has_body:
        if body.get("required"):
            summaries.append(f"{name} needs a body")
            errors.setdefault("_errors", []).append({"code": "BASE_TYPE_REQUIRED", "message": "a body is required"})
    else:
        media = "multipart/form-data" if content_type.startswith("multipart/") else "application/json"
        if media not in body["content"]:
            summaries.append(f"{name} takes no {media} body")
            errors.setdefault("_errors", []).append(
                {"code": "SPEC_MEDIA_TYPE", "message": f"{name} takes no {media} body"})
        else:
            pointer = f"/paths/{_escape(operation.path)}/{method.lower()}/requestBody/content/{_escape(media)}/schema"
            found = _check(pointer, payload, "body")
            if found is not None:
                for key, value in found[0].items():
                    errors[key] = value
                summaries.append(found[1])
    if summaries:
        raise SpecViolation(name, errors, "; ".join(summaries))
    return operation


def count(method: str, path: str, operation: Operation | None, violation: SpecViolation | None) -> None:
    """Count a request the fake checked (``STATS``): its route, and why it was refused."""
    with _stats_lock:
        STATS.requests += 1
        if operation is not None:
            STATS.routes[f"{method} {operation.path}"] += 1
        if violation is not None:
            STATS.refused += 1
            STATS.problems.append(f"{violation.operation}: {violation.summary}")


def refused_on_purpose(count: int) -> None:
    with _stats_lock:
        STATS.on_purpose += count


def preload() -> None:
    """Load the spec and its route table now (about a second) rather than at the first request."""
    _operations()
    _registry()


def snapshot() -> SpecStats:
    with _stats_lock:
        return copy.deepcopy(STATS)


STATS_DIR_VARIABLE = "FAKE_DISCORD_SPEC_STATS"


def save_stats() -> None:
    """Write this process's counts to ``$FAKE_DISCORD_SPEC_STATS/<pid>.json`` when that is set (the pytest
    plugin sums them over the run's processes: xdist workers and the benches' child processes alike)."""
    folder = os.environ.get(STATS_DIR_VARIABLE)
    if not folder or not os.path.isdir(folder):
        return
    target = Path(folder) / f"{os.getpid()}.json"
    partial = target.with_suffix(".tmp")
    partial.write_text(json.dumps(snapshot().as_json()), encoding="utf-8")
    partial.replace(target)


def load_stats(folder: Path) -> SpecStats:
    """The counts of every process that saved its own in ``folder``."""
    total = SpecStats()
    for saved in sorted(folder.glob("*.json")):
        data = json.loads(saved.read_text(encoding="utf-8"))
        total.requests += data["requests"]
        total.refused += data["refused"]
        total.on_purpose += data["on_purpose"]
        total.routes.update(data["routes"])
        total.problems += data["problems"]
    return total
