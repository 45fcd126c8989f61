"""A tree search lays its trees out again as it grows (``mcts.compaction``): nodes move in memory, no result changes."""

import pytest

import engine_ext
import search
from search import mcts
from tests.search.test_playout_to import survive_turn_start


@pytest.fixture
def compaction():
    before = mcts.compaction()
    yield mcts.compaction
    mcts.compaction(before)


def first_decision(game: str, players: int):
    state = engine_ext.new_game(game, players, seed=3)
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    return state


def fingerprint(result):
    moves = [(m.action, m.visits, m.value, m.values, m.win_prob, m.pv) for m in result.moves]
    return moves, result.stats["nodes"], result.stats["iterations"]


CASES = [
    ("survive", 4, {"iterations": 3000}),  # one tree per seat
    ("survive", 4, {"iterations": 3000, "refine": 2, "refine_screen": 1500, "playout_to": "own_turn"}),
    ("survive", 2, {"iterations": 3000, "algorithm": "pimc", "worlds": 2}),  # one tree a world
    ("survive", 2, {"iterations": 3000, "halving": True, "open_loop": True}),  # the root's node held across rounds
    ("small_islands", 3, {"iterations": 2000}),
    ("small_islands", 2, {"iterations": 3000, "node_capacity": 1500}),  # a full tree laid out again
    ("islet", 2, {"iterations": 3000, "threads": 2}),  # a tree per thread, pooled
    ("leduc_poker", 2, {"iterations": 4000, "private_roots": True}),
]


@pytest.mark.parametrize(("game", "players", "settings"), CASES, ids=lambda c: str(c))
def test_laying_the_trees_out_again_changes_no_result(compaction, game, players, settings):
    state = survive_turn_start(players, 5) if game == "survive" else first_decision(game, players)
    seat = state.current_player()
    runs = {}
    for first in (0, 64, 1024):  # never, at 64 iterations and each doubling (six times), the default
        compaction(first)
        result = search.suggest(state, seat, seed=7, top_k=50, setup_algorithm="same", **settings)
        runs[first] = fingerprint(result)
    assert runs[64] == runs[0] and runs[1024] == runs[0]
    assert runs[0][1] > 1024  # the trees grew past the first layout


def test_a_kept_tree_laid_out_again_is_the_same_tree_for_the_next_search(compaction):
    state = survive_turn_start(2, 6)
    seat = state.current_player()
    outcomes = []
    for first in (0, 64):
        compaction(first)
        keeper = search.TreeKeeper(seat)
        search.suggest(state, seat, iterations=3000, seed=1, reuse=True, keeper=keeper)
        after = state.clone()
        action = after.legal_actions()[0]
        keeper.observe(after, action)
        after.apply(action)
        second = search.suggest(after, after.current_player(), iterations=2000, seed=2, reuse=True, keeper=keeper)
        outcomes.append((second.stats["reused_nodes"], fingerprint(second)))
    assert outcomes[0] == outcomes[1] and outcomes[0][0] > 0


def test_compaction_takes_a_number_of_iterations():
    before = mcts.compaction()
    assert before == 1024
    with pytest.raises(ValueError, match="compaction"):
        mcts.compaction(-1)
    assert mcts.compaction() == before
