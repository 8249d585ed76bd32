"""Serves the decisions of the AI in another source tree (an older commit checked out by bench/ai_match.py).

    python bench/ai_ref_server.py ROOT

imports ``engine`` from ROOT, prints one JSON line naming the file it imported, then answers one JSON line
per request line: ``{"dealer": D, "hands": [[cards] x4], "actions": ["N play HA", ...], "seat": S,
"player": NAME, "seed": N, "budget_ms": M}`` -> ``{"action": "N play HT", "cpu_ms": C, "kind": K}``: the
process CPU time of ``choose_action`` and the decision's kind (bench/ai_cost.py reads both). The state is rebuilt from the
deal and its actions with the older engine, so only the record notation crosses the process boundary.
"""

from __future__ import annotations

import json
import sys
import time


def main() -> int:
    sys.path.insert(0, sys.argv[1])
    import engine
    from engine.actions import format_action, parse_action
    from engine.ai import choose_action
    from engine.deal import new_deal
    from engine.rules import apply_unchecked
    from engine.ruleset import STANDARD
    from engine.views import view_for

    print(json.dumps({"engine": engine.__file__}), flush=True)
    for line in sys.stdin:
        if not line.strip():
            continue
        request = json.loads(line)
        hands = tuple(tuple(hand) for hand in request["hands"])
        state = new_deal(STANDARD, request["dealer"], hands)
        for text in request["actions"]:
            seat, action = parse_action(text)
            state, _ = apply_unchecked(state, seat, action)
        seat = request["seat"]
        view = view_for(state, seat)
        started = time.process_time()
        action = choose_action(view, request["player"], request["seed"], request["budget_ms"], STANDARD)
        cpu_ms = (time.process_time() - started) * 1000
        kind = state.phase if state.phase != "play" else f"card{len(view.witnessed) // 4 + 1}"
        reply = {"action": format_action(seat, action), "cpu_ms": round(cpu_ms, 3), "kind": kind}
        print(json.dumps(reply), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
