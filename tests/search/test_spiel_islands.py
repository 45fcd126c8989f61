"""The island games as OpenSpiel states (benchmarks/spiel_islands.py), for OpenSpiel's ISMCTS: a resampled world is
one the acting seat cannot tell from the true one, and a pair of games against OpenSpiel's bot plays through."""

import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("pyspiel")
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
from spiel_islands import SpielGame, SpielState, play_pair, summary  # noqa: E402

import engine_ext  # noqa: E402
from search import play  # noqa: E402


@pytest.mark.parametrize("game", ["survive", "islet", "small_islands"])
def test_a_resampled_world_looks_the_same_to_the_acting_seat(game):
    rng = random.Random(7)
    state = play.new_game(game, 3, 11, {})
    checked = 0
    for _ in range(120):
        if state.is_terminal():
            break
        if state.current_player() == engine_ext.CHANCE:
            actions, weights = zip(*state.chance_outcomes(), strict=True)
            state.apply(rng.choices(actions, weights)[0])
            continue
        wrapped = SpielState(SpielGame(game, 3), state.clone(), random.Random(checked))
        seat = wrapped.current_player()
        world = wrapped.resample_from_infostate(seat, None)
        assert world.information_state_string(seat) == wrapped.information_state_string(seat)
        assert world.legal_actions() == wrapped.legal_actions() and world.current_player() == seat
        assert world.information_state_string(seat) != wrapped.information_state_string((seat + 1) % 3)
        checked += 1
        state.apply(rng.choice(state.legal_actions()))
    assert checked > 20


def test_a_pair_against_openspiels_ismcts_plays_through():
    games = play_pair("kuhn_poker", 2, 3, 50, {"iterations": 50}, 0)
    assert [g["our_seat"] for g in games] == [0, 1] and all(g["ours"] in (-2, -1, 1, 2) for g in games)
    assert summary(games)["pairs"] == 1
