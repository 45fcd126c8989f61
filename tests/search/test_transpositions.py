"""Canonical move order: the search skips the second order of two of a seat's moves that commute (Survive's
``GameVTable.redundant``), so its tree does not split visits between transpositions of one plan."""

import random

import pytest
from survive_positions import apply, position

import engine_ext
import search
from engine_ext import survive, survive_board
from search import bench


def settle_choices(state, player):
    """Resolve the player's in-between decisions (who boards, a reaction) by their first option, until it moves."""
    while not state.is_terminal() and state.current_player() == player:
        texts = [state.action_to_string(a) for a in state.legal_actions()]
        if any(t.startswith("move ") or t == "end" for t in texts):
            return
        state.apply(state.legal_actions()[0])


def action_phase_positions(games, seed):
    """Action-phase decisions of random 2-player games, every few steps."""
    rng = random.Random(seed)
    for game in range(games):
        state = engine_ext.new_game("survive", 2, seed=seed + game)
        while not state.is_terminal():
            player = state.current_player()
            if player == engine_ext.CHANCE:
                bench.random_step(state, rng)
                continue
            legal = state.legal_actions()
            if rng.random() < 0.15 and state.observation(player)["control"]["phase"] == "action":
                yield state.clone()
            state.apply(rng.choice(legal))


def transposed_pairs(state, limit, rng):
    """Up to ``limit`` (first, second) pairs from ``state``: ``second`` is a transposition right after ``first``."""
    player = state.current_player()
    pairs = []
    for first in state.legal_actions():
        after = state.clone()
        after.apply(first)
        if after.current_player() == player:
            pairs += [(first, after, second) for second in after.legal_actions() if after.transposes(first, second)]
    return rng.sample(pairs, min(limit, len(pairs)))


def test_a_move_called_a_transposition_reaches_the_same_position_in_the_other_order():
    checked = 0
    rng = random.Random(0)
    for state in action_phase_positions(games=3, seed=11):
        player = state.current_player()
        for first, after, second in transposed_pairs(state, 12, rng):
            assert second < first and second in state.legal_actions()
            one_way = after.clone()
            one_way.apply(second)
            settle_choices(one_way, player)
            other_way = state.clone()
            other_way.apply(second)
            settle_choices(other_way, player)
            assert first in other_way.legal_actions()
            other_way.apply(first)
            settle_choices(other_way, player)
            assert other_way.to_json() == one_way.to_json()
            checked += 1
    assert checked > 100  # the rule is not vacuous: many pairs commute


def step_nodes(text):
    """The from and to nodes of a movement's text, e.g. 'move red:4 (2,1)->(2,0)' or 'move raft (5,-3)->NW'."""
    frm, to = text.split()[-1].split("->")
    return survive.parse_node(frm), survive.parse_node(to)


def near(a, b):
    return a == b or b in survive_board.NEIGHBOURS[a]


def test_moves_that_touch_neighbouring_spaces_or_a_rescue_island_are_never_transpositions():
    seen = {"far": 0, "near": 0, "island": 0}
    for state in action_phase_positions(games=1, seed=5):
        player = state.current_player()
        for first in state.legal_actions():
            after = state.clone()
            after.apply(first)
            if after.current_player() != player:
                continue
            a = state.action_to_string(first)
            for second in after.legal_actions():
                b = after.action_to_string(second)
                called = after.transposes(first, second)
                if second >= first or not (a.startswith("move ") and b.startswith("move ")):
                    assert not called
                    continue
                nodes_a, nodes_b = step_nodes(a), step_nodes(b)
                if any(n >= survive_board.NUM_CELLS for n in nodes_a + nodes_b):
                    assert not called, (a, b)
                    seen["island"] += 1
                elif any(near(x, y) for x in nodes_a for y in nodes_b):
                    assert not called, (a, b)
                    seen["near"] += 1
                else:
                    seen["far"] += called
    assert seen["far"] > 0 and seen["near"] > 0, seen  # random play seldom reaches a Rescue Island


def test_games_without_the_rule_never_call_a_move_a_transposition():
    state = engine_ext.new_game("leduc_poker", 2, seed=1)
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    assert not any(state.transposes(a, b) for a in state.legal_actions() for b in state.legal_actions())


def test_the_root_keeps_every_move_and_the_option_changes_the_search_only_below_it():
    # A position right after the seat's own movement, with a legal move that would transpose it: the root offers it.
    for state in action_phase_positions(games=3, seed=21):
        player = state.current_player()
        for first, after, _ in transposed_pairs(state, 1, random.Random(0)):
            skipped = [b for b in after.legal_actions() if after.transposes(first, b)]
            every = len(after.legal_actions())
            result = search.suggest(after, player, iterations=4 * every, seed=1, top_k=every, canonical_order=True,
                                    widening=0)  # fmt: skip
            assert set(skipped) <= {m.action for m in result.moves}
            plain = search.suggest(after, player, iterations=4 * every, seed=1, top_k=every, widening=0)
            assert [m.action for m in plain.moves] != [m.action for m in result.moves] or [
                m.value for m in plain.moves
            ] != pytest.approx([m.value for m in result.moves])
            return
    pytest.fail("no position with a transposable move was found")


def test_a_step_onto_a_rescue_island_is_never_a_transposition():
    # Without the exclusion each pair below would commute by distance alone: the two swimmers are far apart.
    def called(adventurers, first, second):
        state = apply(position(adventurers=adventurers), first)
        previous, action = state.string_to_action(first), state.string_to_action(second)
        assert action < previous  # only the descending order can be redundant
        return state.transposes(previous, action)

    far_and_near = {"red": [("(-2,-5)", 5), ("(5,-3)", 1)]}
    assert called(far_and_near, "move red:5 (-2,-5)->(-2,-4)", "move red:1 (5,-3)->(6,-3)")  # the control
    assert not called(far_and_near, "move red:5 (-2,-5)->NW", "move red:1 (5,-3)->(6,-3)")
    near_and_far = {"red": [("(-2,-5)", 1), ("(5,-3)", 5)]}
    assert not called(near_and_far, "move red:5 (5,-3)->(6,-3)", "move red:1 (-2,-5)->NW")
