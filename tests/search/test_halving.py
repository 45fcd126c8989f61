"""Sequential halving at the searching seat's root (``halving``)."""

import math

import pytest

import engine_ext
import search
from search import mcts
from search.play import BotSettings, Position, new_game, play


def wide_position(min_moves: int = 40) -> engine_ext.State:
    """A Small Islands position (4 seats, greedy play) where the seat to act has at least ``min_moves`` moves."""
    position = Position(new_game("small_islands", 4, 3))
    for _ in play(position, 7, [BotSettings("greedy")] * 4):
        state = position.state
        if state.current_player() >= 0 and len(state.legal_actions()) >= min_moves:
            return state
    raise AssertionError("no wide decision in the game")


def run(state: engine_ext.State, budget: int | None, **settings) -> tuple[search.SearchConfig, dict]:
    time_ms = None if budget else 50
    config = search.SearchConfig(iterations=budget, time_ms=time_ms, seed=1, top_k=10_000, worlds=1, **settings)
    config = config.resolved(engine_ext.game_info(state.game_name))
    deadline = 0.0 if budget else mcts.monotonic() + 0.05
    result = mcts.run(state, state.current_player(), config, budget or -1, deadline, 7, search.Control(), 50_000)
    return config, result


def test_halving_spends_the_budget_in_rounds_that_keep_the_better_half():
    state = wide_position()
    moves = len(state.legal_actions())
    rounds = math.ceil(math.log2(moves))
    config, result = run(state, 3000, halving=True)
    entries = result["actions"]
    assert result["iterations"] == 3000 and len(entries) == moves and all(e["visits"] > 0 for e in entries)
    survived = sorted(e["survived"] for e in entries)
    # Every round halves the survivors (rounding up), and the last round's two are compared once the budget is spent.
    alive = moves
    for r in range(rounds):
        assert sum(1 for s in survived if s >= r) == alive, (r, survived)
        alive = (alive + 1) // 2
    # Two finalists; when the rounds' shares leave an iteration over, the last one halves them too.
    assert sum(1 for s in survived if s >= rounds - 1) == 2 and max(survived) in (rounds - 1, rounds)
    # Moves out in the same round had the same share of every round they played; later rounds mean more visits.
    by_round: dict[int, list[int]] = {}
    for e in entries:
        by_round.setdefault(e["survived"], []).append(e["visits"])
    finalists = [e for e in entries if e["survived"] >= rounds - 1]
    by_round[rounds - 1] = [e["visits"] for e in finalists]
    by_round.pop(rounds, None)
    for r, visits in by_round.items():
        assert max(visits) - min(visits) <= 1, (r, visits)
        if r + 1 in by_round:
            assert max(visits) < min(by_round[r + 1])
    # The two finalists hold at least the last round's share of the budget each.
    assert min(by_round[rounds - 1]) >= 3000 // rounds // 2
    # The move played is the finalist the last halving kept, or else the one with the better learnt mean, whatever
    # the visits say.
    pooled = {e["action"]: e for e in entries}
    ranked = search._rank(state, state.current_player(), pooled, [], config)
    if max(survived) == rounds:
        best = next(e for e in finalists if e["survived"] == rounds)
    else:
        best = max(finalists, key=lambda e: e["learnt_sum"] / e["visits"])
    assert ranked[0].action == best["action"]
    assert {m.action for m in ranked[:2]} == {e["action"] for e in finalists}


def test_without_halving_no_move_survives_any_round():
    state = wide_position()
    _, result = run(state, 3000)
    assert all(e["survived"] == 0 for e in result["actions"])
    # UCB spreads visits unevenly and not in halving's rounds: more distinct visit counts than rounds.
    assert len({e["visits"] for e in result["actions"]}) > math.ceil(math.log2(len(result["actions"])))


def test_a_time_budget_selects_by_ucb_and_ranks_by_visits():
    state = wide_position()
    config, result = run(state, None, halving=True)
    assert result["iterations"] > 0 and all(e["survived"] == 0 for e in result["actions"])
    ranked = search.suggest(state, state.current_player(), time_ms=50, seed=1, halving=True, top_k=10_000).moves
    assert [m.visits for m in ranked] == sorted((m.visits for m in ranked), reverse=True)


def test_threads_pool_the_rounds_each_survived():
    state = wide_position()
    seat = state.current_player()
    config = search.SearchConfig(iterations=4000, threads=2, seed=3, halving=True, top_k=10_000)
    config = config.resolved(engine_ext.game_info(state.game_name))
    pooled, runs = search._tree_search(state, seat, config, 0.0, search.Control())
    # Each thread halves its own 2,000 iterations; a move's rank sums the rounds it survived in both.
    assert [r["iterations"] for r in runs] == [2000, 2000]
    for action, slot in pooled.items():
        assert slot["survived"] == sum(e["survived"] for r in runs for e in r["actions"] if e["action"] == action)
    ranked = search._rank(state, seat, pooled, [], config)
    assert pooled[ranked[0].action]["survived"] == max(slot["survived"] for slot in pooled.values())


@pytest.mark.parametrize("threads", [1, 2])
def test_a_halving_search_spends_exactly_its_iterations_with_any_thread_count(threads):
    state = wide_position()
    result = search.suggest(
        state, state.current_player(), iterations=4000, threads=threads, seed=3, halving=True, top_k=10_000
    )
    assert result.stats["iterations"] == 4000 and result.stats["threads"] == threads
    assert sum(move.visits for move in result.moves) == 4000


def test_halving_and_a_lower_bound_choice_are_refused_together():
    state = wide_position()
    with pytest.raises(ValueError, match="halving and final_lcb"):
        search.suggest(state, state.current_player(), iterations=100, halving=True, final_lcb=2.0)
