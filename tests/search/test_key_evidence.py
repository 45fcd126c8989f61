"""Beliefs from what the moves show (Small Islands: ``GameInfo.key_evidence``): each other seat's Objective for the
round is weighed by its tile placements and Bonus tokens, renewed when it keeps a new one, and the search deals the
other seats' Objectives by those weights."""

from collections import Counter

import pytest
from small_islands_positions import position, seat

import engine_ext
import search
from engine_ext import small_islands
from search import play
from search.play import BotSettings, Position

INFO = engine_ext.game_info("small_islands")


def action(state, text):
    return state.string_to_action(text)


def bay_position():
    # The bay t42 (Land N, E, W: a leaf, a fruit, a House mark) alone on (0,-1); seat 1 places the cape t1 (a fruit).
    # Joined to the bay it makes a 2-tile island of 2 fruit and 1 leaf: Missions M2 (more fruit than leaves) and M3
    # (more leaves than flowers) are met there, no other Mission is; elsewhere the cape joins no island with a mark.
    return position(board=[("t42", 0, "(0,-1)")], seats=[seat(), seat(hand=["t1"])], phase="place", active=1)


def test_a_placement_that_meets_a_mission_is_evidence_for_the_cards_carrying_it():
    state = bay_position()
    joined = small_islands.key_evidence(state, 1, action(state, "place t1 r180 @(0,-2)"))
    apart = small_islands.key_evidence(state, 1, action(state, "place t1 r0 @(2,0)"))
    options = sum(1 for a in state.legal_actions())
    assert len(joined) == len(apart) == 12
    met, others = [1, 2], [k for k in range(12) if k not in (1, 2)]
    # The cards whose Mission the placement meets make it likelier than any other card does, and the placement that
    # passes the chance by makes them less likely; a card indifferent to every placement says 1 / options.
    assert min(joined[k] for k in met) > 5 * max(joined[k] for k in others)
    assert max(apart[k] for k in met) < min(apart[k] for k in others) / 5
    assert all(joined[k] == pytest.approx(1 / options) for k in others)
    assert all(0 < p <= 1 for p in joined + apart)  # no move rules a card out


def test_moves_that_show_nothing_give_no_evidence():
    state = bay_position()
    place = action(state, "place t1 r180 @(0,-2)")
    assert small_islands.evidence_move(place) == "weigh"
    assert small_islands.key_evidence(state, 0, place) is None  # not the mover
    assert small_islands.evidence_move(action(state, "place t1 r180 @(0,-2)")) == "weigh"
    no_houses = position(
        board=[("t42", 0, "(0,-1)")], seats=[seat(), seat(hand=["t1"], houses_hand=0)], phase="place", active=1
    )
    assert small_islands.key_evidence(no_houses, 1, place) is None  # nothing to harvest with: nothing to aim at
    taking = position(seats=[seat(), seat()], display=("t1", None, None), active=1)
    take = taking.legal_actions()[0]
    assert small_islands.evidence_move(take) is None and small_islands.key_evidence(taking, 1, take) is None
    with pytest.raises(ValueError, match="^mover: "):
        small_islands.key_evidence(state, 7, place)
    for nonsense in (-1, 0, place | 63, place & ~63 | 60):  # no move, a set-up draw, a Ship or no tile in a hand
        assert small_islands.key_evidence(state, 1, nonsense) is None


def play_greedy(seed: int, players: int = 4, until=None):
    position_ = Position(play.new_game("small_islands", players, seed))
    keeper = search.TreeKeeper(0)
    keeper.evidence = INFO
    position_.keepers[0] = keeper
    for _ in play.play(position_, seed, [BotSettings(algorithm="greedy")] * players):
        if until is not None and until(position_.state, keeper):
            break
    return position_, keeper


def test_against_greedy_players_the_beliefs_favour_each_ones_true_objective():
    # Greedy seats place for their Objectives: the card each truly holds must come out well above an even share of
    # the cards it might hold (those seat 0 cannot place), measured at every turn of seat 0's.
    truth_share, even_share = [], []

    def record(state, keeper):
        if state.current_player() != 0 or state.observation(0)["control"]["phase"] != "turn":
            return False
        worlds = [state.determinize(0, s) for s in range(48)]
        for other, row in keeper.beliefs.items():
            card = state.private_info(other).get("objective")
            if card is None:
                continue
            possible = {int(w.private_info(other)["objective"][1:]) - 1 for w in worlds}
            if len(possible) < 2:
                continue  # revealed or otherwise known
            truth_share.append(row[int(card[1:]) - 1] / sum(row[k] for k in possible))
            even_share.append(1 / len(possible))
        return False

    for seed in range(3):
        play_greedy(seed, until=record)
    assert len(truth_share) > 30
    mean_truth, mean_even = sum(truth_share) / len(truth_share), sum(even_share) / len(even_share)
    assert mean_truth > 2.5 * mean_even, (mean_truth, mean_even)


def test_keeping_a_new_objective_forgets_what_was_learnt_of_the_old_one():
    position_, keeper = play_greedy(
        1,
        until=lambda state, keeper: (
            1 in keeper.beliefs
            and state.observation(0)["control"]["phase"] == "objective_keep"
            and state.current_player() == 1
        ),
    )
    state = position_.state
    assert state.current_player() == 1 and 1 in keeper.beliefs
    keep = state.legal_actions()[0]
    assert small_islands.evidence_move(state.observed_action(keep, 0)) == "renew"
    position_.apply(keep)
    assert 1 not in keeper.beliefs


def test_beliefs_are_the_same_from_any_state_the_seat_cannot_tell_apart():
    # The keeper weighs a move on the seat's observation, so a world dealt differently where the seat cannot see
    # (other Objectives, hands, tokens) gives the same weights.
    def at_a_placement(state, keeper):
        return state.current_player() == 2 and state.observation(0)["control"]["phase"] == "place"

    position_, _ = play_greedy(4, until=at_a_placement)
    state = position_.state
    move = search.suggest(state, 2, algorithm="greedy").best.action
    rows = []
    for source in (state, state.determinize(0, 11), state.determinize(0, 12)):
        assert source.observation(0) == state.observation(0)
        keeper = search.TreeKeeper(0)
        keeper.evidence = INFO
        keeper.observe(source, move)
        rows.append(keeper.beliefs.get(2))
    assert rows[0] is not None and rows[0] == rows[1] == rows[2]


def dealt_objectives(state, seat_, other, seeds=range(200)):
    return Counter(state.determinize(seat_, s).private_info(other)["objective"] for s in seeds)


def test_the_weights_deal_the_other_seats_objectives_and_stay_off_the_position():
    position_, _ = play_greedy(
        2,
        until=lambda state, keeper: state.observation(0)["control"]["phase"] == "turn" and state.current_player() == 0,
    )
    state = position_.state
    plain = dealt_objectives(state, 0, 1)
    assert len(plain) >= 3
    favoured = sorted(plain)[:2]
    row = [1.0 if f"O{k + 1}" in favoured else 0.0 for k in range(12)]
    weighted = small_islands.weigh_objectives(state, [[0.0] * 12, row, [0.0] * 12, [0.0] * 12])
    assert set(dealt_objectives(weighted, 0, 1)) <= set(favoured)
    unweighted = small_islands.weigh_objectives(state, [[0.0] * 12] * 4)  # rows of zeros: dealt as without
    assert all(unweighted.determinize(0, s) == state.determinize(0, s) for s in range(20))
    assert weighted == state and weighted.to_json() == state.to_json()  # not part of the position
    with pytest.raises(ValueError, match="^rows: "):
        small_islands.weigh_objectives(state, [row])


def outcome(result) -> list:
    return [(m.action, m.visits, m.value) for m in result.moves]


@pytest.mark.parametrize("algorithm", ["pimc", "flat"])
def test_pimc_and_flat_deal_their_worlds_by_the_beliefs_as_ismcts_does(algorithm):
    # Every algorithm that samples worlds plays from the same beliefs, so that the arena compares algorithms.
    position_, _ = play_greedy(
        3,
        until=lambda state, keeper: state.observation(0)["control"]["phase"] == "turn" and state.current_player() == 0,
    )
    state = position_.state
    keeper = search.TreeKeeper(0)
    settings = {"algorithm": algorithm, "iterations": 400, "seed": 4, "top_k": 50}
    search.suggest(state, 0, beliefs=True, keeper=keeper, **settings)
    assert keeper.evidence is INFO and keeper.nodes == 0  # the evidence is on, and no trees are kept
    keeper.beliefs = {1: [1.0 if k == 3 else 1e-3 for k in range(12)]}
    believed = search.suggest(state, 0, beliefs=True, keeper=keeper, **settings)
    weighted = INFO.weigh_keys(state, keeper.belief_rows(state.num_players()))
    by_hand = search.suggest(weighted, 0, beliefs=False, **settings)
    plain = search.suggest(state, 0, beliefs=False, keeper=search.TreeKeeper(0), **settings)
    assert outcome(believed) == outcome(by_hand) != outcome(plain)
    assert believed.belief["objectives"]["seat 1"].get("O4", 0) > 0.8


def test_a_search_with_beliefs_deals_its_worlds_by_them():
    position_, _ = play_greedy(
        3,
        until=lambda state, keeper: state.observation(0)["control"]["phase"] == "turn" and state.current_player() == 0,
    )
    state = position_.state
    keeper = search.TreeKeeper(0)
    first = search.suggest(state, 0, iterations=200, beliefs=True, keeper=keeper)
    assert keeper.evidence is INFO  # the first search with beliefs turns the evidence on
    assert keeper.nodes == 0  # and keeps no trees (the evidence reads none)
    seen = first.belief["objectives"]["seat 1"]
    favoured = sorted(seen)[0]
    keeper.beliefs = {1: [1.0 if f"O{k + 1}" == favoured else 1e-3 for k in range(12)]}
    believed = search.suggest(state, 0, iterations=200, beliefs=True, keeper=keeper)
    assert believed.belief["objectives"]["seat 1"].get(favoured, 0) > 0.8 > seen[favoured]
    # A keeper rebuilt from the moves alone (a restarted server's: beliefs, no trees yet) keeps them at its first
    # search, and so does one whose settings change: they come from the moves, not from trees.
    rebuilt = search.TreeKeeper(0)
    rebuilt.evidence, rebuilt.beliefs = INFO, {1: list(keeper.beliefs[1])}
    again = search.suggest(state, 0, iterations=200, beliefs=True, keeper=rebuilt)
    assert rebuilt.beliefs == keeper.beliefs and again.belief == believed.belief
    search.suggest(state, 0, iterations=100, beliefs=True, exploration=0.5, keeper=rebuilt)
    assert rebuilt.beliefs == keeper.beliefs
    with pytest.raises(ValueError, match="^beliefs: "):  # a game with neither evidence nor a belief filter
        islet = engine_ext.new_game("islet", 2, seed=1)
        while islet.current_player() < 0:
            islet.apply(islet.chance_outcomes()[0][0])
        search.suggest(islet, islet.current_player(), iterations=10, beliefs=True)
