"""Strength smoke tests (slow: run with ``pytest -m slow``; figures recorded in docs/benchmarks.md)."""

import pytest

from search.arena import run_match
from search.play import BotSettings


@pytest.mark.slow
def test_ismcts_with_a_modest_budget_beats_random_in_nine_games_of_ten():
    result = run_match(
        "survive", 2, BotSettings("ismcts", iterations=1000), BotSettings("random"), games=200, seed=0, workers=2
    )
    assert result["wins"] >= 180, result


def test_a_short_match_reports_consistent_counts():
    result = run_match("kuhn_poker", 2, BotSettings("ismcts", iterations=200), BotSettings("random"), games=20, seed=1)
    assert result["wins"] + result["ties"] + result["losses"] == 20
    assert result["ci95"][0] <= result["mean_win_share"] <= result["ci95"][1]
