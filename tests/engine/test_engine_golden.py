"""Golden records (tests/engine/golden/*.json): RULES.md's worked examples S01 and S07 with every legal set
and rejected action, one record per contract (with and without Kontra/Re), Aufschlagen, and each way a
Bummerl ends. Each file holds the record and its expected replay (the full report, or its key facts)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from engine import (
    ReplayStopped,
    apply,
    displayed_score,
    new_deal,
    parse_action,
    parse_record,
    replay,
    replay_report,
    replay_steps,
)
from engine.cards import CARD_POINTS
from engine.events import BummerlWon

GOLDEN = Path(__file__).resolve().parent / "golden"
REPO = Path(__file__).resolve().parents[2]
FILES = sorted(GOLDEN.glob("*.json"))


def load(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


def assert_contains(actual: Any, expected: Any, where: str = "report") -> None:
    """Every key of ``expected`` is in ``actual`` with an equal value (lists: same length, item by item)."""
    if isinstance(expected, dict):
        assert isinstance(actual, dict), where
        for key, value in expected.items():
            assert key in actual, f"{where}.{key} missing"
            assert_contains(actual[key], value, f"{where}.{key}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{where}: {actual!r}"
        for i, (mine, theirs) in enumerate(zip(actual, expected, strict=True)):
            assert_contains(mine, theirs, f"{where}[{i}]")
    else:
        assert actual == expected, f"{where}: {actual!r} != {expected!r}"


def truncated(record: dict[str, Any], deal: int, index: int, extra: list[str]) -> dict[str, Any]:
    """The record up to action ``index`` of deal ``deal``, followed by ``extra`` actions."""
    cut = copy.deepcopy(record)
    cut["deals"] = cut["deals"][: deal + 1]
    cut["deals"][deal]["actions"] = cut["deals"][deal]["actions"][:index] + extra
    return cut


def run_replay(stdin: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "engine.replay", "-"],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )


def test_every_contract_and_bummerl_ending_has_a_golden_record() -> None:
    contracts, kinds, multipliers = set(), set(), set()
    for path in FILES:
        report = replay_report(replay(parse_record(load(path)["record"])))
        contracts |= {d["contract"] for d in report["deals"]}
        multipliers |= {d["multiplier"] for d in report["deals"]}
        kinds |= {b["kind"] for b in report["bummerl"]}
    assert contracts == {
        "normal",
        "bettler",
        "ass_bettler",
        "schnapser",
        "gang",
        "zehnerloch",
        "bauernschnapser",
        "kontraschnapser",
        "farbringerl",
        "kontrabauernschnapser",
        "trumpffarbringerl",
    }
    assert multipliers == {1, 2, 4, 8}
    assert kinds == {"bummerl", "schneider", "retourschneider"}


@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_golden_record_replays_to_its_expected_report(path: Path) -> None:
    golden = load(path)
    replayed = replay(parse_record(golden["record"]))
    report = replay_report(replayed)
    assert replayed.error is None
    expected = golden["expected"]
    if "report" in expected:
        assert report == expected["report"]
    else:
        assert_contains(report, expected["facts"])
    # Card-point check: every trick plus every card never played adds up to 120.
    for state in replayed.deals:
        played = sum(trick.points for trick in state.tricks)
        unplayed = sum(CARD_POINTS[card] for hand in state.hands for card in hand)
        assert played + unplayed == 120
    if "unplayed_points" in golden:
        assert sum(CARD_POINTS[c] for h in replayed.deals[0].hands for c in h) == golden["unplayed_points"]


@pytest.mark.parametrize("path", [p for p in FILES if "legal_cards" in load(p)], ids=lambda p: p.stem)
def test_golden_legal_sets_at_every_card(path: Path) -> None:
    golden = load(path)
    record = golden["record"]
    for index, cards in golden["legal_cards"]:
        report = replay_report(replay(parse_record(truncated(record, 0, index, []))))
        position = report["deals"][0]["next"]
        actual = {parse_action(text)[1].card for text in position["legal"]}
        assert actual == set(cards), f"before action {index}"
        assert parse_action(record["deals"][0]["actions"][index])[0] == "NESW".index(position["seat"])


@pytest.mark.parametrize(
    ("path", "rejection"),
    [(p, r) for p in FILES for r in load(p).get("rejected", [])],
    ids=lambda value: value.stem if isinstance(value, Path) else value["action"],
)
def test_golden_rejected_actions(path: Path, rejection: dict[str, Any]) -> None:
    record = truncated(load(path)["record"], rejection["deal"], rejection["index"], [rejection["action"]])
    report = replay_report(replay(parse_record(record)))
    assert report["ok"] is False
    assert report["error"]["code"] == rejection["code"]
    assert report["error"]["index"] == rejection["index"]
    assert report["error"]["action"] == rejection["action"]
    assert report["error"]["message"]
    assert report["deals"][-1]["next"]["legal"], "the position before the error lists the legal actions"


def test_count_down_display_shows_what_is_still_missing() -> None:
    golden = load(GOLDEN / "bummerl_count_down.json")
    record = golden["record"]
    for deals_played, shown in enumerate(golden["display_after_each_deal"], start=1):
        cut = copy.deepcopy(record)
        cut["deals"] = cut["deals"][:deals_played]
        replayed = replay(parse_record(cut))
        assert list(displayed_score(replayed.match.rules, replayed.match.score)) == shown


# --- the command line ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["s01_rules_example", "bettler_made", "bummerl_retourschneider"])
def test_replay_command_prints_the_report_and_exits_0(name: str) -> None:
    golden = load(GOLDEN / f"{name}.json")
    done = run_replay(json.dumps(golden["record"]))
    assert done.returncode == 0, done.stderr
    assert "Traceback" not in done.stdout + done.stderr
    report = json.loads(done.stdout)
    if "report" in golden["expected"]:
        assert report == golden["expected"]["report"]
    else:
        assert_contains(report, golden["expected"]["facts"])


def test_replay_command_reads_a_file(tmp_path: Path) -> None:
    path = tmp_path / "game.json"
    path.write_text(json.dumps(load(GOLDEN / "s07_rules_example.json")["record"]), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0
    assert json.loads(done.stdout)["deals"][0]["result"]["winner"] == "EW"


def test_replay_command_exits_1_on_an_illegal_action() -> None:
    record = truncated(load(GOLDEN / "s01_rules_example.json")["record"], 0, 16, ["S play SA"])
    done = run_replay(json.dumps(record))
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert report["error"] == {
        "deal": 0,
        "index": 16,
        "action": "S play SA",
        "code": "must_trump",
        "message": report["error"]["message"],
    }
    assert report["deals"][0]["next"] == {"seat": "S", "legal": ["S play HQ"]}


def _s01() -> dict[str, Any]:
    return load(GOLDEN / "s01_rules_example.json")["record"]


def _with(change) -> str:
    record = _s01()
    change(record)
    return json.dumps(record)


MALFORMED = {
    "not_json": "{this is not json",
    "unknown_format": _with(lambda r: r.update(format="bauernschnapsen/9")),
    "unknown_card": _with(lambda r: r["deals"][0]["hands"]["N"].__setitem__(0, "XZ")),
    "duplicate_card": _with(lambda r: r["deals"][0]["hands"]["N"].__setitem__(0, "HT")),
    "bad_hands": _with(lambda r: r["deals"][0]["hands"]["N"].pop()),
    "unknown_seat": _with(lambda r: r.update(dealer="Q")),
    "bad_action_seat": _with(lambda r: r["deals"][0]["actions"].__setitem__(0, "X trump H")),
    "unknown_setting": _with(lambda r: r.update(rules={"preset": "standard", "no_such_setting": 1})),
    "unknown_preset": _with(lambda r: r.update(rules="casino")),
    "bad_setting": _with(lambda r: r.update(rules={"preset": "standard", "max_multiplier": 16})),
    "bad_action": _with(lambda r: r["deals"][0]["actions"].__setitem__(0, "N dance")),
    "not_an_object": "[1, 2, 3]",
}


@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_replay_command_exits_2_on_malformed_input(case: str) -> None:
    done = run_replay(MALFORMED[case])
    assert done.returncode == 2, done.stdout
    assert "Traceback" not in done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["ok"] is False
    assert report["error"]["message"]
    assert isinstance(report["error"]["code"], str)


def test_replay_command_never_prints_a_traceback_for_a_missing_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "engine.replay", str(tmp_path / "missing.json")],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 2
    assert json.loads(done.stdout)["ok"] is False


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_replay_steps_walk_the_record_one_action_at_a_time(path: Path) -> None:
    """``replay_steps`` is the replay itself, step by step: one start per deal, one step per action, each
    with the events ``apply`` gave; its last states and match are those of ``replay``."""
    record = parse_record(load(path)["record"])
    steps = list(replay_steps(record))
    replayed = replay(record)
    assert [step.state for step in steps if step.action is None] == [
        new_deal(record.rules, state.dealer, deal.hands) for state, deal in zip(replayed.deals, record.deals, strict=True)
    ]
    assert len(steps) == sum(1 + len(deal.actions) for deal in record.deals)
    state = None
    for step in steps:
        if step.action is None:
            state = step.state
            continue
        seat, action = parse_action(record.deals[step.deal].actions[step.action])
        state, events = apply(state, seat, action)
        assert (step.state, step.events) == (state, events)
    assert steps[-1].match == replayed.match
    assert [step.bummerl for step in steps if step.bummerl is not None] == [
        BummerlWon(b.winner, b.kind, b.count, b.score) for b in replayed.match.bummerls
    ]


def test_replay_steps_stop_at_an_illegal_action_and_say_where() -> None:
    record = load(GOLDEN / "s01_rules_example.json")["record"]
    bad = parse_record(truncated(record, 0, 3, ["N play HA"]))
    seen = []
    with pytest.raises(ReplayStopped) as stopped:
        for step in replay_steps(bad):
            seen.append(step.action)
    assert seen == [None, 0, 1, 2]
    assert (stopped.value.at.deal, stopped.value.at.index, stopped.value.at.action) == (0, 3, "N play HA")
    assert stopped.value.code == stopped.value.at.error.code == replay(bad).error.error.code  # type: ignore[union-attr]
