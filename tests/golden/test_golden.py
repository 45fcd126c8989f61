"""Engines and searches give byte-identical results for the same seeds as when golden.json was recorded.

A refactoring must not change what the games do or what the search answers; ``make_golden.py`` rewrites the file
only when a change is meant to.
"""

import json
from pathlib import Path

import pytest
from make_golden import GAMES, search_record, trace

GOLDEN = json.loads((Path(__file__).parent / "golden.json").read_text())


@pytest.mark.parametrize("key", sorted(GOLDEN["traces"]))
def test_random_game_traces_are_unchanged(key):
    game, players, seed = key.split("/")
    assert game in GAMES
    assert trace(game, int(players), int(seed)) == GOLDEN["traces"][key]


@pytest.mark.parametrize("case", GOLDEN["searches"], ids=lambda c: f"{json.loads(c['state'])['game']}-{c['algorithm']}")
def test_search_results_are_unchanged(case):
    assert search_record(case["state"], case["algorithm"], case["iterations"]) == case["result"]
