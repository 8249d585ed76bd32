"""``python -m engine.ai``: the JSON answer names the worlds behind the decision and behind each value."""

from __future__ import annotations

import json

from engine.ai.__main__ import run

RECORD = {
    "format": "bauernschnapsen/1",
    "rules": "standard",
    "dealer": "W",
    "deals": [
        {
            "hands": {
                "N": ["HA", "HK", "CQ", "DT", "SJ"],
                "E": ["HT", "DA", "DK", "CA", "SQ"],
                "S": ["HQ", "HJ", "SA", "ST", "CK"],
                "W": ["DQ", "DJ", "CT", "CJ", "SK"],
            },
            "actions": ["N trump H", "N pass", "E pass", "S pass", "W pass", "E pass", "W pass"],
        }
    ],
}


def test_output_counts_the_worlds_of_each_evaluation() -> None:
    status, answer = run(["-", "--budget-ms", "20", "--seed", "3"], json.dumps(RECORD))
    assert status == 0, answer
    assert answer["phase"] == "play"
    assert answer["worlds"] == max(e["worlds"] for e in answer["evaluations"]) > 0
    assert all(isinstance(e["worlds"], int) for e in answer["evaluations"])
