"""Small Islands' rules, one test per rule (docs/rules/small_islands.md), on positions built from their parts.

The start island is s0..s3 on (0,0) (1,0) (0,1) (1,1), every outer edge Sea. Tiles used: t0/t1 capes (Land N only,
a flower / a fruit), t42 a bay (Land N, E, W: leaf, fruit, house mark), t48 inland (Land on every edge).
"""

import json
import math
import random

import pytest
from small_islands_positions import play, position, seat, texts

import engine_ext

# A 2-tile island north of the start island: the bay t42 on (0,-1), Sea to the south, and the cape t1 on (0,-2)
# turned to put its Land south, onto the bay's Land north. Board indices 4 and 5.
TWO_TILES = [("t42", 0, "(0,-1)"), ("t1", 180, "(0,-2)")]


def island_position(card, icons, phase="harvest", tiles=TWO_TILES, **kw):
    """Seat 0 harvests with Objective ``card``; the north island's icons are ``icons`` (on the bay)."""
    overrides = {4: [{"icons": dict(icons)}], 5: [{"icons": {}}]}
    overrides.update(kw.pop("icons_extra", {}))
    other = "O11" if card == "O12" else "O12"
    return position(
        board=tiles,
        icons=overrides,
        phase=phase,
        harvest_left=2,
        lander=0,
        nav=0,
        seats=[seat(objective=card, revealed=card), seat(objective=other)],
        **kw,
    )


def north(state):
    return state.island_of(0, -1)


# ---------------------------------------------------------------------------------------------------------------------
# Placement
# ---------------------------------------------------------------------------------------------------------------------
def placements(state, square):
    return {int(m.split()[2][1:]) for m in texts(state) if m.startswith("place") and m.endswith(square)}


def test_edge_matching_in_every_rotation():
    state = position(seats=[seat(hand=["t0"]), seat()], phase="place")
    # (0,-1) touches the Sea north edge of (0,0): the cape may point its Land anywhere but south.
    assert placements(state, "@(0,-1)") == {0, 90, 270}
    # Beside the cape's Land north edge, only Land may touch it: the cape turned to point south.
    state = position(board=[("t0", 0, "(0,-1)")], seats=[seat(hand=["t1"]), seat()], phase="place")
    assert placements(state, "@(0,-2)") == {180}
    assert placements(state, "@(1,-1)") == {0, 90}  # Sea to its west (the cape's east) and south


def test_a_tile_goes_beside_a_placed_tile():
    state = position(seats=[seat(hand=["t0"]), seat()], phase="place")
    squares = {m.split("@")[1] for m in texts(state)}
    assert "(3,3)" not in squares and "(0,-2)" not in squares
    assert squares == {"(0,-1)", "(1,-1)", "(2,0)", "(2,1)", "(0,2)", "(1,2)", "(-1,0)", "(-1,1)"}


def test_turns_giving_the_same_edges_are_one_action():
    state = position(board=[("t0", 0, "(0,-1)")], seats=[seat(hand=["t48"]), seat()], phase="place")
    assert [m for m in texts(state) if m.startswith("place")] == ["place t48 r0 @(0,-2)"]


def test_identical_tiles_in_hand_are_one_action():
    state = position(seats=[seat(hand=["t0", "t3"]), seat()], phase="place")
    assert not [m for m in texts(state) if "t3" in m]
    state = play(state, "place t0 r0 @(0,-1)")
    assert json.loads(state.to_json())["seats"][0]["hand"] == ["t3"]


def test_islands_merge_across_land_edges():
    state = position(board=TWO_TILES)
    assert state.island_of(0, -1) == state.island_of(0, -2)
    island = next(i for i in state.islands() if i["island"] == north(state))
    assert (island["tiles"], island["leaf"], island["fruit"], island["house"]) == (2, 1, 2, 1)
    # Two capes pointing away from each other stay two islands.
    state = position(board=[("t0", 0, "(0,-1)"), ("t1", 90, "(1,-1)")])
    assert state.island_of(0, -1) != state.island_of(1, -1)


def test_a_two_region_tile_holds_two_islands_and_counts_in_each():
    # the strait t30 turned (Land E: flower, Land W: fruit) between two capes pointing at it
    state = position(board=[("t30", 90, "(0,-1)"), ("t0", 270, "(1,-1)"), ("t2", 90, "(-1,-1)")])
    east, west = state.island_of(0, -1, 0), state.island_of(0, -1, 1)
    assert east != west and east == state.island_of(1, -1) and west == state.island_of(-1, -1)
    islands = {i["island"]: i for i in state.islands()}
    assert islands[east]["tiles"] == islands[west]["tiles"] == 2


# ---------------------------------------------------------------------------------------------------------------------
# Missions (each card) and the two-tile rule
# ---------------------------------------------------------------------------------------------------------------------
MISSIONS = {
    "O1": ({"flower": 2, "fruit": 1}, {"flower": 1, "fruit": 1}),
    "O2": ({"fruit": 2, "leaf": 1}, {"fruit": 1, "leaf": 1}),
    "O3": ({"leaf": 2, "flower": 1}, {"leaf": 1, "flower": 2}),
    "O4": ({"temple": 1, "flower": 2}, {"temple": 1, "flower": 1}),
    "O5": ({"temple": 1, "fruit": 2}, {"fruit": 2}),
    "O6": ({"temple": 1, "leaf": 2}, {"temple": 1, "leaf": 1}),
    "O7": ({"port": 2}, {"port": 1}),
    "O8": ({"flower": 1, "fruit": 1, "leaf": 1}, {"flower": 1, "fruit": 1}),
    "O9": ({"flower": 2, "leaf": 2}, {"flower": 1, "leaf": 2}),
    "O10": ({"flower": 2, "leaf": 2}, {"flower": 1, "fruit": 2}),
    "O11": ({"fruit": 1, "flower": 1}, {"fruit": 2, "leaf": 1}),
    "O12": ({"leaf": 3, "fruit": 3}, {"leaf": 1}),
}


@pytest.mark.parametrize("card", list(MISSIONS))
def test_each_mission(card):
    meets, fails = MISSIONS[card]
    state = island_position(card, {**meets, "house": 1})
    assert f"house island {north(state)}" in texts(state)
    state = island_position(card, {**fails, "house": 1})
    assert f"house island {north(state)}" not in texts(state)


def test_equal_missions_need_counts_above_zero():
    state = island_position("O9", {"house": 1})
    assert f"house island {north(state)}" not in texts(state)


def test_an_island_counts_from_two_tiles():
    single = [("t42", 0, "(0,-1)")]
    state = position(
        board=single,
        icons={4: [{"icons": {"fruit": 2, "house": 1}}]},
        phase="harvest",
        harvest_left=2,
        lander=0,
        seats=[seat(objective="O2", revealed="O2"), seat(objective="O12")],
    )
    assert f"house island {north(state)}" not in texts(state)
    assert f"house island {north(island_position('O2', {'fruit': 2, 'house': 1}))}" in texts(
        island_position("O2", {"fruit": 2, "house": 1})
    )


def test_a_house_needs_an_empty_house_mark():
    state = position(
        board=TWO_TILES,
        icons={4: [{"icons": {"fruit": 2, "house": 1}}], 5: [{"icons": {}}]},
        houses={4: [[0, 1]]},
        phase="harvest",
        harvest_left=2,
        lander=0,
        seats=[seat(objective="O2", revealed="O2"), seat(objective="O12", houses_placed=1)],
    )
    assert f"house island {north(state)}" not in texts(state)


# ---------------------------------------------------------------------------------------------------------------------
# Rewards (each card)
# ---------------------------------------------------------------------------------------------------------------------
REWARDS = {
    "O1": ({"flower": 2, "fruit": 1}, 4),  # 1 per flower + 2
    "O2": ({"fruit": 2, "leaf": 1}, 4),  # 1 per fruit + 2
    "O3": ({"leaf": 2, "flower": 1}, 4),  # 1 per leaf + 2
    "O5": ({"temple": 2, "fruit": 2}, 6),  # 2 per temple + 2
    "O6": ({"temple": 1, "leaf": 2}, 0),  # island size: 2 tiles score nothing
    "O7": ({"port": 2, "flower": 3}, 4),  # commonest resource 3 + 2 ports // 2
    "O8": ({"flower": 1, "fruit": 2, "leaf": 3}, 4),  # 2 per scarcest present (1) + 2
    "O9": ({"flower": 2, "leaf": 2, "fruit": 3}, 5),  # best chosen resource 3 + 2
    "O10": ({"flower": 1, "fruit": 1}, 3),  # 2 empty marks + 1 House (3 marks)
    "O11": ({"fruit": 1, "flower": 1}, 6),  # 6
    "O12": ({"leaf": 1, "fruit": 1, "port": 2}, 4),  # 1 per port + 2
}


@pytest.mark.parametrize("card", list(REWARDS))
def test_each_reward(card):
    icons, points = REWARDS[card]
    marks = 3 if card == "O10" else 1
    state = island_position(card, {**icons, "house": marks})
    state = play(state, f"house island {north(state)}")
    assert state.observation(0)["seats"][0]["pp"] == points


def test_the_island_size_reward_counts_tiles():
    # the start island (4 tiles) with a second leaf meets O6 and scores 4
    state = position(
        icons={2: [{"icons": {"leaf": 2, "house": 1}}]},
        phase="harvest",
        harvest_left=2,
        lander=0,
        seats=[seat(objective="O6", revealed="O6"), seat(objective="O12")],
    )
    state = play(state, f"house island {state.island_of(0, 0)}")
    assert state.observation(0)["seats"][0]["pp"] == 4


def test_the_discovery_reward_draws_a_token_per_temple_and_keeps_one():
    state = island_position("O4", {"temple": 2, "flower": 2, "house": 1})
    state = play(state, f"house island {north(state)}")
    for _ in range(2):
        assert state.current_player() == engine_ext.CHANCE
        draw = state.chance_outcomes()[0][0]
        assert state.action_to_string(state.public_action(draw)) == "draw a discovery token"
        state.apply(draw)
    keeps = texts(state)
    assert keeps and all(m.startswith("keep discovery") for m in keeps)
    state = play(state, keeps[0])
    view = state.observation(0)
    assert view["seats"][0]["discovery_count"] == 1 and view["discovery_pile_size"] == 11
    assert "discovery" not in state.observation(1)["seats"][0]


def test_one_house_per_island_per_harvest():
    state = island_position("O2", {"fruit": 2, "house": 3})
    state = play(state, f"house island {north(state)}")
    assert f"house island {north(state)}" not in texts(state)


def test_houses_refill_from_stock_after_the_harvest():
    state = island_position("O2", {"fruit": 2, "house": 3})
    state = play(state, f"house island {north(state)}", "end harvest")
    me = state.observation(0)["seats"][0]
    assert (me["houses_hand"], me["houses_stock"], me["houses_placed"]) == (4, 3, 1)


def test_the_harvest_goes_round_from_the_lander():
    state = island_position("O2", {"fruit": 2, "house": 3})
    state = play(state, "end harvest")
    assert state.current_player() == 1 and state.observation(1)["seats"][1]["revealed"] == "O12"


# ---------------------------------------------------------------------------------------------------------------------
# Exploration
# ---------------------------------------------------------------------------------------------------------------------
def test_explore_takes_places_bonus_and_refills_from_the_navigation_deck():
    state = position(display=("t0", "t1", "t2"), nav=3, seats=[seat(hand=["t10", "t11"]), seat(hand=["t12"])])
    state = play(state, "take 2", "place t1 r0 @(0,-1)", "no bonus")
    assert state.current_player() == engine_ext.CHANCE
    state.apply(state.chance_outcomes()[0][0])
    view = state.observation(0)
    assert view["display"][1] is not None and view["navigation_size"] == 2 and state.current_player() == 1


def test_a_taken_tile_is_known_to_all():
    state = position(display=("t0", "t1", "t2"), nav=3, seats=[seat(hand=["t10", "t11"]), seat(hand=["t12"])])
    state = play(state, "take 1")
    assert state.observation(1)["seats"][0]["known_hand"] == ["t0"]


def test_nothing_fits_discards_a_hand_tile():
    state = position(seats=[seat(hand=["t48"]), seat()], phase="place")
    assert texts(state) == ["discard t48"]
    state = play(state, "discard t48")
    assert state.observation(1)["discarded"] == ["t48"] and state.current_player() == 1


def test_a_port_bonus_goes_on_a_coastal_region_of_a_tile_with_fewer_than_two_ports():
    state = position(phase="bonus")
    moves = texts(state)
    assert "bonus port @(0,0) with wild" in moves
    state = position(phase="bonus", icons={0: [{"icons": {"flower": 1, "house": 1, "port": 2}}]})
    assert not [m for m in texts(state) if m.startswith("bonus port @(0,0)")]


def test_a_resource_bonus_adds_or_covers_another_resource():
    state = position(phase="bonus")
    moves = texts(state)
    assert "bonus fruit @(0,0) with fruit" in moves and "bonus fruit @(0,0) over flower with wild" in moves
    assert "bonus flower @(0,0) over flower with flower" not in moves  # a token covers a different resource
    assert "bonus flower @(0,0) over fruit with fruit" not in moves  # the fruit token shows fruit
    state = play(state, "bonus fruit @(0,0) over flower with wild")
    island = next(i for i in state.islands() if i["island"] == state.island_of(0, 0))
    assert (island["flower"], island["fruit"]) == (0, 2)
    assert state.observation(0)["seats"][0]["tokens"] == ["flower", "fruit", "leaf"]


def test_landing_needs_an_empty_navigation_deck():
    state = position(display=("t0", None, None), nav=2)
    assert not [m for m in texts(state) if m.startswith("land")]
    state = position(display=("t0", None, None), nav=0)
    lands = {m.split()[1] for m in texts(state) if m.startswith("land")}
    assert lands == {"red", "grey"}  # 2 players: own colour or grey
    state = position(players=4, display=("t0", None, None), nav=0)
    assert {m.split()[1] for m in texts(state) if m.startswith("land")} == {"red"}


def test_landing_ends_the_exploration_and_the_lander_harvests_first():
    # seat 1's Objective O8 (a flower, a fruit and a leaf) is met by the start island
    state = position(display=("t0", None, None), nav=0, seats=[seat(objective="O1"), seat(objective="O8")], active=1)
    state = play(state, "land blue @(2,0)")
    view = state.observation(1)
    assert view["ships"] == {"blue": "(2,0)"} and view["control"]["phase"] == "harvest"
    assert state.current_player() == 1 and view["seats"][1]["revealed"] == "O8"
    state = play(state, f"house island {state.island_of(0, 0)}")  # nothing more to place: seat 0, then round 2
    assert state.observation(0)["control"]["round"] == 2 and state.observation(0)["control"]["start_player"] == 0


# ---------------------------------------------------------------------------------------------------------------------
# End of the game and scoring
# ---------------------------------------------------------------------------------------------------------------------
def test_the_game_ends_when_six_tiles_cannot_be_drawn():
    gone = [f"t{k}" for k in range(8, 56)]  # 5 tiles (t3..t7) are left unseen
    state = position(
        phase="harvest",
        harvest_left=1,
        lander=0,
        nav=0,
        display=("t0", "t1", "t2"),
        discarded=gone,
        seats=[seat(objective="O1", revealed="O1"), seat()],
        board=[("ship red", 0, "(2,0)")],
    )
    assert state.observation(0)["deck_size"] == 5
    state = play(state, "end harvest")
    assert state.is_terminal()


def test_the_game_ends_when_a_seat_can_neither_take_nor_land():
    ships = [("ship blue", 0, "(2,0)")]
    state = position(
        players=4,
        board=ships,
        phase="bonus",
        nav=0,
        taken_slot=1,
        seats=[seat(objective="O1"), seat(objective="O2"), seat(objective="O3"), seat(objective="O4")],
    )
    state = play(state, "no bonus")  # seat 1: nothing face up, its Ship already out: a final Harvest
    control = state.observation(0)["control"]
    assert control["final"] and control["lander"] == 1
    while not state.is_terminal():
        state = play(state, "end harvest") if "end harvest" in texts(state) else state
    assert state.is_terminal()


def test_the_game_ends_after_the_harvest_of_the_last_ship():
    ships = [
        ("ship red", 0, "(2,0)"),
        ("ship blue", 0, "(2,1)"),
        ("ship green", 0, "(-1,0)"),
        ("ship yellow", 0, "(-1,1)"),
    ]
    state = position(
        board=ships, phase="harvest", harvest_left=1, lander=0, seats=[seat(objective="O1", revealed="O1"), seat()]
    )
    state = play(state, "end harvest")
    assert state.is_terminal()


def test_ports_around_the_own_ship_score_and_grey_ships_do_not():
    board = [("ship red", 0, "(2,0)"), ("ship green", 0, "(-1,0)")]
    icons = {1: [{"icons": {"fruit": 1, "house": 1, "port": 2}}], 0: [{"icons": {"flower": 1, "house": 1, "port": 1}}]}
    state = position(board=board, icons=icons, phase="over", seats=[seat(pp=3), seat(pp=3)])
    # red (seat 0) at (2,0) touches (1,0) and (1,1): 2 ports; the grey (green) Ship at (-1,0) scores for no one
    assert state.scores() == [5, 3]


def test_ties_go_to_most_houses_placed():
    state = position(
        phase="over",
        seats=[seat(pp=5, houses_placed=1), seat(pp=5, houses_placed=2)],
        houses={0: [[1, 0]], 1: [[0, 1]], 2: [[0, 1]]},
    )
    assert state.returns() == [0.0, 1.0]


def test_ties_then_go_to_ports_around_the_own_ship():
    board = [("ship red", 0, "(2,0)"), ("ship blue", 0, "(-1,0)")]
    icons = {1: [{"icons": {"fruit": 1, "house": 1, "port": 1}}]}
    state = position(board=board, icons=icons, phase="over", seats=[seat(pp=4), seat(pp=5)])
    assert state.scores() == [5, 5] and state.returns() == [1.0, 0.0]


def test_ties_then_go_to_the_last_placement():
    state = position(phase="over", seats=[seat(pp=5, last_place=3), seat(pp=5, last_place=4)], turn=4)
    assert state.returns() == [0.0, 1.0]


# ---------------------------------------------------------------------------------------------------------------------
# Preparation and Objectives; hidden information
# ---------------------------------------------------------------------------------------------------------------------
def through_setup(players=2):
    state = engine_ext.new_game("small_islands", players)
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    return state


def test_setup_and_preparation_deal_display_hands_objectives_and_the_navigation_deck():
    state = through_setup(3)
    view = state.observation(0)
    assert view["control"]["phase"] == "objective_keep" and view["navigation_size"] == 6
    assert [s["hand_size"] for s in view["seats"]] == [2, 2, 2] and None not in view["display"]
    assert view["deck_size"] == 56 - 3 - 6 - 6
    assert len(view["drawn_objectives"]) == 2 and view["seats"][0]["next_objective"]


def test_the_returned_objective_goes_on_top_and_the_next_seat_draws_it():
    state = through_setup(2)
    keep = texts(state)[0]
    state = play(state, keep)
    cards = {state.observation(0)["seats"][0]["objective"], state.observation(0)["seats"][0]["next_objective"]}
    top = state.observation(0)["objective_top"]
    assert top not in cards and "objective_top" not in state.observation(1)
    outcomes = state.chance_outcomes()
    assert outcomes == [(state.string_to_action(f"draw {top}"), 1.0)]
    assert state.action_to_string(state.public_action(outcomes[0][0])) == "draw an objective"


def test_hidden_hands_objectives_and_tokens_are_resampled():
    state = through_setup(2)
    state = play(state, texts(state)[0])
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    state = play(state, texts(state)[0])
    worlds = {json.dumps(state.determinize(0, seed).private_info(1), sort_keys=True) for seed in range(12)}
    assert len(worlds) > 1
    for seed in range(5):
        world = state.determinize(0, seed)
        assert world.observation(0) == state.observation(0) and not world.invariant_violations()


def harvests_with_a_card_returned(players, count, seed=4):
    """Positions of random games in a Harvest after at least one seat has shown its Objective and returned it."""
    rng, found = random.Random(seed), []
    state = engine_ext.new_game("small_islands", players, seed=seed)
    while len(found) < count:
        if state.is_terminal():
            state = engine_ext.new_game("small_islands", players, seed=rng.getrandbits(30))
        if state.current_player() == engine_ext.CHANCE:
            state.apply(rng.choice(state.chance_outcomes())[0])
            continue
        seats = state.observation(state.current_player())["seats"]
        if any(entry["revealed"] and not entry["has_objective"] for entry in seats):
            found.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    return found


@pytest.mark.parametrize("players", [2, 3, 4])
def test_an_objective_shown_and_returned_in_the_harvest_stays_in_the_deck_in_every_world(players):
    # Every seat saw it go back to the Objective deck, so no sampled world deals it to anyone until the next round's
    # shuffle: not as another seat's Objective for this round, not as one kept for the next.
    for state in harvests_with_a_card_returned(players, 12)[::2]:
        seat = state.current_player()
        view = state.observation(seat)
        returned = {entry["revealed"] for entry in view["seats"] if entry["revealed"] and not entry["has_objective"]}
        rebuilt = engine_ext.from_observation("small_islands", view)
        for source in (state, rebuilt):
            for world_seed in range(20):
                world = source.determinize(seat, world_seed)
                held = set()
                for other in range(players):
                    info = world.private_info(other)
                    held |= {info.get("objective"), info.get("next_objective")}
                assert not returned & held, (returned, held)
                assert json.loads(world.to_json())["objective_deck"] is not None
                assert returned <= set(json.loads(world.to_json())["objective_deck"])


def test_the_issue_examples_parse():
    state = position(display=("t0", "t1", "t2"), nav=3, seats=[seat(hand=["t10", "t11"]), seat(hand=["t12"])])
    for text in ("take 2",):
        assert state.action_to_string(state.string_to_action(text)) == text
    state = play(state, "take 2")
    assert state.action_to_string(state.string_to_action("place t1 r90 @(1,-1)")) == "place t1 r90 @(1,-1)"
    with pytest.raises(engine_ext.InvalidMoveText, match="legal here"):
        state.string_to_action("place t99 r90 @(1,-1)")


def test_a_reward_for_an_island_with_five_temples_draws_five_tokens_and_the_state_still_loads():
    # Regression: the loader capped "discovery_left" at 4, so a hosted game whose rewarded island had 5 Temples
    # failed on its next move. The count is the island's Temples, at most the 12 Discovery tokens.
    data = json.loads(engine_ext.new_game("small_islands", 2, seed=1).to_json())
    data["control"]["discovery_left"] = 5
    loaded = engine_ext.small_islands.from_json(json.dumps(data))
    assert json.loads(loaded.to_json())["control"]["discovery_left"] == 5
    data["control"]["discovery_left"] = 13
    with pytest.raises(engine_ext.InvalidObservation, match="discovery_left"):
        engine_ext.small_islands.from_json(json.dumps(data))


# ---------------------------------------------------------------------------------------------------------------------
# The `missions` evaluation (GameInfo.heuristics[1]): what the search and greedy see one ply on
# ---------------------------------------------------------------------------------------------------------------------
def evaluation(state, name):
    from search import mcts

    return mcts.evaluate_state(state, 0, 1, 0, True, name)


def test_missions_sees_a_mission_met_and_points_does_not():
    # Exploration (seat 0 to move), seat 0's Objective O2 (more fruit than leaves) on the north island.
    def exploring(icons, taken=0):
        return position(
            board=TWO_TILES,
            icons={4: [{"icons": dict(icons, house=1)}], 5: [{"icons": {}}]},
            houses={4: [[0, taken]]},
            seats=[seat(objective="O2"), seat(objective="O12", houses_placed=taken)],
        )

    meets, fails = exploring({"fruit": 2, "leaf": 1}), exploring({"fruit": 1, "leaf": 2})
    assert evaluation(meets, "points") == pytest.approx(evaluation(fails, "points"))
    assert evaluation(meets, "missions")[0] > evaluation(fails, "missions")[0] + 0.1
    # A Reward counts only where a House may still go: the mark taken, the island is worth nothing to the Mission.
    taken = exploring({"fruit": 2, "leaf": 1}, taken=1)
    assert evaluation(taken, "missions")[0] < evaluation(meets, "missions")[0] - 0.1


def difference(state, name):
    """Seat 0's estimate less seat 1's in PP, read back from the evaluation's softmax (5 PP per e)."""
    out = evaluation(state, name)
    return 5.0 * math.log(out[0] / out[1])


def test_missions_counts_the_best_rewards_one_house_each():
    # Two islands meeting O2 (1 per fruit + 2): the north one 3 fruit (5 PP), a south one 2 fruit (4 PP).
    two = TWO_TILES + [("t43", 180, "(0,2)"), ("t0", 0, "(0,3)")]
    icons = {6: [{"icons": {"fruit": 2, "house": 1}}], 7: [{"icons": {}}]}

    def with_houses(n):
        return position(
            board=two,
            icons={4: [{"icons": {"fruit": 3, "house": 1}}], 5: [{"icons": {}}], **icons},
            seats=[seat(objective="O2", houses_hand=n), seat(objective="O12")],
        )

    assert with_houses(1).island_of(0, -1) != with_houses(1).island_of(0, 2)
    # With two Houses both Rewards count (5 + 4), with one only the better: 4 PP apart; the Houses left for later
    # rounds are the same (at most 4).
    assert difference(with_houses(2), "missions") - difference(with_houses(1), "missions") == pytest.approx(4.0)
    assert difference(with_houses(0), "missions") < difference(with_houses(1), "missions") - 4.9


def test_purposeful_playouts_keep_the_objectives_the_board_rewards():
    # Seat 0 keeps two of O1 (held from the last round), O2 and O3. The north island (2 fruit, 1 leaf) meets O2
    # (4 PP) and O3 (3 PP), not O1: the purposeful policy keeps O2 for this round and O3 for the next, every time;
    # so does the objectives policy (purposeful in that choice alone); the light policy keeps any pair.
    from search import mcts

    state = position(
        board=TWO_TILES,
        icons={4: [{"icons": {"fruit": 2, "leaf": 1, "house": 1}}], 5: [{"icons": {}}]},
        seats=[seat(next_objective="O1"), seat(objective="O12", next_objective="O5")],
        phase="objective_keep",
        drawn=["O2", "O3"],
    )

    def kept(policy):
        return {state.action_to_string(mcts.playout_choice(state, k, policy)) for k in range(40)}

    assert kept("purposeful") == kept("objectives") == {"keep O2 next O3"}
    assert len(kept("light")) >= 4 and kept(None) == kept("light")
    with pytest.raises(ValueError, match="offers light, purposeful, objectives"):
        mcts.playout_choice(state, 0, "heavy")
    with pytest.raises(ValueError, match="not a seat's decision"):
        mcts.playout_choice(engine_ext.new_game("small_islands", 2), 0)  # a chance event opens the game
    # At a placement the objectives policy is the light one, seed for seed.
    placing = position(seats=[seat(hand=["t0", "t42"]), seat()], phase="place")
    assert [mcts.playout_choice(placing, k, "objectives") for k in range(20)] == [
        mcts.playout_choice(placing, k, "light") for k in range(20)
    ]


def test_a_discovery_reward_of_more_than_four_temples_reads_back_from_the_others_observation():
    # rulings: the Discovery Reward draws #Temples tokens (as many as remain if fewer), so up to all 12 can be drawn
    # at once; another seat sees how many, and its observation must rebuild (the server validates moves from it)
    import random

    rng = random.Random(152)
    state = engine_ext.new_game("small_islands", 3, seed=152)
    other = None
    while other is None and not state.is_terminal():
        if state.current_player() == engine_ext.CHANCE:
            state.apply(rng.choice(state.chance_outcomes())[0])
        else:
            state.apply(rng.choice(state.legal_actions()))
        actor = state.current_player()
        if actor >= 0 and state.observation((actor + 1) % 3)["discovery_drawn_count"] > 4:
            other = (actor + 1) % 3
    assert other is not None, "the seeded game no longer reaches a Reward of five or more Temples"
    observation = state.observation(other)
    rebuilt = engine_ext.from_observation("small_islands", observation)
    assert rebuilt.observation(other) == observation


def test_the_loader_refuses_an_objective_held_in_two_places():
    # Twelve Objective cards, each in one place: the deck, a seat's current or next card, or a fresh draw. A state that
    # gives two seats the same card counts twelve and is still no state of the game (a sampled world must not be one).
    from search import bench

    state = engine_ext.new_game("small_islands", 3, seed=1)
    rng = random.Random(1)
    for _ in range(60):
        bench.random_step(state, rng)
    data = json.loads(state.to_json())
    holders = [s for s in data["seats"] if s.get("objective")]
    assert len(holders) >= 2
    engine_ext.from_json(json.dumps(data))  # the state as it is loads
    holders[1]["objective"] = holders[0]["objective"]
    with pytest.raises(ValueError, match="a card is in two places"):
        engine_ext.from_json(json.dumps(data))
