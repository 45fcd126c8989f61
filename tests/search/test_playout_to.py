"""``SearchConfig.playout_to``: playouts played on to a turn boundary before the heuristic scores them."""

import json
import random

import pytest

import engine_ext
import search
from search import mcts


def control(state) -> dict:
    return json.loads(state.to_json())["control"]


def survive_turn_start(players: int, seed: int):
    """A Survive position at the start of a seat's Action phase (three movements left), after random set-up and play."""
    rng = random.Random(seed)
    state = engine_ext.new_game("survive", players, seed=seed)
    while True:
        player = state.current_player()
        assert player != engine_ext.TERMINAL
        c = control(state)
        if player >= 0 and c["phase"] == "action" and c["moves_left"] == 3 and c["turn"] > 2 * players:
            return state
        if player == engine_ext.CHANCE:
            outcomes = state.chance_outcomes()
            state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
        else:
            state.apply(rng.choice(state.legal_actions()))


@pytest.mark.parametrize("players", [2, 4])
def test_turn_stops_at_the_next_seats_turn(players):
    for seed in range(3):
        state = survive_turn_start(players, seed)
        seat, start = state.current_player(), control(state)
        after, steps = mcts.play_on(state, seat, "turn", seed)
        end = control(after)
        assert steps >= 3  # at least a tile removal, the die and a creature move (movements may be fewer)
        if not after.is_terminal():
            assert end["turn"] == start["turn"] + 1
            assert end["active"] == (seat + 1) % players
            assert end["phase"] == "action"


@pytest.mark.parametrize("players", [2, 4])
def test_own_turn_stops_at_the_seats_next_turn(players):
    for seed in range(3):
        state = survive_turn_start(players, seed)
        seat, start = state.current_player(), control(state)
        after, steps = mcts.play_on(state, seat, "own_turn", seed)
        end = control(after)
        if not after.is_terminal():
            assert end["turn"] == start["turn"] + players
            assert end["active"] == seat and after.current_player() == seat
            assert end["phase"] == "action"
            assert steps > players * 3


@pytest.mark.parametrize("players", [2, 4])
def test_chance_stops_at_the_turns_first_chance_event(players):
    for seed in range(3):
        state = survive_turn_start(players, seed)
        seat, start = state.current_player(), control(state)
        after, steps = mcts.play_on(state, seat, "chance", seed)
        end = control(after)
        assert steps >= 1  # the tile removal at least: it is a decision, and the revealed back is chance
        assert after.current_player() == engine_ext.CHANCE
        assert end["turn"] == start["turn"] and end["active"] == seat


def test_a_leaf_at_a_boundary_is_scored_where_it_stands():
    state = survive_turn_start(2, 5)
    seat = state.current_player()
    # The leaf's last tree move ended the other seat's turn: the position is already where both modes stop.
    after, steps = mcts.play_on(state, seat, "own_turn", 1, last_turn=1 - seat)
    assert steps == 0 and after.to_json() == state.to_json()
    after, steps = mcts.play_on(state, seat, "turn", 1, last_turn=1 - seat)
    assert steps == 0
    # For the other seat, this seat's whole turn is still to come.
    after, steps = mcts.play_on(state, 1 - seat, "own_turn", 1, last_turn=1 - seat)
    assert steps > 0 and control(after)["active"] == 1 - seat


def test_a_game_without_turn_owner_ends_a_turn_when_the_mover_changes():
    state = engine_ext.new_game("small_islands", 2, seed=3)
    rng = random.Random(3)
    for _ in range(12):
        if state.current_player() == engine_ext.CHANCE:
            state.apply(state.chance_outcomes()[0][0])
        else:
            state.apply(rng.choice(state.legal_actions()))
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    mover = state.current_player()
    after, steps = mcts.play_on(state, mover, "turn", 2)
    assert steps >= 1
    assert after.is_terminal() or after.current_player() not in (mover,)


def test_the_moves_played_on_are_the_heuristics_choice():
    """With one candidate the light policy moves; with many the heuristic's best: the two end in different places."""
    state = survive_turn_start(2, 7)
    seat = state.current_player()
    greedy = {mcts.play_on(state, seat, "turn", s, candidates=64)[0].to_json() for s in range(6)}
    light = {mcts.play_on(state, seat, "turn", s, candidates=1)[0].to_json() for s in range(6)}
    assert greedy != light


def test_bad_settings_are_refused():
    state = survive_turn_start(2, 1)
    seat = state.current_player()
    with pytest.raises(ValueError, match="playout_to"):
        search.suggest(state, seat, search.SearchConfig(iterations=50, playout_to="round"))
    with pytest.raises(ValueError, match="playout_candidates"):
        search.suggest(state, seat, search.SearchConfig(iterations=50, playout_to="turn", playout_candidates=0))
    with pytest.raises(ValueError, match="playout_to"):
        mcts.play_on(state, seat, "steps", 1)
    with pytest.raises(ValueError, match="last_turn"):
        mcts.play_on(state, seat, "turn", 1, last_turn=2)
    with pytest.raises(ValueError, match="candidates"):
        mcts.play_on(state, seat, "turn", 1, candidates=0)


@pytest.mark.parametrize("algorithm", ["ismcts", "pimc"])
def test_a_search_with_turn_playouts_plays_legal_moves_and_learns_other_values(algorithm):
    state = survive_turn_start(2, 2)
    seat = state.current_player()
    base = search.SearchConfig(algorithm=algorithm, iterations=400, seed=3)
    plain = search.suggest(state, seat, base)
    for mode in ("turn", "own_turn", "chance"):
        result = search.suggest(
            state,
            seat,
            search.SearchConfig(algorithm=algorithm, iterations=400, seed=3, playout_to=mode, playout_candidates=2),
        )
        assert result.moves[0].action in state.legal_actions()
        assert [(m.action, m.visits) for m in result.moves] != [(m.action, m.visits) for m in plain.moves]


def test_resolved_takes_candidates_for_playout_candidates():
    info = engine_ext.game_info("survive")
    resolved = search.SearchConfig(candidates=5).resolved(info, 2)
    assert resolved.playout_to == "steps" and resolved.playout_candidates == 5
    assert search.SearchConfig(playout_candidates=2).resolved(info, 2).playout_candidates == 2
