"""Every registered game joins these tests by registration alone (engine_ext.GAMES)."""

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import contract
import engine_ext

# Seat counts exercised per game; a game not listed runs with its smallest and largest counts.
PLAYER_COUNTS = {
    "kuhn_poker": (2, 3, 5),
    "leduc_poker": (2, 3, 4),
    "survive": (2, 3, 4, 5),
    "islet": (2, 3, 4),
    "islet_solo": (1,),
    "small_islands": (2, 3, 4),
}
CHECKED_GAMES_PER_COUNT = {
    "kuhn_poker": 40,
    "leduc_poker": 25,
    "survive": 1,
    "islet": 1,
    "islet_solo": 2,
    "small_islands": 1,
}


def cases():
    for name in engine_ext.GAMES:
        for players in PLAYER_COUNTS.get(name, (2,)):
            yield pytest.param(name, players, id=f"{name}-{players}p")


@pytest.mark.parametrize(("name", "players"), list(cases()))
def test_random_playouts_keep_the_contract_after_every_step(name, players):
    rng = random.Random(f"{name}/{players}")
    for game in range(CHECKED_GAMES_PER_COUNT.get(name, 3)):
        state = engine_ext.new_game(name, players, seed=game)
        contract.play_checked_game(state, rng)
        assert state.is_terminal()


@pytest.mark.parametrize(("name", "players"), list(cases()))
def test_new_game_is_not_terminal_and_its_seed_decides_the_setup(name, players):
    state = engine_ext.new_game(name, players, seed=11)
    assert not state.is_terminal()
    assert state.num_players() == players
    info = engine_ext.game_info(name)
    contract.check_seed_decides_the_setup(lambda seed: engine_ext.new_game(name, players, seed), info.random_setup)


@pytest.mark.parametrize("name", engine_ext.GAMES)
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_arbitrary_action_sequences_are_applied_or_rejected_cleanly(name, data):
    players = data.draw(st.sampled_from(PLAYER_COUNTS.get(name, (2,))))
    state = engine_ext.new_game(name, players, seed=data.draw(st.integers(0, 2**31)))
    for _ in range(data.draw(st.integers(0, 400))):
        if state.is_terminal():
            break
        options = contract._options(state)
        if data.draw(st.booleans()):
            action = data.draw(st.integers(-3, max(options) + 3))
        else:
            action = data.draw(st.sampled_from(options))
        before = state.to_json()
        if action in options:
            state.apply(action)
        else:
            with pytest.raises(engine_ext.IllegalAction):
                state.apply(action)
            assert state.to_json() == before
    contract.check_json_round_trip(state)
    contract.check_observations(state)


def test_registry_lists_the_reference_games_and_rejects_unknown_names():
    assert {"kuhn_poker", "leduc_poker"} <= set(engine_ext.GAMES)
    with pytest.raises(KeyError, match="registered games"):
        engine_ext.new_game("chess", 2)


@pytest.mark.parametrize("name", engine_ext.GAMES)
def test_states_pickle_through_json(name):
    import pickle

    state = engine_ext.new_game(name, engine_ext.game_info(name).min_players, seed=3)
    contract.random_step(state, random.Random(0))
    assert pickle.loads(pickle.dumps(state)).to_json() == state.to_json()


def test_errors_pickle_whole():
    # An arena worker's error reaches the parent pickled; an error that cannot be rebuilt from its pickle breaks the
    # whole process pool instead of naming itself.
    import pickle

    from server.codec import CodecError
    from server.errors import RequestError

    state = engine_ext.new_game("kuhn_poker", 2, seed=0)
    with pytest.raises(engine_ext.IllegalAction) as illegal:
        state.apply(99)
    errors = [
        illegal.value,
        engine_ext.InvalidMoveText("no such move", 3, ["Pass", "Bet"]),
        engine_ext.InvalidObservation("cards", "two cards in one hand"),
        engine_ext.InvalidOption("players", "players: expected 2 to 4, got 9"),
        CodecError("seat", "out of range"),
        RequestError("INVALID_ARGUMENT", "bad seat", "seat"),
    ]
    for error in errors:
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is type(error) and str(copy) == str(error)
        assert vars(copy) == vars(error)
    assert illegal.value.legal and pickle.loads(pickle.dumps(illegal.value)).move_number == illegal.value.move_number
