"""``python -m engine.ai FILE`` (``-`` for standard input): the AI's decision for the seat to act at the end
of a game record, with its evaluation of every legal action, as JSON.

Options: ``--player NAME`` (random, greedy, pimc; default pimc), ``--seed N`` (default 0),
``--budget-ms N`` (default 150). Exit status 0 with a decision, 2 on bad input (never a traceback). The
output names the number of worlds the decision used (``worlds``) and, per evaluation, the worlds behind
its value.

``--review SEAT`` (N, E, S or W) judges that seat's decisions in a deal instead (``--deal N``, default the
last; finished or not): ``review`` lists each decision where the seat had a choice, in order, with what it
played, the AI's choice (``action``), the expected game points it lost (``loss``) and every evaluation
(``engine.ai.analysis``; the bot's "Review my play" shows the costly ones).
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ..actions import format_action
from ..cards import SEAT_NAMES
from ..cli import run_json_command
from ..errors import MalformedInput
from ..record import GameRecord, load_record_text, replay
from ..views import view_for
from . import DEFAULT_PLAYER, PLAYERS, analysis, evaluate_actions


class _UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(prog="python -m engine.ai", add_help=False)
    parser.add_argument("file")
    parser.add_argument("--player", default=DEFAULT_PLAYER, choices=PLAYERS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--budget-ms", type=int, default=150)
    parser.add_argument("--review", choices=SEAT_NAMES)
    parser.add_argument("--deal", type=int)
    return parser


def _fail(code: str, message: str) -> tuple[int, dict[str, Any]]:
    return 2, {"ok": False, "error": {"code": code, "message": message}}


def run(argv: list[str], stdin_text: str | None = None) -> tuple[int, dict[str, Any]]:
    try:
        args = _parser().parse_args(argv)
    except _UsageError as err:
        usage = (
            "python -m engine.ai FILE [--player random|greedy|pimc] [--seed N] [--budget-ms N]"
            " [--review N|E|S|W [--deal N]]"
        )
        return _fail("usage", f"{err}; usage: {usage}")
    if args.budget_ms < 1:
        return _fail("usage", "--budget-ms must be at least 1")
    try:
        if args.file == "-":
            text = sys.stdin.read() if stdin_text is None else stdin_text
        else:
            with open(args.file, encoding="utf-8") as handle:
                text = handle.read()
    except (OSError, UnicodeDecodeError) as err:
        return _fail("unreadable", f"cannot read {args.file}: {err}")
    try:
        record = load_record_text(text)
        replayed = replay(record)
    except MalformedInput as err:
        return _fail(err.code, err.message)
    if replayed.error is not None:
        illegal = replayed.error
        where = f"deals[{illegal.deal}].actions[{illegal.index}]"
        return _fail("illegal_action", f"{where} {illegal.action!r} is illegal: {illegal.error.message}")
    if not replayed.deals:
        return _fail("no_deal", "the record has no deal, so nobody is to act")
    if args.review is not None:
        return _review(args, record)
    state = replayed.deals[-1]
    if state.finished or state.to_act is None:
        return _fail("deal_finished", "the last deal of the record is finished: nobody is to act")
    seat = state.to_act
    view = view_for(state, seat)
    action, evaluations = evaluate_actions(view, args.player, args.seed, args.budget_ms, replayed.match.rules)
    return 0, {
        "ok": True,
        "seat": SEAT_NAMES[seat],
        "phase": state.phase,
        "player": args.player,
        "seed": args.seed,
        "budget_ms": args.budget_ms,
        "action": format_action(seat, action),
        # Worlds (sampled or enumerated deals of the hidden cards) the search solved for this decision.
        "worlds": max((e.worlds for e in evaluations), default=0),
        "evaluations": analysis.evaluations_json(seat, evaluations),
    }


def _review(args: argparse.Namespace, record: GameRecord) -> tuple[int, dict[str, Any]]:
    deal = len(record.deals) - 1 if args.deal is None else args.deal
    if not 0 <= deal < len(record.deals):
        return _fail("usage", f"--deal must be from 0 to {len(record.deals) - 1}")
    seat = SEAT_NAMES.index(args.review)
    decisions = analysis.review(record, deal, seat, args.player, args.seed, args.budget_ms)
    return 0, {
        "ok": True,
        "seat": args.review,
        "deal": deal,
        "player": args.player,
        "seed": args.seed,
        "budget_ms": args.budget_ms,
        "review": [analysis.judged_json(d) for d in decisions],
    }


def main() -> int:
    return run_json_command(run, help_doc=__doc__)


if __name__ == "__main__":
    sys.exit(main())
