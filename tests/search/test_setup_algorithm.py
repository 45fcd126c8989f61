"""``setup_algorithm``: a search plays another algorithm at the game's set-up decisions (Survive's placements)."""

import random

import pytest

import engine_ext
import search
from search import bench


def first_action_phase(seed):
    state = engine_ext.new_game("survive", 2, seed=seed)
    rng = random.Random(seed)
    while state.in_setup() or state.current_player() == engine_ext.CHANCE:
        if state.current_player() == engine_ext.CHANCE:
            bench.random_step(state, rng)
        else:
            state.apply(rng.choice(state.legal_actions()))
    return state


def test_a_set_up_decision_is_played_by_the_setup_algorithm_on_the_same_budget():
    state = engine_ext.new_game("survive", 2, seed=4)
    assert engine_ext.game_info("survive").in_setup(state)
    moves = len(state.legal_actions())
    big = search.suggest(state, 0, iterations=20 * moves, seed=3, setup_algorithm="greedy")
    greedy = search.suggest(state, 0, algorithm="greedy", iterations=20 * moves, seed=3)
    assert big.stats["algorithm"] == "greedy" and big.stats["worlds_sampled"] == 20
    assert [(m.action, m.value) for m in big.moves] == [(m.action, m.value) for m in greedy.moves]
    # A budget smaller than greedy's own sample still gets greedy's own worlds, not one or two.
    small = search.suggest(state, 0, iterations=200, seed=3, setup_algorithm="greedy")
    own = search.suggest(state, 0, algorithm="greedy", seed=3)
    assert small.stats["worlds_sampled"] == own.stats["worlds_sampled"] == search.GREEDY_SAMPLES
    assert [m.action for m in small.moves] == [m.action for m in own.moves]
    assert search.suggest(state, 0, iterations=200, seed=3, setup_algorithm="same").stats["algorithm"] == "ismcts"


def test_after_set_up_the_search_plays_itself():
    state = first_action_phase(5)
    assert not state.in_setup()
    result = search.suggest(state, state.current_player(), iterations=300, seed=1, setup_algorithm="greedy")
    plain = search.suggest(state, state.current_player(), iterations=300, seed=1, setup_algorithm="same")
    assert result.stats["algorithm"] == "ismcts"
    assert [(m.action, m.visits) for m in result.moves] == [(m.action, m.visits) for m in plain.moves]


def test_only_searches_are_replaced_and_games_without_set_up_decisions_are_untouched():
    state = engine_ext.new_game("survive", 2, seed=4)
    assert search.suggest(state, 0, algorithm="random", setup_algorithm="greedy").stats["algorithm"] == "random"
    islet = engine_ext.new_game("islet", 2, seed=1)
    rng = random.Random(1)
    while islet.current_player() == engine_ext.CHANCE:
        bench.random_step(islet, rng)
    assert engine_ext.game_info("islet").in_setup is None
    seat = islet.current_player()
    assert search.suggest(islet, seat, iterations=50, setup_algorithm="greedy").stats["algorithm"] == "ismcts"


def test_a_bad_setup_algorithm_is_refused_by_name():
    state = engine_ext.new_game("survive", 2, seed=4)
    with pytest.raises(ValueError, match="setup_algorithm: expected"):
        search.suggest(state, 0, setup_algorithm="minimax")
    with pytest.raises(ValueError, match="only for benchmarks"):
        search.suggest(state, 0, setup_algorithm="cheat")
