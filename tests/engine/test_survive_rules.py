"""Survive The Island: one test per rule (rulebook section or ruling cited in each name/docstring)."""

import json
import random

import pytest
from survive_positions import apply, creatures, legal_texts, on_board, position, rafts, where

import engine_ext
from engine_ext import survive, survive_board
from search import mcts

# Geometry used below (axial (q,r); neighbours (q±1,r), (q,r±1), (q+1,r-1), (q-1,r+1)):
# open water east of the island: (5,-3) (6,-3) (6,-4) (5,-2) (4,-2)...; NW landing cells (-2,-5) (-1,-5) (0,-6).


# Twelve water cells for a board holding every raft of the supply.
TWELVE_WATER_CELLS = [
    "(5,-3)",
    "(6,-3)",
    "(6,-4)",
    "(5,-2)",
    "(4,-2)",
    "(-5,2)",
    "(-6,2)",
    "(-6,3)",
    "(-5,3)",
    "(0,5)",
    "(1,5)",
    "(2,4)",
]


def play_setup(state, choose=lambda legal: legal[0]):
    while state.observation(0)["control"]["phase"] in ("setup_adventurers", "setup_rafts"):
        state.apply(choose(state.legal_actions()))
    return state


# --- Set-up -----------------------------------------------------------------------------------------------------------
def test_setup_two_players_each_place_twenty_adventurers_alternately_then_four_rafts():
    state = engine_ext.new_game("survive", 2, seed=3)
    seats = []
    for _ in range(40):
        seats.append(state.current_player())
        legal = legal_texts(state)
        assert all(
            t.split()[1].split(":")[0] in (("red", "blue") if seats[-1] == 0 else ("green", "yellow")) for t in legal
        )
        state.apply(state.legal_actions()[0])
    assert seats == [0, 1] * 20
    assert state.observation(0)["control"]["phase"] == "setup_rafts"
    for k in range(8):
        assert state.current_player() == k % 2
        state.apply(state.legal_actions()[0])
    obs = state.observation(0)
    assert obs["control"]["phase"] == "action" and state.current_player() == 0
    assert len(obs["rafts"]) == 8 and obs["control"]["moves_left"] == 3


def test_setup_adventurers_go_on_empty_tiles_only():
    state = engine_ext.new_game("survive", 4, seed=1)
    state.apply_string("place red:5 (0,-3)")
    assert not any(t.endswith("(0,-3)") for t in legal_texts(state))


def test_setup_five_players_stack_a_second_adventurer_once_all_tiles_are_taken():
    state = engine_ext.new_game("survive", 5, seed=2)
    for _ in range(40):
        state.apply(state.legal_actions()[0])
    targets = {t.split()[-1] for t in legal_texts(state)}
    assert len(targets) == 40, "every tile holds exactly one meeple now"
    for _ in range(10):
        state.apply(state.legal_actions()[0])
    counts = {}
    for colour in range(5):
        for e in state.observation(0)["adventurers"][colour]:
            counts[e["cell"]] = counts.get(e["cell"], 0) + 1
    assert max(counts.values()) == 2 and len(counts) == 40


def test_setup_rafts_go_on_empty_water_next_to_a_tile():
    state = engine_ext.new_game("survive", 3, seed=4)
    while state.observation(0)["control"]["phase"] == "setup_adventurers":
        state.apply(state.legal_actions()[0])
    terrain = state.observation(0)["terrain"]
    for text in legal_texts(state):
        c = survive.parse_node(text.split()[-1])
        q, r = survive_board.CELLS[c]
        assert terrain[c] == "~" and text.split()[-1] not in state.observation(0)["creatures"]["serpent"]
        neighbours = [(q + 1, r), (q + 1, r - 1), (q, r - 1), (q - 1, r), (q - 1, r + 1), (q, r + 1)]
        assert any(n in survive_board.CELL_INDEX and terrain[survive_board.CELL_INDEX[n]] in "bfm" for n in neighbours)


def test_seat_zero_starts_after_setup_and_turns_pass_in_seat_order():
    state = play_setup(engine_ext.new_game("survive", 3, seed=5))
    assert state.current_player() == 0
    apply(state, "end")
    state.apply(state.legal_actions()[0])  # remove a tile
    state.apply(state.chance_outcomes()[0][0])  # reveal
    while state.observation(0)["control"]["active"] == 0:
        if state.current_player() == engine_ext.CHANCE:
            state.apply(state.chance_outcomes()[0][0])
        else:
            state.apply(state.legal_actions()[0])
    assert state.observation(0)["control"]["active"] == 1


# --- Action phase: movements ------------------------------------------------------------------------------------------
def test_up_to_three_movements_then_only_end_or_abilities():
    state = position(adventurers={"red": [("(0,-3)", 5)]}, tiles={"(0,-3)": "b", "(1,-3)": "b", "(2,-3)": "b"})
    apply(state, "move red:5 (0,-3)->(1,-3)", "move red:5 (1,-3)->(2,-3)", "move red:5 (2,-3)->(1,-3)")
    assert legal_texts(state) == {"end"}


def test_walking_between_tiles_is_not_swimming():
    state = position(adventurers={"red": [("(0,-3)", 5)]}, tiles={"(0,-3)": "b", "(1,-3)": "b"})
    apply(state, "move red:5 (0,-3)->(1,-3)")
    assert where(state, "red")[0]["swum"] is False


def test_each_adventurer_swims_only_once_per_turn():
    state = position(adventurers={"red": [("(5,-3)", 5)]})
    apply(state, "move red:5 (5,-3)->(6,-3)")
    assert where(state, "red")[0]["swum"] is True
    assert not any(t.startswith("move red:5") for t in legal_texts(state))


def test_swim_once_resets_at_the_next_turn():
    state = position(adventurers={"red": [("(5,-3)", 5, False, True)]}, tiles={"(0,-3)": "m"})
    assert not any(t.startswith("move red") for t in legal_texts(state))
    state = position(
        adventurers={"red": [("(5,-3)", 5, False, True)], "green": [("(0,5)", 1)]},
        tiles={"(0,-3)": "m"},
        phase="creature_roll",
    )
    state.apply_string("roll shark")  # no shark on the board: the turn ends
    assert state.current_player() == 1 and where(state, "red")[0]["swum"] is False


def test_swimming_onto_a_tile_counts_as_the_swim():
    state = position(adventurers={"red": [("(0,-4)", 5)]}, tiles={"(0,-3)": "b", "(1,-3)": "b"})
    apply(state, "move red:5 (0,-4)->(0,-3)")
    assert "move red:5* (0,-3)->(1,-3)" in legal_texts(state), "on foot after the swim is still allowed"
    assert "move red:5* (0,-3)->(0,-4)" not in legal_texts(state), "a second swim is not"


def test_rescue_from_the_water():
    state = position(adventurers={"red": [("(-2,-5)", 5), ("(5,-3)", 1)]})
    apply(state, "move red:5 (-2,-5)->NW")
    assert state.scores() == [5, 0]
    assert where(state, "red")[1]["status"] == "rescued" or where(state, "red")[0]["status"] == "rescued"


def test_rescue_from_a_raft_on_foot():
    state = position(adventurers={"red": [("(-2,-5)", 4, True), ("(5,-3)", 1)]}, rafts=("(-2,-5)",))
    apply(state, "move red:4 raft@(-2,-5)->NW")
    assert state.scores() == [4, 0]
    assert "move red:1 (5,-3)->(6,-3)" in legal_texts(state)


def test_nothing_but_adventurers_enters_a_rescue_island():
    state = position(
        adventurers={"red": [("(5,-3)", 1)]},
        rafts=("(-2,-5)",),
        creatures={"shark": ["(-1,-5)"]},
        phase="creature_move",
        die="shark",
    )
    assert not any(t.endswith("->NW") for t in legal_texts(state))
    state = position(adventurers={"red": [("(5,-3)", 1)]}, rafts=("(-2,-5)",))
    assert not any(t.startswith("move raft") and t.endswith("NW") for t in legal_texts(state))


def test_an_adventurer_reaching_a_raft_with_room_boards_it():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, rafts=("(6,-3)",))
    apply(state, "move red:5 (5,-3)->raft@(6,-3)")
    assert on_board(state, "red") == [("(6,-3)", 5, True)]


def test_a_full_raft_leaves_the_newcomer_swimming():
    state = position(
        adventurers={"red": [("(6,-3)", 5, True), ("(6,-3)", 4, True), ("(6,-3)", 3, True), ("(5,-3)", 1)]},
        rafts=("(6,-3)",),
    )
    apply(state, "move red:1 (5,-3)->raft@(6,-3)")
    assert ("(6,-3)", 1, False) in on_board(state, "red")


def test_raft_moves_carry_passengers_and_board_swimmers_where_it_arrives():
    state = position(adventurers={"red": [("(5,-3)", 5, True)], "blue": [("(6,-3)", 2)]}, rafts=("(5,-3)",))
    apply(state, "move raft (5,-3)->(6,-3)")
    assert on_board(state, "red") == [("(6,-3)", 5, True)]
    assert on_board(state, "blue") == [("(6,-3)", 2, True)]


def test_a_raft_needs_a_free_water_space():
    state = position(adventurers={"red": [("(5,-3)", 5, True)]}, rafts=("(5,-3)", "(6,-3)"), tiles={"(3,-3)": "b"})
    texts = legal_texts(state)
    assert "move raft (5,-3)->(6,-3)" not in texts
    assert "move raft (5,-3)->(4,-3)" in texts


def test_raft_control_needs_at_least_as_many_own_adventurers_aboard():
    layout = {"red": [("(5,-3)", 5, True)], "green": [("(5,-3)", 1, True), ("(5,-3)", 2, True)]}
    state = position(adventurers=layout, rafts=("(5,-3)",))
    assert not any(t.startswith("move raft") for t in legal_texts(state)), "seat 0 has 1 aboard against 2"
    state = position(adventurers=layout, rafts=("(5,-3)",), active=1)
    assert any(t.startswith("move raft") for t in legal_texts(state))


def test_an_empty_raft_can_be_moved_by_anyone():
    state = position(adventurers={"red": [("(0,-3)", 5)]}, rafts=("(5,-3)",), tiles={"(0,-3)": "b"})
    assert "move raft (5,-3)->(6,-3)" in legal_texts(state)


def test_two_player_colours_count_together_for_control():
    layout = {"red": [("(5,-3)", 5, True)], "blue": [("(5,-3)", 3, True)], "green": [("(5,-3)", 1, True)]}
    state = position(adventurers=layout, rafts=("(5,-3)",))
    assert any(t.startswith("move raft") for t in legal_texts(state))


def test_crowded_raft_the_active_player_chooses_who_boards():
    layout = {"red": [("(5,-3)", 5, True), ("(5,-3)", 4, True)], "green": [("(6,-3)", 1), ("(6,-3)", 2)]}
    state = position(adventurers=layout, rafts=("(5,-3)",))
    apply(state, "move raft (5,-3)->(6,-3)")
    assert state.current_player() == 0
    options = legal_texts(state)
    assert options == {"board green:? (6,-3)"}, "another seat's adventurers are chosen by colour only"
    apply(state, "board green:? (6,-3)")
    assert sum(aboard for _, _, aboard in on_board(state, "green")) == 1


def test_volcanoes_are_inaccessible():
    state = position(adventurers={"red": [("(0,-3)", 5)]}, tiles={"(0,-3)": "b", "(1,-3)": "V"})
    assert "move red:5 (0,-3)->(1,-3)" not in legal_texts(state)


def test_a_seat_with_nothing_left_to_rescue_makes_no_movements():
    state = position(
        adventurers={"green": [("(5,-3)", 1)]},
        rescued={"red": [("NW", 5)]},
        rafts=("(6,-3)",),
        held={0: {"forest:dive": 1}},
        creatures={"shark": ["(0,-5)"]},
        phase="creature_roll",
        active=1,
    )
    apply(state, "roll kaiju")  # seat 1's turn ends; seat 0 has nobody left on the board
    assert state.current_player() == 0
    texts = legal_texts(state)
    assert not any(t.startswith("move") for t in texts)
    assert "end" in texts and any(t.startswith("use dive") for t in texts), "abilities stay usable"


def test_movements_are_lost_once_the_seats_last_adventurer_on_the_board_is_rescued():
    state = position(adventurers={"red": [("(-2,-5)", 5)], "green": [("(5,-3)", 1)]}, rafts=("(6,-3)",))
    assert "move raft (6,-3)->(6,-4)" in legal_texts(state), "the raft may move while red:5 is still out there"
    apply(state, "move red:5 (-2,-5)->NW")
    texts = legal_texts(state)
    assert not any(t.startswith("move") for t in texts), "no movements after the last Adventurer is saved"
    assert "end" in texts


def test_nothing_enters_a_kaiju_space():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, creatures={"kaiju": ["(6,-3)"]}, rafts=("(5,-2)",))
    texts = legal_texts(state)
    assert "move red:5 (5,-3)->(6,-3)" not in texts
    assert "move raft (5,-2)->(6,-3)" not in texts


# --- Rising Waters ----------------------------------------------------------------------------------------------------
def test_rising_waters_takes_a_tile_of_the_thinnest_type():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(0,-3)": "f", "(1,-3)": "b", "(2,-3)": "m"})
    apply(state, "end")
    assert legal_texts(state) == {"remove beach (1,-3)"}
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(0,-3)": "f", "(2,-3)": "m"})
    apply(state, "end")
    assert legal_texts(state) == {"remove forest (0,-3)"}


def test_adventurers_on_a_removed_tile_become_swimmers_there():
    state = position(adventurers={"red": [("(1,-3)", 5)]}, tiles={"(1,-3)": "b", "(0,-3)": "f"})
    apply(state, "end", "remove beach (1,-3)")
    assert state.current_player() == engine_ext.CHANCE
    assert on_board(state, "red") == [("(1,-3)", 5, False)]
    assert state.observation(0)["terrain"][survive.parse_node("(1,-3)")] == "~"


def test_hourglass_one_removal_while_an_hourglass_tile_remains():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(0,-3)": "f", "(1,-3)": "m", "(2,-3)": "m"})
    apply(state, "end")
    assert state.observation(0)["control"]["rising_left"] == 1


def test_hourglass_two_removals_once_only_mountains_remain():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(1,-3)": "m", "(2,-3)": "m"})
    apply(state, "end", "remove mountain (1,-3)", "reveal mountain:whirlpool")
    assert state.current_player() == 0 and legal_texts(state) == {"remove mountain (2,-3)"}


def test_hourglass_option_beach_only_switches_once_beaches_are_gone():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(0,-3)": "f", "(1,-3)": "f"}, hourglass="beach")
    apply(state, "end")
    assert state.observation(0)["control"]["rising_left"] == 2


def test_reveal_draws_from_the_remaining_backs_of_that_land_type():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        tiles={"(1,-3)": "m"},
        revealed={"mountain:volcano": 2, "mountain:whirlpool": 1},
    )
    apply(state, "end", "remove mountain (1,-3)")
    outcomes = {state.action_to_string(a): p for a, p in state.chance_outcomes()}
    assert outcomes == pytest.approx({"reveal mountain:whirlpool": 3 / 5, "reveal mountain:volcano": 2 / 5})


def test_an_ability_goes_face_down_to_the_player_who_removed_the_tile():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, tiles={"(1,-3)": "b", "(2,-3)": "b"})
    apply(state, "end", "remove beach (1,-3)", "reveal beach:dolphin")
    assert state.observation(0)["held"][0]["beach"]["dolphin"] == 1
    assert state.observation(1)["held"][0] == {"beach": 1, "forest": 0}, "others see only the land type"


# --- Effects ----------------------------------------------------------------------------------------------------------
def reveal(effect, land="forest", **kwargs):
    """A position right after the tile at (1,-3) was removed, its back about to be revealed as ``effect``."""
    kwargs.setdefault("adventurers", {"red": [("(5,-3)", 5)]})
    tiles = kwargs.pop("tiles", {"(0,-3)": "m"})
    state = position(tiles=tiles, phase="reveal", effect_cell="(1,-3)", effect_land=land, **kwargs)
    return apply(state, f"reveal {land}:{effect}")


def test_shark_effect_places_a_shark_that_eats_the_swimmers_there():
    state = reveal("shark", adventurers={"red": [("(1,-3)", 5), ("(5,-3)", 1)]})
    assert creatures(state)["shark"] == ["(1,-3)"]
    assert on_board(state, "red") == [("(5,-3)", 1, False)]


def test_shark_effect_with_every_shark_on_the_board_moves_one_there():
    sharks = ["(5,-3)", "(6,-3)", "(6,-4)", "(5,-2)", "(4,-2)", "(-5,2)"]
    state = reveal("shark", adventurers={"red": [("(-5,-2)", 5)]}, creatures={"shark": sharks})
    texts = legal_texts(state)
    assert "summon shark (5,-3)->(1,-3)" in texts and len(texts) == 6
    apply(state, "summon shark (6,-4)->(1,-3)")
    assert "(1,-3)" in creatures(state)["shark"] and "(6,-4)" not in creatures(state)["shark"]


def test_shark_effect_cannot_come_into_play_on_a_kaiju_space():
    state = reveal("shark", creatures={"kaiju": ["(1,-3)"]})
    assert creatures(state)["shark"] == []


def test_kaiju_effect_pushes_the_adventurers_of_the_revealed_space():
    state = reveal("kaiju", adventurers={"red": [("(1,-3)", 5), ("(5,-3)", 1)]})
    assert creatures(state)["kaiju"] == ["(1,-3)"]
    texts = legal_texts(state)
    assert "push red:5 (1,-3)->(0,-3)" in texts and "push red:5 (1,-3)->(2,-3)" in texts
    apply(state, "push red:5 (1,-3)->(0,-3)")
    assert ("(0,-3)", 5, False) in on_board(state, "red")


def test_kaiju_effect_both_on_the_board_one_already_there_does_nothing():
    state = reveal("kaiju", creatures={"kaiju": ["(1,-3)", "(6,-4)"]})
    assert sorted(creatures(state)["kaiju"]) == ["(1,-3)", "(6,-4)"]
    assert state.current_player() == engine_ext.CHANCE, "straight on to the creature roll"


def test_kaiju_effect_with_both_kaijus_elsewhere_moves_one_there():
    state = reveal("kaiju", creatures={"kaiju": ["(5,-2)", "(6,-4)"]})
    assert legal_texts(state) == {"summon kaiju (5,-2)->(1,-3)", "summon kaiju (6,-4)->(1,-3)"}


def test_kaiju_effect_on_a_standing_kaiju_displaces_it():
    state = reveal("kaiju", creatures={"kaiju": ["(1,-3)"]})
    assert all(t.startswith("displace kaiju (1,-3)->") for t in legal_texts(state))
    apply(state, "displace kaiju (1,-3)->(2,-4)")
    assert sorted(creatures(state)["kaiju"]) == ["(1,-3)", "(2,-4)"]


def test_raft_effect_places_a_raft_and_swimmers_board_it():
    state = reveal("raft", adventurers={"red": [("(1,-3)", 5), ("(1,-3)", 4)]})
    assert rafts(state) == ["(1,-3)"]
    assert on_board(state, "red") == [("(1,-3)", 4, True), ("(1,-3)", 5, True)]


def test_raft_effect_with_the_supply_empty_moves_an_empty_raft_there():
    cells = TWELVE_WATER_CELLS
    state = reveal("raft", adventurers={"red": [("(5,-3)", 5, True)]}, rafts=tuple(cells))
    texts = legal_texts(state)
    assert "summon raft (6,-3)->(1,-3)" in texts and "summon raft (5,-3)->(1,-3)" not in texts, "empty rafts only"


def test_raft_effect_with_no_raft_available_does_nothing():
    cells = TWELVE_WATER_CELLS
    layout = {
        "red": [(c, v, True) for c, v in zip(cells, [1, 1, 2, 2, 3, 3, 4, 4, 5, 5], strict=False)],
        "blue": [(c, v, True) for c, v in zip(cells[10:], [1, 1], strict=False)],
    }
    state = reveal("raft", adventurers=layout, rafts=tuple(cells))
    assert state.current_player() == engine_ext.CHANCE and "(1,-3)" not in rafts(state)


def test_whirlpool_clears_the_space_and_adjacent_water_but_not_tiles():
    layout = {"red": [("(1,-3)", 5), ("(1,-4)", 4, True), ("(0,-3)", 3), ("(5,-3)", 1)]}
    state = reveal(
        "whirlpool", adventurers=layout, rafts=("(1,-4)",), creatures={"shark": ["(2,-4)"]}, tiles={"(0,-3)": "f"}
    )
    assert on_board(state, "red") == [("(0,-3)", 3, False), ("(5,-3)", 1, False)]
    assert rafts(state) == [] and creatures(state)["shark"] == []


def test_volcano_removes_what_is_there_and_stays_inaccessible():
    state = reveal(
        "volcano", land="mountain", adventurers={"red": [("(1,-3)", 5), ("(5,-3)", 1)]}, tiles={"(0,-3)": "m"}
    )
    obs = state.observation(0)
    assert obs["terrain"][survive.parse_node("(1,-3)")] == "V" and obs["control"]["volcanoes"] == 1
    assert on_board(state, "red") == [("(5,-3)", 1, False)]
    state = reveal("volcano", land="mountain", creatures={"kaiju": ["(1,-3)"]}, tiles={"(0,-3)": "m"})
    assert creatures(state)["kaiju"] == []


def test_the_third_volcano_ends_the_game_at_once_and_unrescued_adventurers_score_nothing():
    state = reveal(
        "volcano",
        land="mountain",
        adventurers={"red": [("(5,-3)", 5)]},
        rescued={"green": [("SE", 1)]},
        tiles={"(0,-3)": "V", "(2,-3)": "V", "(3,-3)": "m"},
    )
    assert state.is_terminal()
    assert state.scores() == [0, 1] and state.returns() == [0.0, 1.0]


# --- Creatures --------------------------------------------------------------------------------------------------------
def test_creature_die_has_three_equally_likely_kinds():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, phase="creature_roll")
    assert sorted(p for _, p in state.chance_outcomes()) == pytest.approx([1 / 3] * 3)


def test_a_rolled_creature_must_move_if_it_can():
    state = position(
        adventurers={"red": [("(5,-3)", 5)], "green": [("(0,5)", 1)]},
        phase="creature_roll",
        creatures={"serpent": ["(0,-5)"]},
    )
    apply(state, "roll serpent")
    assert state.current_player() == 0 and all(t.startswith("move serpent") for t in legal_texts(state))


def test_a_rolled_creature_absent_from_the_board_ends_the_turn():
    state = position(adventurers={"red": [("(5,-3)", 5)], "green": [("(0,5)", 1)]}, phase="creature_roll")
    apply(state, "roll kaiju")
    assert state.current_player() == 1 and state.observation(1)["control"]["phase"] == "action"


def test_sea_serpent_moves_one_water_space():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        tiles={"(1,-3)": "b"},
        phase="creature_move",
        creatures={"serpent": ["(1,-4)"]},
    )
    neighbours_in_water = ("(2,-4)", "(2,-5)", "(1,-5)", "(0,-4)", "(0,-3)")  # (1,-3) is a beach tile
    assert legal_texts(state) == {f"move serpent (1,-4)->{c}" for c in neighbours_in_water}


def test_sea_serpent_eliminates_rafts_and_all_adventurers_on_its_space():
    state = position(
        adventurers={"red": [("(6,-3)", 5, True), ("(6,-3)", 4, True), ("(0,5)", 1)]},
        rafts=("(6,-3)",),
        phase="creature_move",
        creatures={"serpent": ["(5,-3)"]},
    )
    apply(state, "move serpent (5,-3)->(6,-3)")
    assert on_board(state, "red") == [("(0,5)", 1, False)] and rafts(state) == []


def test_shark_moves_one_or_two_water_spaces():
    state = position(
        adventurers={"red": [("(0,5)", 5)]}, phase="creature_move", die="shark", creatures={"shark": ["(5,-3)"]}
    )
    targets = {t.split("->")[1] for t in legal_texts(state)}
    assert "(6,-3)" in targets and "(7,-3)" in targets and "(5,-3)" not in targets and len(targets) == 18


def test_shark_stops_on_entering_a_space_with_swimmers():
    state = position(
        adventurers={"red": [("(6,-3)", 5), ("(0,5)", 1)]},
        phase="creature_move",
        die="shark",
        creatures={"shark": ["(5,-3)"]},
    )
    targets = {t.split("->")[1] for t in legal_texts(state)}
    assert "(6,-3)" in targets and "(7,-3)" not in targets, "cannot pass through the swimmer's space"
    apply(state, "move shark (5,-3)->(6,-3)")
    assert on_board(state, "red") == [("(0,5)", 1, False)]


def test_shark_spares_adventurers_on_a_raft():
    state = position(
        adventurers={"red": [("(6,-3)", 5, True)]},
        rafts=("(6,-3)",),
        phase="creature_move",
        die="shark",
        creatures={"shark": ["(5,-3)"]},
    )
    apply(state, "move shark (5,-3)->(6,-3)")
    assert on_board(state, "red") == [("(6,-3)", 5, True)]


def test_swimming_into_a_shark_space_gets_eaten():
    state = position(adventurers={"red": [("(5,-3)", 5), ("(0,5)", 1)]}, creatures={"shark": ["(6,-3)"]})
    apply(state, "move red:5 (5,-3)->(6,-3)")
    assert on_board(state, "red") == [("(0,5)", 1, False)]


def test_kaiju_moves_one_or_two_spaces_over_land_and_water_never_onto_a_volcano():
    state = position(
        adventurers={"red": [("(0,5)", 5)]},
        phase="creature_move",
        die="kaiju",
        tiles={"(0,-3)": "b", "(1,-3)": "V"},
        creatures={"kaiju": ["(0,-4)"]},
    )
    targets = {t.split("->")[1] for t in legal_texts(state)}
    assert "(0,-3)" in targets and "(0,-2)" in targets and "(1,-3)" not in targets


def test_kaiju_sinks_rafts_and_the_active_player_pushes_each_adventurer():
    layout = {"red": [("(6,-3)", 5, True)], "green": [("(6,-3)", 1, True)]}
    state = position(
        adventurers=layout, rafts=("(6,-3)",), phase="creature_move", die="kaiju", creatures={"kaiju": ["(5,-3)"]}
    )
    apply(state, "move kaiju (5,-3)->(6,-3)")
    assert rafts(state) == []
    texts = legal_texts(state)
    assert "push red:5 (6,-3)->(7,-3)" in texts and "push green:? (6,-3)->(7,-3)" in texts
    apply(state, "push green:? (6,-3)->(7,-4)", "push red:5 (6,-3)->(6,-4)")
    assert on_board(state, "green") == [("(7,-4)", 1, False)] and on_board(state, "red") == [("(6,-4)", 5, False)]
    assert state.current_player() == 1, "the turn ended once the Kaiju's space was resolved"


def test_kaiju_push_never_onto_a_rescue_island_volcano_or_kaiju():
    state = position(
        adventurers={"red": [("(-2,-5)", 5)], "green": [("(0,5)", 1)]},
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(-2,-4)", "(-1,-5)"]},
    )
    apply(state, "move kaiju (-2,-4)->(-2,-5)")
    targets = {t.split("->")[1] for t in legal_texts(state) if t.startswith("push")}
    assert "NW" not in targets and "(-1,-5)" not in targets and targets


def test_kaiju_displaces_creatures_by_their_own_movement():
    state = position(
        adventurers={"red": [("(0,5)", 5)]},
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(5,-3)"], "serpent": ["(6,-3)"]},
    )
    apply(state, "move kaiju (5,-3)->(6,-3)")
    texts = legal_texts(state)
    assert texts and all(t.startswith("displace serpent (6,-3)->") for t in texts)
    assert "displace serpent (6,-3)->(5,-3)" in texts and "displace serpent (6,-3)->(8,-3)" not in texts


def test_kaiju_entering_a_kaiju_space_displaces_the_other():
    state = position(
        adventurers={"red": [("(0,5)", 5)]},
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(5,-3)", "(6,-3)"]},
    )
    apply(state, "move kaiju (5,-3)->(6,-3)")
    texts = legal_texts(state)
    assert texts and all(t.startswith("displace kaiju (6,-3)->") for t in texts)
    apply(state, "displace kaiju (6,-3)->(7,-3)")
    assert sorted(creatures(state)["kaiju"]) == ["(6,-3)", "(7,-3)"]


def test_a_displaced_creature_with_no_legal_space_returns_to_the_supply():
    ring = ("(1,0)", "(1,-1)", "(0,-1)", "(-1,0)", "(-1,1)", "(0,1)")  # the lagoon's neighbours, all tiles
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        phase="creature_move",
        die="kaiju",
        tiles={c: "b" for c in ring},
        creatures={"kaiju": ["(1,-1)"], "serpent": ["(0,0)"]},
    )
    apply(state, "move kaiju (1,-1)->(0,0)")
    assert legal_texts(state) == {"displace serpent (0,0)->out"}
    apply(state, "displace serpent (0,0)->out")
    assert creatures(state)["serpent"] == [] and creatures(state)["kaiju"] == ["(0,0)"]


def test_pushed_onto_a_raft_with_room_boards_before_a_shark_acts():
    state = position(
        adventurers={"red": [("(6,-3)", 5)], "green": [("(0,5)", 1)]},
        phase="creature_move",
        die="kaiju",
        rafts=("(7,-3)",),
        creatures={"kaiju": ["(5,-3)"], "shark": ["(7,-3)"]},
    )
    apply(state, "move kaiju (5,-3)->(6,-3)", "push red:5 (6,-3)->raft@(7,-3)")
    assert on_board(state, "red") == [("(7,-3)", 5, True)]


# --- Abilities --------------------------------------------------------------------------------------------------------
def test_paddles_move_a_raft_two_spaces_without_using_movements():
    state = position(adventurers={"red": [("(5,-3)", 5, True)]}, rafts=("(5,-3)",), held={0: {"beach:paddles": 1}})
    apply(state, "use paddles:beach raft (5,-3)->(6,-3)")
    assert "stop" in legal_texts(state) and "continue (6,-3)->(7,-3)" in legal_texts(state)
    apply(state, "continue (6,-3)->(7,-3)")
    assert rafts(state) == ["(7,-3)"] and state.observation(0)["control"]["moves_left"] == 3
    assert state.observation(0)["revealed"]["beach"]["paddles"] == 1, "the tile is discarded face up"


def test_paddles_passing_a_serpent_space_ends_the_move():
    state = position(
        adventurers={"red": [("(5,-3)", 5, True), ("(0,5)", 1)]},
        rafts=("(5,-3)",),
        held={0: {"beach:paddles": 1}},
        creatures={"serpent": ["(6,-3)"]},
    )
    apply(state, "use paddles:beach raft (5,-3)->(6,-3)")
    assert rafts(state) == [] and on_board(state, "red") == [("(0,5)", 1, False)]
    assert "continue" not in " ".join(legal_texts(state))


def test_dolphin_moves_a_swimmer_two_water_spaces_and_may_end_on_land():
    state = position(adventurers={"red": [("(1,-5)", 5)]}, tiles={"(1,-3)": "b"}, held={0: {"beach:dolphin": 1}})
    apply(state, "use dolphin:beach red:5 (1,-5)->(1,-4)", "continue (1,-4)->(1,-3)")
    assert on_board(state, "red") == [("(1,-3)", 5, False)]
    assert where(state, "red")[0]["swum"] is False, "a Dolphin ride is not the turn's swim"


def test_dolphin_only_for_swimmers():
    state = position(adventurers={"red": [("(0,-3)", 5)]}, tiles={"(0,-3)": "b"}, held={0: {"beach:dolphin": 1}})
    assert not any(t.startswith("use dolphin") for t in legal_texts(state))


def test_dive_moves_any_creature_to_any_empty_water_space():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]}, creatures={"serpent": ["(0,5)"]}, held={0: {"forest:dive": 1}}
    )
    texts = legal_texts(state)
    assert "use dive:forest serpent (0,5)->(-5,0)" in texts
    assert "use dive:forest serpent (0,5)->(5,-3)" not in texts, "not onto an occupied space"
    apply(state, "use dive:forest serpent (0,5)->(-5,0)")
    assert creatures(state)["serpent"] == ["(-5,0)"]


def test_creature_die_ability_rolls_and_moves_now_and_the_normal_roll_still_follows():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        tiles={"(0,-3)": "b"},
        creatures={"serpent": ["(0,5)"]},
        held={0: {"forest:die": 1}},
    )
    apply(state, "use die:forest")
    assert state.current_player() == engine_ext.CHANCE
    apply(state, "roll serpent", "move serpent (0,5)->(1,5)")
    assert state.observation(0)["control"]["phase"] == "action"
    apply(state, "end", "remove beach (0,-3)", "reveal beach:raft")
    assert state.current_player() == engine_ext.CHANCE and state.observation(0)["control"]["phase"] == "creature_roll"


def repellent_position(held):
    return position(
        adventurers={"red": [("(0,5)", 5)], "green": [("(6,-3)", 3), ("(0,6)", 1)]},
        phase="creature_move",
        die="shark",
        creatures={"shark": ["(5,-3)"]},
        held=held,
    )


def test_repellent_is_a_reaction_in_another_seats_turn():
    state = repellent_position({1: {"beach:repellent": 1}})
    apply(state, "move shark (5,-3)->(6,-3)")
    assert state.current_player() == 1
    assert legal_texts(state) == {"use repellent:beach shark (6,-3)", "decline"}
    apply(state, "use repellent:beach shark (6,-3)")
    assert creatures(state)["shark"] == [] and ("(6,-3)", 3, False) in on_board(state, "green")


def test_declining_the_repellent_lets_the_shark_act():
    state = repellent_position({1: {"beach:repellent": 1}})
    apply(state, "move shark (5,-3)->(6,-3)", "decline")
    assert on_board(state, "green") == [("(0,6)", 1, False)]


def test_a_holder_of_other_abilities_is_asked_too_so_the_prompt_reveals_nothing():
    state = repellent_position({1: {"forest:dive": 1}})
    apply(state, "move shark (5,-3)->(6,-3)")
    assert state.current_player() == 1 and legal_texts(state) == {"decline"}


def test_a_seat_without_ability_tiles_is_not_asked():
    state = repellent_position({})
    apply(state, "move shark (5,-3)->(6,-3)")
    assert on_board(state, "green") == [("(0,6)", 1, False)]


def test_repellent_against_a_kaiju_spares_everything_on_the_space():
    state = position(
        adventurers={"red": [("(0,5)", 5)], "green": [("(6,-3)", 3, True)]},
        rafts=("(6,-3)",),
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(5,-3)"]},
        held={1: {"forest:repellent": 1}},
    )
    apply(state, "move kaiju (5,-3)->(6,-3)", "use repellent:forest kaiju (6,-3)")
    assert creatures(state)["kaiju"] == [] and rafts(state) == ["(6,-3)"]
    assert on_board(state, "green") == [("(6,-3)", 3, True)]


def test_repellent_in_ones_own_action_phase_against_a_shark_sharing_the_space():
    state = position(
        adventurers={"red": [("(6,-3)", 5, True)]},
        rafts=("(6,-3)",),
        creatures={"shark": ["(6,-3)"]},
        held={0: {"beach:repellent": 1}},
    )
    apply(state, "use repellent:beach shark (6,-3)")
    assert creatures(state)["shark"] == []


# --- End and score ----------------------------------------------------------------------------------------------------
def test_game_ends_when_no_adventurer_is_left_and_the_sole_winner_takes_one():
    state = position(adventurers={"red": [("(-2,-5)", 5)]}, rescued={"green": [("SE", 4)]})
    apply(state, "move red:5 (-2,-5)->NW")
    assert state.is_terminal() and state.scores() == [5, 4] and state.returns() == [1.0, 0.0]


def test_tied_players_share_the_victory():
    state = position(3, adventurers={"red": [("(-2,-5)", 5)]}, rescued={"blue": [("SE", 5)], "green": [("SW", 1)]})
    apply(state, "move red:5 (-2,-5)->NW")
    assert state.returns() == [0.5, 0.5, 0.0]


# --- Information ------------------------------------------------------------------------------------------------------
def test_observation_shows_own_values_and_hides_the_others():
    state = position(adventurers={"red": [("(5,-3)", 5)], "green": [("(0,5)", 2)]})
    mine = state.observation(0)["adventurers"]
    assert any(e.get("value") == 5 for e in mine[0])
    assert all("value" not in e for e in mine[2] + mine[3])
    assert all("value" not in e for e in state.observation(1)["adventurers"][0])


def test_public_action_hides_the_treasure_value_of_a_moved_adventurer():
    state = position(adventurers={"red": [("(5,-3)", 5)]})
    move = state.string_to_action("move red:5 (5,-3)->(6,-3)")
    assert state.action_to_string(state.public_action(move)) == "move red:? (5,-3)->(6,-3)"
    assert state.observed_action(move, 0) == move


def test_public_action_hides_the_type_of_an_ability_drawn():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, phase="reveal", effect_cell="(1,-3)", effect_land="beach")
    draw = state.string_to_action("reveal beach:dolphin")
    assert state.action_to_string(state.public_action(draw)) == "reveal beach:ability"
    effect = state.string_to_action("reveal beach:shark")
    assert state.public_action(effect) == effect


def test_the_owner_observes_which_of_its_meeples_another_seat_pushed():
    state = position(
        adventurers={"red": [("(0,5)", 5)], "green": [("(6,-3)", 3), ("(6,-3)", 4)]},
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(5,-3)"]},
    )
    apply(state, "move kaiju (5,-3)->(6,-3)")
    push = state.string_to_action("push green:? (6,-3)->(7,-3)")
    seen_by_owner = state.action_to_string(state.observed_action(push, 1))
    assert seen_by_owner in ("push green:3 (6,-3)->(7,-3)", "push green:4 (6,-3)->(7,-3)")
    assert state.observed_action(push, 0) == push


def test_determinize_keeps_own_values_and_permutes_the_others():
    state = play_setup(engine_ext.new_game("survive", 4, seed=9))
    mine = state.private_info(0)
    others = set()
    for seed in range(10):
        world = state.determinize(0, seed)
        assert world.private_info(0) == mine
        others.add(json.dumps(world.private_info(1)))
    assert len(others) > 1


def test_determinize_samples_held_abilities_from_unaccounted_backs_of_their_land():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        held={0: {"beach:dolphin": 3}, 1: {"beach:die": 1}},
        revealed={"beach:repellent": 2},
    )
    seen = {json.dumps(state.determinize(0, seed).private_info(1)) for seed in range(40)}
    kinds = {next(iter(json.loads(s)["abilities"])) for s in seen}
    assert kinds == {"beach:paddles", "beach:die"}, "dolphins all mine, repellents all face up"


# --- Move text --------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "place red:5 (0,-3)",
        "place raft (5,-3)",
        "move red:5 (2,-1)->(3,-1)",
        "move red:5* raft@(6,-3)->NW",
        "move raft (5,-3)->(6,-3)",
        "end",
        "remove forest (1,2)",
        "move kaiju (5,-3)->(6,-3)",
        "summon raft (5,-3)->(1,-3)",
        "use paddles:beach raft (5,-3)->(6,-3)",
        "use dolphin:forest blue:2 (1,-5)->(1,-4)",
        "use dive:forest shark (0,5)->(1,5)",
        "use die:beach",
        "use repellent:forest kaiju (6,-3)",
        "decline",
        "continue (6,-3)->(7,-3)",
        "stop",
        "push green:? (6,-3)->out",
        "displace serpent (6,-3)->(5,-3)",
        "board yellow:? (6,-3)",
        "reveal mountain:volcano",
        "reveal beach:ability",
        "roll shark",
    ],
)
def test_move_text_round_trips(text):
    state = engine_ext.new_game("survive", 4)
    assert state.action_to_string(state.string_to_action(text)) == text


@pytest.mark.parametrize("text", ["fly red:5 (0,0)", "move red:9 (0,0)->(1,0)", "move red:5 (40,0)->(1,0)", ""])
def test_unreadable_move_text_is_rejected_with_the_legal_moves(text):
    state = engine_ext.new_game("survive", 4)
    with pytest.raises(engine_ext.InvalidMoveText, match="at move 0; legal here: place red:1") as err:
        state.string_to_action(text)
    assert err.value.legal == [state.action_to_string(a) for a in state.legal_actions()]


def test_illegal_move_leaves_the_state_unchanged_and_lists_legal_moves():
    state = position(adventurers={"red": [("(5,-3)", 5)]})
    before = state.to_json()
    with pytest.raises(engine_ext.IllegalAction, match="legal: .*end"):
        state.apply_string("move red:5 (5,-3)->(7,-3)")
    assert state.to_json() == before


def token_at(drawing: str, cell: str) -> str:
    """The 4-character token the drawing shows for ``cell`` (row r + 6, column 4q + 2r + 24)."""
    q, r = (int(x) for x in cell.strip("()").split(","))
    line = drawing.splitlines()[r + 6]
    col = 4 * q + 2 * r + 24
    return line[col : col + 4].ljust(4)


def test_board_drawing_shows_the_pieces_where_they_stand_and_nothing_elsewhere():
    state = position(
        adventurers={"red": [("(5,-3)", 5)]},
        creatures={"kaiju": ["(0,-3)"], "shark": ["(2,-4)"]},
        rafts=("(6,-3)",),
        tiles={"(1,-3)": "f"},
    )
    drawing = str(state)
    assert token_at(drawing, "(0,-3)").strip() == "~K"
    assert token_at(drawing, "(2,-4)").strip() == "~s"
    assert token_at(drawing, "(6,-3)").strip() == "~R0"
    assert token_at(drawing, "(5,-3)").strip() == "~1"
    assert token_at(drawing, "(1,-3)").strip() == "f"
    board = "\n".join(drawing.splitlines()[:13])
    for island in ("NW", "NE", "SW", "SE"):
        board = board.replace(island, "")
    assert board.count("K") == 1 and board.count("R") == 1 and "S" not in board and board.count("s") == 1
    assert "scores [0, 0]" in drawing


def test_a_seats_drawing_is_made_from_its_observation_and_shows_only_its_own_score():
    state = position(adventurers={"red": [("(5,-3)", 5)]}, rescued={"blue": [("NW", 4)], "green": [("SE", 3)]})
    info = engine_ext.game_info("survive")
    for seat in range(2):
        drawing = info.draw(state.observation(seat))
        assert drawing.splitlines()[:14] == str(state).splitlines()[:14], "the board itself is public"
        assert drawing.endswith(f"your score {state.scores()[seat]}") and "scores [" not in drawing


# --- Loading and observations from clients --------------------------------------------------------------------------
def test_from_observation_rejects_impossible_values_naming_the_field():
    obs = position(adventurers={"red": [("(5,-3)", 5)]}).observation(0)
    obs["adventurers"][0][0]["value"] = 9
    with pytest.raises(engine_ext.InvalidObservation) as err:
        engine_ext.from_observation("survive", obs)
    assert err.value.field == "adventurers[0]"


def test_from_observation_rejects_another_seats_values():
    obs = position(adventurers={"red": [("(5,-3)", 5)]}).observation(0)
    obs["adventurers"][2][0]["value"] = 1
    with pytest.raises(engine_ext.InvalidObservation, match="not visible"):
        engine_ext.from_observation("survive", obs)


def test_from_observation_rejects_unknown_cells():
    obs = position(adventurers={"red": [("(5,-3)", 5)]}).observation(0)
    obs["rafts"] = ["(40,40)"]
    with pytest.raises(engine_ext.InvalidObservation) as err:
        engine_ext.from_observation("survive", obs)
    assert err.value.field == "rafts[0]"


def test_from_observation_rejects_too_many_creatures():
    obs = position(adventurers={"red": [("(5,-3)", 5)]}).observation(0)
    obs["creatures"]["kaiju"] = ["(5,-2)", "(6,-4)", "(4,-2)"]
    with pytest.raises(engine_ext.InvalidObservation) as err:
        engine_ext.from_observation("survive", obs)
    assert err.value.field == "creatures.kaiju"


def test_from_observation_rejects_adventurers_that_are_not_objects():
    obs = position(adventurers={"red": [("(5,-3)", 5)]}).observation(0)
    obs["adventurers"][1][3] = "blue"
    with pytest.raises(engine_ext.InvalidObservation) as err:
        engine_ext.from_observation("survive", obs)
    assert err.value.field == "adventurers[1]"


def test_from_json_rejects_an_unresolved_interaction():
    state = position(adventurers={"red": [("(5,-3)", 5), ("(0,5)", 1)]})
    data = json.loads(state.to_json())
    data["creatures"]["shark"] = ["(5,-3)"]
    with pytest.raises(engine_ext.InvalidObservation, match="unresolved"):
        survive.from_json(json.dumps(data))


def light_policy_chances(state) -> dict[int, float]:
    """The chance of each legal move under the light playout policy (engine_ext/survive_rules.pyx,
    ``s_playout_action``): a uniform draw, drawn again once when it is an Adventurer's movement that brings it no
    closer to a Rescue Island."""
    legal = state.legal_actions()

    def no_closer(action: int) -> bool:
        text = state.action_to_string(action)
        if not text.startswith("move ") or text.startswith("move raft"):
            return False
        frm, to = (survive.parse_node(c) for c in text.split()[-1].split("->"))
        return survive_board.RESCUE_DISTANCE[to] >= survive_board.RESCUE_DISTANCE[frm]

    flagged = [no_closer(a) for a in legal]
    redrawn = sum(flagged) / len(legal)
    return {a: ((0.0 if f else 1.0) + redrawn) / len(legal) for a, f in zip(legal, flagged, strict=True)}


def drawn_against_listed(states, draws: int) -> list[tuple[float, int]]:
    """Pearson's chi-square of the moves ``mcts.playout_draws`` draws at each state (no list of the legal moves)
    against the listed policy's chances, with its degrees of freedom, per state. Every draw is legal."""
    tests = []
    for k, state in enumerate(states):
        chances = light_policy_chances(state)
        drawn = mcts.playout_draws(state, draws, (k + 1) << 40)  # far-apart streams
        assert drawn is not None and set(drawn) <= set(chances)
        counts = {a: 0 for a in chances}
        for a in drawn:
            counts[a] += 1
        chi = sum((counts[a] - draws * p) ** 2 / (draws * p) for a, p in chances.items())
        tests.append((chi, len(chances) - 1))
    return tests


def test_the_light_policy_drawn_without_a_list_has_the_listed_chances():
    """Playouts draw the light policy's Action-phase move straight from the state (``s_playout_draw``, a speed-up):
    every legal move keeps its chance, identical Adventurers count once, and only a Raft the seat controls moves."""
    layout = {
        "red": [("(0,-3)", 1), ("(0,-3)", 1), ("(0,-3)", 2), ("(6,-3)", 3, False, True), ("(4,-2)", 4)],
        "blue": [("(5,-3)", 5, True)],
        "green": [("(2,4)", 1, True), ("(2,4)", 2, True), ("(1,-3)", 3)],
    }
    crafted = position(
        adventurers=layout,
        rafts=("(5,-3)", "(2,4)"),
        tiles={"(0,-3)": "b", "(1,-3)": "f", "(-1,-2)": "V", "(0,-2)": "m"},
        creatures={"kaiju": ["(5,-2)"]},
    )
    texts = legal_texts(crafted)
    assert "move raft (5,-3)->(6,-4)" in texts and not any(t.startswith("move raft (2,4)") for t in texts)
    every_ability = {f"{land}:{kind}": 1 for land in ("beach", "forest") for kind in ("dolphin", "die", "repellent")}
    abilities = position(
        adventurers=layout,
        rafts=("(5,-3)", "(2,4)"),
        tiles={"(0,-3)": "b", "(1,-3)": "f", "(-1,-2)": "V", "(0,-2)": "m"},
        creatures={"kaiju": ["(5,-2)"], "shark": ["(6,-4)", "(0,5)"], "serpent": ["(-5,2)"]},
        held={0: {**every_ability, "beach:paddles": 1, "forest:dive": 1}},
        moves_left=1,
    )
    used = {t.split()[1].split(":")[0] for t in legal_texts(abilities) if t.startswith("use ")}
    assert used == {"paddles", "dolphin", "dive", "die"}, used
    repelling = position(  # a Shark beside red's Adventurer on a Raft: Repellent's options
        adventurers={"red": [("(0,-3)", 1), ("(5,-3)", 4, True)]},
        rafts=("(5,-3)",),
        tiles={"(0,-3)": "b"},
        creatures={"shark": ["(5,-3)"]},
        held={0: {"beach:repellent": 1, "forest:repellent": 1}},
    )
    assert sum(t.startswith("use repellent") for t in legal_texts(repelling)) == 2
    states = [crafted, abilities, repelling]
    for players, seed in ((2, 1), (4, 2), (5, 3)):
        state = engine_ext.new_game("survive", players, seed=seed)
        rng = random.Random(seed)
        decisions = 0
        while not state.is_terminal():
            if state.current_player() == engine_ext.CHANCE:
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply(rng.choices(actions, probs)[0])
                continue
            legal = state.legal_actions()
            decisions += 1
            if decisions % 9 == 0 and len(legal) > 1 and mcts.playout_draws(state, 1, 0) is not None:
                states.append(state.clone())
            state.apply(rng.choice(legal))
    assert len(states) > 20
    tests = drawn_against_listed(states, 4000)
    # each position's chi-square, and all of them pooled, as standard scores (a position with a few moves shows a
    # missing one at once; the pooled score shows a small bias spread over many)
    worst = max((chi - df) / (2 * df) ** 0.5 for chi, df in tests if df)
    chi, df = (sum(column) for column in zip(*tests, strict=True))
    assert worst < 6.0 and (chi - df) / (2 * df) ** 0.5 < 4.0, (worst, chi, df)


def test_the_light_policy_is_listed_where_it_is_not_drawn():
    layout = {"red": [("(0,-3)", 1), ("(4,-2)", 4)]}
    tiles = {"(0,-3)": "b"}
    assert mcts.playout_draws(position(adventurers=layout, tiles=tiles), 5, 1) is not None
    assert mcts.playout_draws(engine_ext.new_game("survive", 3, seed=1), 5, 1) is None, "set-up: listed"
    spent = position(adventurers=layout, tiles=tiles, moves_left=0)
    assert set(mcts.playout_draws(spent, 50, 1)) == {spent.string_to_action("end")}


def test_the_hunting_playout_policy_strikes_the_other_seats():
    """``hunting``: a Shark moves onto another seat's swimmer rather than the mover's own or empty water, a Sea Serpent
    onto another seat's Raft, Rising Waters takes the tile under another seat's Adventurer; elsewhere it is the light
    policy (and is drawn the same way in the Action phase)."""

    def choices(state, policy="hunting"):
        return {state.action_to_string(mcts.playout_choice(state, seed, policy)) for seed in range(30)}

    shark = position(
        adventurers={"red": [("(6,-3)", 5)], "green": [("(5,-2)", 2)]},
        phase="creature_move",
        die="shark",
        creatures={"shark": ["(5,-3)"]},
    )
    assert choices(shark) == {"move shark (5,-3)->(5,-2)"}, "seat 0 moves the die: green's swimmer, not red's"
    assert len(choices(shark, None)) > 5
    kaiju = position(
        adventurers={"red": [("(6,-3)", 5)], "green": [("(5,-2)", 2)]},
        phase="creature_move",
        die="kaiju",
        creatures={"kaiju": ["(5,-3)"]},
    )
    assert choices(kaiju) == choices(kaiju, None) and len(choices(kaiju)) > 5, "a Kaiju moves as the light policy's"
    serpent = position(
        adventurers={"red": [("(0,5)", 5)], "green": [("(6,-3)", 1, True), ("(6,-3)", 3, True)]},
        rafts=("(6,-3)",),
        phase="creature_move",
        die="serpent",
        creatures={"serpent": ["(5,-3)"]},
    )
    assert choices(serpent) == {"move serpent (5,-3)->(6,-3)"}
    rising = position(
        adventurers={"red": [("(0,-3)", 5)], "green": [("(1,-3)", 2)]},
        tiles={"(0,-3)": "b", "(1,-3)": "b", "(2,-3)": "b"},
    )
    apply(rising, "end")
    assert choices(rising) == {"remove beach (1,-3)"}
    assert len(choices(rising, None)) == 3
    moving = position(adventurers={"red": [("(0,-3)", 1), ("(4,-2)", 4)]}, tiles={"(0,-3)": "b"})
    assert [mcts.playout_choice(moving, k, "hunting") for k in range(20)] == [
        mcts.playout_choice(moving, k) for k in range(20)
    ]


def test_the_tiles_left_by_land_follow_the_board_through_whole_games():
    """The state keeps how many island tiles of each land are left (Rising Waters, the hourglass, ``tide``'s clock
    and the risk of removal read the counts, not the board): at every decision of whole random games, with either
    hourglass option, a state moves and scores exactly as the same position read afresh from its JSON."""
    rng = random.Random(12)
    checked = 0
    for players, hourglass in ((2, "beach_forest"), (3, "beach"), (4, "beach_forest"), (5, "beach")):
        state = engine_ext.new_game("survive", players, seed=players, hourglass=hourglass)
        while not state.is_terminal():
            if state.current_player() == engine_ext.CHANCE:
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply(rng.choices(actions, probs)[0])
                continue
            fresh = survive.from_json(state.to_json())
            assert fresh.legal_actions() == state.legal_actions()
            for heuristic in ("tide", "escape"):
                assert mcts.evaluate_state(state, 0, 1, 0, True, heuristic) == mcts.evaluate_state(
                    fresh, 0, 1, 0, True, heuristic
                )
            state.apply(rng.choice(state.legal_actions()))
            checked += 1
    assert checked > 400
