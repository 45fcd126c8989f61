"""Tree reuse: a bot seat's next search starts from the subtree its observations lead to (``reuse``, with a
``search.TreeKeeper`` that the game loop keeps per bot seat)."""

import statistics
from dataclasses import replace

import pytest

import engine_ext
import search
from search import mcts, play
from search.play import BotSettings, Position


def kuhn(*actions):
    state = engine_ext.new_game("kuhn_poker", 2)
    for a in actions:
        state.apply(a)
    return state


def step(state, keepers, action):
    for keeper in keepers:
        keeper.observe(state, action)
    state.apply(action)


def test_the_seats_next_search_starts_from_the_subtree_its_observations_lead_to():
    # Kuhn, J and Q dealt: the opener passes, the other seat bets, the opener decides again. The first search has
    # been through that node many times; the second starts from it, so its root children carry prior visits.
    state = kuhn(0, 1)
    keeper = search.TreeKeeper(0)
    first = search.suggest(state, 0, iterations=2000, seed=1, reuse=True, keeper=keeper, top_k=5)
    assert first.stats["reused_nodes"] == 0 and keeper.nodes > 0
    step(state, [keeper], state.string_to_action("Pass"))
    step(state, [keeper], state.string_to_action("Bet"))
    assert len(keeper.path) == 2  # what seat 0 observed of each move since its search
    second = search.suggest(state, 0, iterations=500, seed=2, reuse=True, keeper=keeper, top_k=5)
    assert second.stats["reused_nodes"] > 0
    assert sum(m.visits for m in second.moves) > 500  # prior visits count in the ranking
    # Without a keeper (or with reuse off) the same search starts afresh.
    plain = search.suggest(state, 0, iterations=500, seed=2, reuse=True, top_k=5)
    assert sum(m.visits for m in plain.moves) == 500 and "reused_nodes" not in plain.stats
    off = search.TreeKeeper(0)  # (Kuhn's beliefs keep the trees too: they read them)
    assert sum(m.visits for m in search.suggest(state, 0, iterations=500, beliefs=False, keeper=off).moves) <= 500
    assert off.nodes == 0
    believing = search.TreeKeeper(0)
    assert sum(m.visits for m in search.suggest(state, 0, iterations=500, reuse=False, keeper=believing).moves) == 500
    assert believing.nodes > 0  # kept for the beliefs, never a prior for the next search without reuse


def test_a_line_the_tree_never_took_starts_afresh_and_settings_changes_drop_the_trees():
    state = engine_ext.new_game("survive", 2, seed=4)  # a set-up placement, searched rather than left to greedy
    keeper = search.TreeKeeper(0)
    search.suggest(state, 0, iterations=300, seed=1, reuse=True, keeper=keeper, setup_algorithm="same")
    kept = keeper.nodes
    assert kept > 0
    keeper.path = [2**30 + 7]  # no such observed action under the root
    result = search.suggest(state, 0, iterations=300, seed=1, reuse=True, keeper=keeper, setup_algorithm="same")
    assert result.stats["reused_nodes"] == 0 and keeper.path == []
    # Other settings (here the UCB constant) learnt other values: the kept trees are dropped, not mixed in.
    search.suggest(state, 0, iterations=300, seed=1, reuse=True, keeper=keeper, setup_algorithm="same", exploration=0.5)
    assert keeper.path == [] and keeper.fingerprint[2].exploration == 0.5
    with pytest.raises(ValueError, match="keeper"):
        search.suggest(state, 0, iterations=10, reuse=True, keeper=search.TreeKeeper(1))


def learnt_means(result):
    return {e["action"]: e["learnt_sum"] / e["visits"] for e in result["actions"] if e["visits"]}


def heuristic_mean(state, seat, worlds=200):
    return statistics.mean(
        mcts.evaluate_state(state.determinize(seat, k), seat, k, 0, True, "danger")[seat] for k in range(worlds)
    )


def test_reused_values_are_rebased_on_the_new_root():
    # Survive, 2 players: seat 0 is about to rescue a 5 (a large gain by the heuristic) and moves again after. The
    # kept children's learnt values must be relative to the new root, as a fresh search there learns them, not to
    # the old root, which would put them the rescue's whole gain higher (the control variate's baseline moved).
    state = play.new_game("survive", 2, 15)
    position = Position(state)
    # The evaluation is named, so the position and the search do not move with the game's default.
    for _ in play.play(position, 15, [BotSettings("greedy", heuristic="danger")] * 2):
        if position.moves == 79:
            break
    seat = state.current_player()
    config = search.SearchConfig(iterations=20000, heuristic="danger")
    config = replace(config.resolved(engine_ext.game_info("survive")), worlds=1)
    forest, control = mcts.Forest(), search.Control()
    first = mcts.run(state, seat, config, 20000, 0.0, 1, control, 200_000, forest=forest, path=[])
    best = max(first["actions"], key=lambda e: e["visits"])["action"]
    assert state.action_to_string(best).endswith("->NW")
    before = heuristic_mean(state, seat)
    observed = state.observed_action(best, seat)
    state.apply(best)
    assert state.current_player() == seat
    gain = heuristic_mean(state, seat) - before
    assert gain > 0.05
    kept = mcts.run(state, seat, config, 1, 0.0, 2, control, 200_000, forest=forest, path=[observed])
    fresh = mcts.run(state, seat, config, 20000, 0.0, 3, control, 200_000)
    assert kept["reused"] > 1000
    top = max(kept["actions"], key=lambda e: e["visits"])["action"]
    assert abs(learnt_means(kept)[top] - learnt_means(fresh)[top]) < 0.4 * gain


def test_a_game_loop_reuses_trees_and_stays_reproducible():
    bots = [BotSettings("ismcts", iterations=400, reuse=True), BotSettings("ismcts", iterations=400)]
    moves = []
    for _ in range(2):
        position = Position(play.new_game("survive", 2, 9))
        moves.append([s.action for s in play.play(position, 9, bots)])
        assert position.keepers[0].fingerprint is not None and position.keepers[1].fingerprint is None
    assert moves[0] == moves[1]


def test_kept_trees_do_not_grow_search_after_search():
    # The same position searched again and again (the path since is empty, so the whole tree is kept each time): the
    # trees stay within twice the search's own node capacity instead of growing by it every time.
    state = engine_ext.new_game("survive", 2, seed=4)
    config = replace(search.SearchConfig(iterations=400).resolved(engine_ext.game_info("survive")), worlds=1)
    forest, control = mcts.Forest(), search.Control()
    sizes = []
    for k in range(6):
        result = mcts.run(state, 0, config, 400, 0.0, k, control, 1000, forest=forest, path=[])
        sizes.append(forest.nodes)
    assert result["reused"] > 0 and sizes[0] <= 1000
    assert max(sizes) <= 2 * 1000 + 2 and sizes[-1] > sizes[0]


@pytest.mark.parametrize("threads", [1, 2])
def test_a_reused_search_counts_its_own_iterations_and_the_kept_visits_with_any_thread_count(threads):
    # Visits at the root = this search's iterations + the visits its kept subtrees already had, whatever the number
    # of threads: pooling the threads' roots must not drop the kept visits (nor count them twice).
    def kept_then(iterations: int):
        state = kuhn(0, 1)
        keeper = search.TreeKeeper(0)
        search.suggest(state, 0, iterations=4000, seed=1, reuse=True, keeper=keeper, threads=threads)
        step(state, [keeper], state.string_to_action("Pass"))
        step(state, [keeper], state.string_to_action("Bet"))
        result = search.suggest(
            state, 0, iterations=iterations, seed=2, reuse=True, keeper=keeper, threads=threads, top_k=5
        )
        assert result.stats["iterations"] == iterations and result.stats["threads"] == threads
        assert result.stats["reused_nodes"] > 0
        return sum(m.visits for m in result.moves)

    small, large = kept_then(500), kept_then(900)
    kept = small - 500
    assert kept > 100  # the kept subtree's own visits (its node was reached about a third of 4,000 times)
    assert large == 900 + kept  # the same kept visits, plus exactly this search's iterations
