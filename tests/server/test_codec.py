"""The wire codec's bounds: a view is refused, naming the field, before any work is spent on it."""

import random

import pytest

import engine_ext
from atoll.v1 import atoll_pb2 as pb
from server import codec


def view_of(game: str, players: int, steps: int) -> pb.Observation:
    state = engine_ext.new_game(game, players, seed=3)
    rng = random.Random(3)
    for _ in range(steps):
        if state.current_player() == engine_ext.CHANCE:
            state.apply(rng.choice(state.chance_outcomes())[0])
        elif not state.is_terminal():
            state.apply(rng.choice(state.legal_actions()))
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    return codec.observation_to_proto(state.observation(state.current_player()))


def refused(msg: pb.Observation) -> codec.CodecError:
    with pytest.raises(codec.CodecError) as err:
        codec.observation_from_proto(msg)
    return err.value


@pytest.mark.parametrize(("game", "players", "steps"), [("survive", 4, 80), ("islet", 3, 60), ("small_islands", 4, 60)])
def test_a_real_view_passes_the_bounds_and_reads_back_the_same(game, players, steps):
    msg = view_of(game, players, steps)
    assert codec.observation_to_proto(codec.observation_from_proto(msg)) == msg


def test_a_list_too_long_inside_a_list_is_refused_with_its_path():
    msg = view_of("small_islands", 4, 60)
    entry = msg.small_islands.board[5]
    for _ in range(3 - len(entry.regions)):
        entry.regions.add()
    err = refused(msg)
    assert err.field == "observation.small_islands.board[5].regions" and "at most 2" in err.message
    msg = view_of("small_islands", 4, 60)
    msg.small_islands.board[6].regions[0].houses.extend([0] * 5)
    assert refused(msg).field == "observation.small_islands.board[6].regions[0].houses"
    msg = view_of("survive", 4, 80)
    msg.survive.adventurers[2].adventurers.add()
    err = refused(msg)
    assert err.field == "observation.survive.adventurers[2].adventurers" and "11 entries: at most 10" in err.message


def test_a_map_too_long_is_refused():
    msg = view_of("small_islands", 4, 60)
    for k in range(7):
        msg.small_islands.board[4].regions[0].icons[f"icon{k}"] = 1
    assert refused(msg).field == "observation.small_islands.board[4].regions[0].icons"


def test_a_field_of_another_poker_game_is_refused():
    msg = pb.Observation(game="kuhn_poker", kuhn_poker=pb.PokerObservation(players=2, seat=0, round=1))
    err = refused(msg)
    assert err.field == "observation.kuhn_poker.round" and "has no field round" in err.message
