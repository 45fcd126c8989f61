"""The readers every board game's state and observation loaders share: a bad field is named, never half-loaded."""

import json
import random

import pytest

import engine_ext
from engine_ext.core import check_int
from engine_ext.fields import first_difference, parse_xy


def refused(data, *args, **kwargs) -> engine_ext.InvalidObservation:
    with pytest.raises(engine_ext.InvalidObservation) as err:
        check_int(data, *args, **kwargs)
    return err.value


def test_check_int_takes_an_integer_in_its_range_and_names_what_it_refuses():
    assert check_int({"n": 3}, "n", 0, 3) == 3
    assert check_int({"n": -2}, "n", -5, 0) == -2
    for bad in (4, -1, True, 2.0, "2", None, [2]):
        err = refused({"n": bad}, "n", 0, 3, "seats[1].")
        assert err.field == "seats[1].n" and "expected an integer 0..3" in err.message, bad
    assert refused({}, "n", 0, 3).field == "n"  # missing
    assert refused([1], "n", 0, 3, "control.").field == "control"  # not an object: the object is named
    assert refused(None, "n", 0, 3).field == "n"
    long_text = refused({"n": "x" * 500}, "n", 0, 3).message
    assert len(long_text) < 80 and long_text.endswith("...")  # user input is never echoed unbounded


def test_check_int_reads_a_count_left_out_as_zero_and_refuses_an_explicit_zero():
    assert check_int({}, "leaf", 0, 9, missing_zero=True) == 0
    assert check_int({"leaf": 2}, "leaf", 0, 9, missing_zero=True) == 2
    err = refused({"leaf": 0}, "leaf", 0, 9, "icons.", missing_zero=True)
    assert err.field == "icons.leaf" and err.message == "zero counts are left out"
    assert refused({"leaf": 0}, "leaf", 1, 9, missing_zero=True).message.startswith("expected an integer 1..9")


def decision_view(game: str, players: int, steps: int) -> dict:
    state = engine_ext.new_game(game, players, seed=5)
    rng = random.Random(5)
    while steps > 0 or state.current_player() < 0:
        if state.current_player() == engine_ext.CHANCE:
            state.apply(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply(rng.choice(state.legal_actions()))
            steps -= 1
    return state.observation(state.current_player())


def test_each_board_game_refuses_a_view_with_a_bad_count_naming_it():
    view = decision_view("small_islands", 3, 30)
    board = view["board"]
    k = next(k for k, entry in enumerate(board) if k >= 4 and entry[3] and entry[3][0]["icons"])
    icons = board[k][3][0]["icons"]
    icon = next(iter(icons))
    for bad, message in ((0, "zero counts are left out"), (True, "expected an integer")):
        broken = json.loads(json.dumps(view))
        broken["board"][k][3][0]["icons"][icon] = bad
        with pytest.raises(engine_ext.InvalidObservation) as err:
            engine_ext.from_observation("small_islands", broken)
        assert err.value.field == f"board[{k}].regions[0].icons.{icon}" and message in err.value.message
    for game, players, path in (("survive", 4, ("control", "turn")), ("islet", 3, ("bag_size",))):
        view = decision_view(game, players, 30)
        broken = json.loads(json.dumps(view))
        *outer, last = path
        target = broken
        for key in outer:
            target = target[key]
        target[last] = -1
        with pytest.raises(engine_ext.InvalidObservation) as err:
            engine_ext.from_observation(game, broken)
        assert err.value.field == ".".join(path) and "expected an integer" in err.value.message, (game, err.value)


def test_cells_parse_and_differences_are_named():
    assert parse_xy(" (3,-1) ") == (3, -1) and parse_xy("(0, 2)") == (0, 2)
    with pytest.raises(ValueError, match="expected a cell like"):
        parse_xy("3,-1")
    assert first_difference({"a": [1, {"b": 2}]}, {"a": [1, {"b": 3}]}) == "a[1].b"
    assert first_difference({"a": 1}, {"a": 1, "c": 0}) == "c"
