"""Defects the strength work found in the search, each pinned (issue: playing strength)."""

from dataclasses import replace

import pytest
from survive_positions import position

import engine_ext
import search
from search import mcts


def kuhn(*actions):
    state = engine_ext.new_game("kuhn_poker", 2)
    for a in actions:
        state.apply(a if isinstance(a, int) else state.string_to_action(a))
    return state


def setup_decision():
    state = engine_ext.new_game("survive", 2, seed=3)
    assert len(state.legal_actions()) > 100
    return state


def test_flat_picks_the_best_move_whatever_the_budget_modulo_the_moves():
    # Seat 1 holds the King against a bet: calling cannot lose. An odd budget gives Pass (first) one visit more.
    state = kuhn(0, 2, "Bet")
    for iterations in (2001, 2003):
        assert search.suggest(state, 1, iterations=iterations, algorithm="flat").best.text == "Bet"


def test_pimc_gives_every_world_more_iterations_than_there_are_moves():
    state = setup_decision()
    stats = search.suggest(state, 0, iterations=1000, algorithm="pimc", setup_algorithm="same").stats
    assert stats["worlds_sampled"] * len(state.legal_actions()) <= 1000
    stats = search.suggest(state, 0, iterations=40_000, algorithm="pimc", setup_algorithm="same").stats
    assert 1 < stats["worlds_sampled"] <= 32


def test_greedy_samples_its_own_number_of_worlds_when_given_no_budget():
    stats = search.suggest(setup_decision(), 0, algorithm="greedy").stats
    assert stats["worlds_sampled"] == search.GREEDY_SAMPLES


def test_visit_ties_are_broken_by_the_value_the_tree_learnt_not_by_raw_returns():
    state = kuhn(0, 2, "Bet")
    pooled = {
        0: {"visits": 10, "value_sums": [9.0, -9.0], "win_sum": 9.0, "learnt_sum": 3.0},
        1: {"visits": 10, "value_sums": [1.0, -1.0], "win_sum": 1.0, "learnt_sum": 7.0},
    }
    config = search.SearchConfig(algorithm="ismcts")
    ranked = search._rank(
        state, 1, {a: {**v, "value_sums": v["value_sums"][::-1]} for a, v in pooled.items()}, [], config
    )
    assert [m.action for m in ranked] == [1, 0]


def test_tree_values_keep_full_precision_over_millions_of_rewards():
    state = engine_ext.new_game("leduc_poker", 2)
    for action in (0, 4, 2):
        state.apply(action)
    config = replace(search.SearchConfig(iterations=3_000_000).resolved(engine_ext.game_info("leduc_poker")), worlds=1)
    run = mcts.run(state, 1, config, 3_000_000, 0.0, 1, search.Control(), 4_000_000)
    learnt = {entry["action"]: entry["learnt_sum"] for entry in run["actions"]}
    busiest = max(run["root_children"], key=lambda c: c["visits"])
    assert busiest["visits"] > 1_000_000
    assert busiest["value_sum"] == pytest.approx(learnt[busiest["action"]], rel=1e-9)


def test_the_compiled_search_itself_returns_legal_moves():
    state = position(adventurers={"red": [("(5,-3)", 5)], "green": [("(6,-4)", 2)]}, rafts=("(6,-3)",))
    legal = set(state.legal_actions())
    for algorithm in ("ismcts", "pimc", "flat", "cheat"):
        config = replace(
            search.SearchConfig(algorithm=algorithm, iterations=500).resolved(engine_ext.game_info("survive")), worlds=2
        )
        run = mcts.run(state, 0, config, 500, 0.0, 7, search.Control(), 100_000)
        assert run["actions"] and {entry["action"] for entry in run["actions"]} <= legal, algorithm
        assert all(action in legal for action in run["pv"][:1]), algorithm


def test_flat_compares_every_move_on_the_same_worlds_in_whole_rounds():
    # Each sampled world scores every move (one world a round, not one a sample), and a round the budget would cut
    # short is dropped, so every move has the same number of samples.
    state = setup_decision()
    n = len(state.legal_actions())
    result = search.suggest(state, 0, iterations=3 * n + 5, algorithm="flat", setup_algorithm="same", top_k=n)
    assert result.stats["worlds_sampled"] == 3
    assert len(result.moves) == n
    assert {m.visits for m in result.moves} == {3}
    # A budget below the number of moves still scores the moves it reached.
    result = search.suggest(state, 0, iterations=n // 2, algorithm="flat", setup_algorithm="same", top_k=n)
    assert result.stats["worlds_sampled"] == 1 and len(result.moves) == n // 2
