"""Strength smoke tests (slow: run with ``pytest -m slow``; figures recorded in docs/benchmarks.md)."""

import pytest

from search.arena import run_match
from search.play import BotSettings


@pytest.mark.slow
def test_ismcts_with_a_modest_budget_beats_random_in_nine_games_of_ten():
    result = run_match(
        "survive", 2, BotSettings("ismcts", iterations=1000), BotSettings("random"), deals=100, seed=0, workers=2
    )
    assert result["configs"]["challenger"]["win_share"][0] >= 0.9, result
