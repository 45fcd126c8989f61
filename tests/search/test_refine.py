"""``refine``: a screen by the leaf's evaluation, then a second stage over the screen's best root moves only."""

import dataclasses

import pytest

import engine_ext
import search
from search import arena, mcts
from tests.search.test_playout_to import survive_turn_start

SETTINGS = {"playout_to": "own_turn", "playout_candidates": 1}


def resolved(state, **settings) -> search.SearchConfig:
    config = search.SearchConfig(seed=3, top_k=10_000, **settings)
    return config.resolved(engine_ext.game_info(state.game_name), state.num_players())


@pytest.mark.parametrize("algorithm", ["ismcts", "cheat", "pimc"])
def test_root_moves_are_the_only_moves_the_root_takes(algorithm):
    state = survive_turn_start(4, 1)
    seat = state.current_player()
    legal = state.legal_actions()
    allowed = [legal[1], legal[-1]]
    config = resolved(state, algorithm=algorithm, iterations=900, worlds=3)
    result = mcts.run(state, seat, config, 900, 0.0, 5, search.Control(), 50_000, root_moves=allowed)
    visited = {entry["action"]: entry["visits"] for entry in result["actions"] if entry["visits"] > 0}
    assert set(visited) == set(allowed)
    assert sum(visited.values()) == result["iterations"] == 900
    free = mcts.run(state, seat, config, 900, 0.0, 5, search.Control(), 50_000)
    assert len([e for e in free["actions"] if e["visits"] > 0]) > 2  # the position has more moves to try


def test_root_moves_must_name_a_move():
    state = survive_turn_start(4, 1)
    config = resolved(state, iterations=100, worlds=1)
    with pytest.raises(ValueError, match="root_moves"):
        mcts.run(state, state.current_player(), config, 100, 0.0, 5, search.Control(), 10_000, root_moves=[])


def test_refine_searches_the_screens_best_moves_with_the_configured_playouts():
    state = survive_turn_start(4, 2)
    seat = state.current_player()
    result = search.suggest(state, seat, iterations=2000, refine=3, refine_screen=600, seed=3, top_k=10_000, **SETTINGS)
    screen = search.suggest(state, seat, iterations=600, seed=3, top_k=10_000, playout_to="steps")
    best = [move.action for move in screen.moves[:3]]
    # The second stage's moves come first; the rest keep the screen's order and figures.
    assert {move.action for move in result.moves[:3]} == set(best)
    assert [(m.action, m.visits) for m in result.moves[3:]] == [(m.action, m.visits) for m in screen.moves[3:]]
    assert result.stats["iterations"] == 2000
    # The second stage is a search of the remaining 1,400 iterations from the same position, its root restricted to
    # those moves, with the configured playouts (own_turn), on its own seed.
    config = resolved(state, iterations=2000, refine=3, refine_screen=600, worlds=1, **SETTINGS)

    def second_stage(playout_to: str) -> dict[int, int]:
        seed = search._thread_seed(3, search.REFINE_THREADS)
        capacity = 2000 * 5 + 4 + 64  # what suggest gives a 2,000-iteration search with four seats
        again = dataclasses.replace(config, playout_to=playout_to)
        run = mcts.run(state, seat, again, 1400, 0.0, seed, search.Control(), capacity, root_moves=best)
        return {entry["action"]: entry["visits"] for entry in run["actions"] if entry["visits"] > 0}

    visits = second_stage("own_turn")
    assert {move.action: move.visits for move in result.moves[:3]} == visits
    assert sum(visits.values()) == 1400
    assert second_stage("steps") != visits
    assert result.best.action == max(visits, key=lambda a: (visits[a], -a))


def test_without_a_second_stage_the_screen_is_the_search():
    state = survive_turn_start(4, 2)
    seat = state.current_player()
    plain = search.suggest(state, seat, iterations=500, seed=4, top_k=10_000, playout_to="steps")
    for settings in ({"iterations": 500}, {"iterations": 400, "time_ms": 60_000}):
        small = search.suggest(state, seat, refine=3, refine_screen=500, seed=4, top_k=10_000, **SETTINGS | settings)
        if settings["iterations"] == 500:
            assert [(m.action, m.visits) for m in small.moves] == [(m.action, m.visits) for m in plain.moves]
        assert small.stats["iterations"] == settings["iterations"]


@pytest.mark.parametrize("second_iterations", [40, 599, 600])
def test_a_second_stage_cut_short_leaves_the_screens_choice(monkeypatch, second_iterations):
    # A time limit or a cancellation that stops the second stage before it has run the screen's iterations (600
    # here, of 1,400 planned) leaves the screen's ranking, not a choice among a few noisy visits.
    state = survive_turn_start(4, 2)
    seat = state.current_player()
    run = mcts.run

    def cut(state, seat, config, budget, *args, root_moves=None, **kwargs):
        if root_moves is not None:
            budget = min(budget, second_iterations)  # what a deadline would leave it
        return run(state, seat, config, budget, *args, root_moves=root_moves, **kwargs)

    monkeypatch.setattr(mcts, "run", cut)
    result = search.suggest(state, seat, iterations=2000, refine=3, refine_screen=600, seed=3, top_k=10_000, **SETTINGS)
    screen = search.suggest(state, seat, iterations=600, seed=3, top_k=10_000, playout_to="steps")
    assert result.stats["iterations"] == 600 + second_iterations  # every iteration run is counted
    same = [(m.action, m.visits) for m in result.moves] == [(m.action, m.visits) for m in screen.moves]
    assert same == (second_iterations < 600)
    if same:
        assert result.best.pv == screen.best.pv


@pytest.mark.parametrize("threads", [1, 2])
def test_refine_pools_the_threads_of_each_stage(threads):
    state = survive_turn_start(4, 3)
    result = search.suggest(
        state, state.current_player(), iterations=1600, threads=threads, refine=2, refine_screen=400, seed=1, **SETTINGS
    )
    assert result.stats["iterations"] == 1600 and result.stats["threads"] == threads
    assert sum(move.visits for move in result.moves[:2]) == 1200


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        ({"refine": 1}, "refine"),
        ({"refine": -2}, "refine"),
        ({"refine": 2, "refine_screen": 0}, "refine_screen"),
    ],
)
def test_bad_refine_settings_are_refused(settings, message):
    state = survive_turn_start(4, 1)
    with pytest.raises(ValueError, match=message):
        search.suggest(state, state.current_player(), iterations=100, **settings)


def test_a_record_without_refine_plays_as_refine_off():
    old = {"algorithm": "ismcts", "iterations": 3000, "playout_to": "steps", "minimax_prior": 0.0}
    new = old | {"refine": 0, "refine_screen": 3000}
    assert arena.behaviour(old) == arena.behaviour(new)
    assert arena.behaviour(new | {"refine_screen": 500}) == arena.behaviour(new)  # no refine: the screen is unread
    assert arena.behaviour(new | {"refine": 3}) != arena.behaviour(new | {"refine": 3, "refine_screen": 500})
