"""Islet's rules, one test per rule (docs/rules/islet.md), on positions built from their parts."""

import json

import pytest
from islet_positions import obs, play, position, seat, texts

import engine_ext
from engine_ext import IllegalAction

# Start islet: (-1,0) up, (0,0) down, (1,0) up / (-1,1) down, (0,1) up, (1,1) down; (-1,0)-(-1,1) and (1,0)-(1,1)
# are joined vertically; the sea cells are (-2,0) (0,-1) (2,0) (-2,1) (0,2) (2,1).
SOLO_WATER = ["water/leaves"] * 6 + ["clay/branches"] * 6
SEA = {"(-2,0)", "(0,-1)", "(2,0)", "(-2,1)", "(0,2)", "(2,1)"}


def cells_of(moves, prefix):
    return {m.split("@")[1] for m in moves if m.startswith(prefix)}


def drained(keep, **kw):
    """The position ``position(**kw)`` with all but ``keep`` bag tiles stacked on the sea cell (0,-1)."""
    bag = json.loads(position(**kw).to_json())["bag"]
    extra = [t for t, n in sorted(bag.items()) for _ in range(n)][keep:]
    kw["placed"] = list(kw.get("placed", ())) + [("(0,-1)", t) for t in extra]
    return position(**kw)


def explore_once(state):
    """Place the first placeable tile and stop exploring (if the placement did not end it)."""
    state = play(state, next(m for m in texts(state) if m.startswith("place")))
    if "stop exploring" in texts(state):
        state = play(state, "stop exploring")
    return state


def explorer(hand=None, **kw):
    return position(seats=[seat(hand=hand or {"water/leaves": 4}, **kw), seat(hand={"sand/leaves": 4})])


# ---------------------------------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------------------------------
def test_setup_deals_the_start_islet_and_four_tiles_per_hand_by_chance():
    state = engine_ext.new_game("islet", 3)
    chance = 0
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
        chance += 1
    assert chance == 6 + 3 * 4
    view = obs(state)
    assert [t[0] for t in view["tiles"]] == ["(-1,0)", "(0,0)", "(1,0)", "(-1,1)", "(0,1)", "(1,1)"]
    assert [s["hand_size"] for s in view["seats"]] == [4, 4, 4]
    assert [s["free_eggs"] for s in view["seats"]] == [8, 8, 8]
    assert all(s["pawn"] == "sea" for s in view["seats"])
    assert view["bag_size"] == 90 - 6 - 12 and view["control"]["phase"] == "turn"


@pytest.mark.parametrize(("players", "eggs"), [(2, 10), (3, 8), (4, 6)])
def test_eggs_per_player_count(players, eggs):
    assert obs(engine_ext.new_game("islet", players))["seats"][0]["free_eggs"] == eggs


# ---------------------------------------------------------------------------------------------------------------------
# Explore: placement conditions
# ---------------------------------------------------------------------------------------------------------------------
def test_first_tile_goes_on_a_sea_cell_beside_the_islet():
    assert cells_of(texts(explorer()), "place") == SEA


def test_further_tiles_go_beside_the_last_tile_placed():
    state = play(explorer(), "place water/leaves @(2,0)")
    # (2,0) points down: its neighbours are (1,0), (3,0) and (2,-1); only (1,0) is a tile.
    assert cells_of(texts(state), "place") == {"(1,0)"}
    assert "stop exploring" in texts(state)


def test_further_tiles_avoid_birds_and_eggs():
    state = position(seats=[seat(hand={"water/leaves": 4}), seat(hand={"sand/leaves": 4}, pawn="(1,0)")])
    assert cells_of(texts(play(state, "place water/leaves @(2,0)")), "place") == set()
    state = position(
        seats=[seat(hand={"water/leaves": 4}), seat(hand={"sand/leaves": 4}, laid=1)], egg_cells=[("(1,0)", 1)]
    )
    assert cells_of(texts(play(state, "place water/leaves @(2,0)")), "place") == set()


def test_further_tiles_ascend():
    # (2,0) then (1,0) makes (1,0) height 2; its neighbours (0,0) and (1,1) are height 1: too low to go on.
    state = play(explorer(), "place water/leaves @(2,0)", "place water/leaves @(1,0)")
    assert cells_of(texts(state), "place") == set()
    assert state.observation(0)["control"]["phase"] == "draw"
    # A neighbour at least as high as the last tile placed is allowed.
    state = position(placed=[("(1,1)", "clay/flowers")], seats=[seat(hand={"water/leaves": 4}), seat()])
    state = play(state, "place water/leaves @(2,0)", "place water/leaves @(1,0)")
    assert cells_of(texts(state), "place") == {"(1,1)"}


def test_at_most_four_tiles_per_explore():
    state = position(
        placed=[
            ("(1,1)", "clay/flowers"),
            ("(1,1)", "clay/flowers"),
            ("(0,1)", "sand/leaves"),
            ("(0,1)", "sand/leaves"),
            ("(0,1)", "sand/leaves"),
        ],
        seats=[seat(hand={"water/leaves": 4}), seat()],
    )
    state = play(
        state,
        "place water/leaves @(2,0)",
        "place water/leaves @(1,0)",
        "place water/leaves @(1,1)",
        "place water/leaves @(0,1)",
    )
    assert state.current_player() == engine_ext.CHANCE  # drawing: the 4th tile ended the placements


def test_placing_needs_tiles_in_hand():
    state = position(seats=[seat(hand={}, pawn="(0,0)"), seat()])
    assert not cells_of(texts(state), "place")


# ---------------------------------------------------------------------------------------------------------------------
# Explore: resources
# ---------------------------------------------------------------------------------------------------------------------
def gained(start_type, placed_type, on_sea=False):
    state = position(start=[start_type] * 6, seats=[seat(hand={placed_type: 2}), seat()])
    state = play(state, f"place {placed_type} @(2,0)")
    if not on_sea:
        state = play(state, f"place {placed_type} @(1,0)")
    return state.observation(0)["seats"][0]["cards"]


def test_tile_on_the_sea_gives_its_terrain():
    assert gained("sand/leaves", "clay/branches", on_sea=True) == {"clay": 1}


def test_tile_on_the_same_terrain_gives_that_terrain():
    assert gained("clay/leaves", "clay/flowers") == {"clay": 2}


@pytest.mark.parametrize(
    ("under", "placed", "nest"),
    [
        ("water/leaves", "sand/leaves", "branches"),
        ("sand/leaves", "water/leaves", "branches"),
        ("water/leaves", "clay/leaves", "leaves"),
        ("clay/leaves", "water/leaves", "leaves"),
        ("sand/leaves", "clay/leaves", "flowers"),
        ("clay/leaves", "sand/leaves", "flowers"),
    ],
)
def test_tile_on_another_terrain_gives_the_nest_of_the_pair(under, placed, nest):
    terrain = placed.split("/")[0]
    assert gained(under, placed) == {terrain: 1, nest: 1}


def test_the_printed_nest_never_counts_when_exploring():
    assert gained("sand/flowers", "water/flowers") == {"water": 1, "branches": 1}


def test_an_empty_stack_gives_nothing():
    others = seat(cards={"clay": 8}, guaranteed={"clay": 2}, pawn="(1,1)")
    state = position(start=["water/leaves"] * 6, seats=[seat(hand={"clay/leaves": 1}, cards={"clay": 2}), others])
    assert state.observation(0)["stacks"]["clay"] == 0
    state = play(state, "place clay/leaves @(2,0)")
    assert state.observation(0)["seats"][0]["cards"] == {"clay": 2}


def test_the_hand_is_refilled_to_four_from_the_bag():
    state = play(explorer(), "place water/leaves @(2,0)", "stop exploring")
    assert state.current_player() == engine_ext.CHANCE
    assert sum(p for _, p in state.chance_outcomes()) == pytest.approx(1.0)
    state.apply(state.chance_outcomes()[0][0])
    assert state.current_player() == 1 and obs(state)["seats"][0]["hand_size"] == 4


def test_above_eight_unguaranteed_resources_the_player_returns_cards():
    state = position(
        seats=[seat(hand={"water/leaves": 1}, cards={"water": 4, "leaves": 4}, guaranteed={"sand": 2}), seat()]
    )
    state = play(state, "place water/leaves @(2,0)")
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    assert state.current_player() == 0 and set(texts(state)) == {"return water", "return leaves"}
    state = play(state, "return leaves")
    # 8 unguaranteed left (guaranteed resources do not count): the turn is over.
    assert state.current_player() == 1
    assert obs(state)["seats"][0]["cards"] == {"water": 5, "leaves": 3}


# ---------------------------------------------------------------------------------------------------------------------
# Move: advancing
# ---------------------------------------------------------------------------------------------------------------------
def mover(start=None, placed=(), **kw):
    kw.setdefault("hand", {"water/leaves": 4})
    return position(start=start, placed=placed, seats=[seat(**kw), seat(hand={"sand/leaves": 4})])


def test_advance_on_the_same_terrain_is_free():
    assert "advance (1,0)" in texts(mover(pawn="(0,0)"))


def test_advance_to_another_terrain_costs_a_terrain_card_of_the_destination():
    start = ["sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "sand/leaves"]
    moves = [m for m in texts(mover(start=start, pawn="(0,0)", cards={"clay": 1, "water": 2})) if "(1,0)" in m]
    assert set(moves) == {"advance (1,0) pay clay", "advance (1,0) pay water+water"}
    assert not [m for m in texts(mover(start=start, pawn="(0,0)", cards={"sand": 1})) if "(1,0)" in m]


def test_advance_paid_with_a_guaranteed_resource():
    start = ["sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "sand/leaves"]
    moves = [
        m
        for m in texts(mover(start=start, pawn="(0,0)", guaranteed={"clay": 1, "water": 1}, cards={"water": 1}))
        if "(1,0)" in m
    ]
    assert set(moves) == {"advance (1,0) pay *clay", "advance (1,0) pay water+*water"}


def test_advance_from_the_sea_reaches_shore_tiles_and_always_pays():
    state = position(start=["sand/leaves"] * 6, seats=[seat(hand={"water/leaves": 4}, cards={"sand": 1}), seat()])
    advances = {m.split()[1] for m in texts(state) if m.startswith("advance")}
    assert advances == {"(-1,0)", "(0,0)", "(1,0)", "(-1,1)", "(0,1)", "(1,1)"}  # all six touch the sea
    assert all(m.endswith("pay sand") for m in texts(state) if m.startswith("advance"))
    state = position(
        placed=[("(0,-1)", "sand/leaves"), ("(2,0)", "sand/leaves"), ("(-2,0)", "sand/leaves")],
        seats=[seat(hand={"water/leaves": 4}, cards={"sand": 1}), seat()],
    )
    assert "advance (0,0) pay sand" not in texts(state)  # (0,0) is inland now


def test_the_pawn_never_returns_to_the_sea():
    state = mover(pawn="(0,0)", cards={"water": 3})
    assert all(m.split()[1] in ("(-1,0)", "(1,0)") for m in texts(state) if m.startswith("advance"))


def test_a_move_may_not_end_on_another_bird():
    state = position(seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)"), seat(pawn="(1,0)")])
    state = play(state, "advance (1,0)")
    assert "end move" not in texts(state)
    assert "advance (1,1)" in texts(state)


def test_entering_another_birds_tile_needs_a_way_out():
    # (1,0)'s other neighbour (1,1) is clay and nothing pays for it: entering (1,0) would be a dead end.
    start = ["sand/leaves", "sand/leaves", "sand/leaves", "sand/leaves", "sand/leaves", "clay/leaves"]
    state = position(start=start, seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)"), seat(pawn="(1,0)")])
    assert "advance (1,0)" not in texts(state)
    state = position(
        start=start, seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)", cards={"clay": 1}), seat(pawn="(1,0)")]
    )
    assert "advance (1,0)" in texts(state)


def test_the_pawn_may_not_reenter_a_cell_until_an_egg_is_laid():
    state = play(mover(pawn="(0,0)", cards={"leaves": 3}), "advance (1,0)")
    assert "advance (0,0)" not in texts(state)
    state = play(state, "lay pay leaves,leaves,leaves guarantee clay")
    assert "advance (0,0)" in texts(state)


def test_a_move_needs_a_step_unless_the_hand_is_empty():
    assert "end move" not in texts(mover(pawn="(0,0)"))
    state = play(mover(pawn="(0,0)"), "advance (1,0)")
    assert "end move" in texts(state)
    assert "end move" in texts(mover(pawn="(0,0)", hand={}))


def test_explore_or_move_is_the_turns_choice():
    moves = texts(mover(pawn="(0,0)", cards={"leaves": 3}))
    assert {m.split()[0] for m in moves} == {"place", "advance", "lay"}


# ---------------------------------------------------------------------------------------------------------------------
# Payments
# ---------------------------------------------------------------------------------------------------------------------
def test_a_guaranteed_resource_is_usable_once_per_turn():
    start = ["sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "clay/leaves"]
    state = mover(start=start, pawn="(0,0)", guaranteed={"clay": 1})
    state = play(state, "advance (1,0) pay *clay")
    assert obs(state)["seats"][0]["used"] == {"clay": 1}
    state = play(state, "end move")
    assert obs(state)["seats"][0]["used"] == {}  # stood up again at the end of the turn


def test_a_spent_guaranteed_resource_cannot_pay_again_this_turn():
    start = ["sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves"]
    state = mover(start=start, pawn="(-1,0)", guaranteed={"clay": 1})
    state = play(state, "advance (0,0) pay *clay")
    assert not [m for m in texts(state) if "pay *clay" in m]


def test_two_identical_terrains_transform_into_another_terrain():
    start = ["sand/leaves", "sand/leaves", "water/leaves", "sand/leaves", "sand/leaves", "sand/leaves"]
    assert "advance (1,0) pay clay+clay" in texts(mover(start=start, pawn="(0,0)", cards={"clay": 2}))
    assert "advance (1,0) pay sand+*sand" in texts(
        mover(start=start, pawn="(0,0)", cards={"sand": 1}, guaranteed={"sand": 1})
    )


def test_two_different_terrains_transform_into_their_nest():
    # flowers = sand + clay
    state = mover(start=["sand/flowers"] * 6, pawn="(0,0)", cards={"flowers": 2, "sand": 1, "clay": 1})
    assert "lay pay flowers,flowers,sand+clay guarantee leaves" in texts(state)


def test_a_transformed_card_feeds_a_further_transform():
    # three clay: two make a sand, which joins the third to make flowers
    state = mover(start=["sand/flowers"] * 6, pawn="(0,0)", cards={"flowers": 2, "clay": 3})
    assert "lay pay flowers,flowers,clay+clay+clay guarantee leaves" in texts(state)


def test_a_transform_needs_no_card_in_any_stack():
    start = ["sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "sand/leaves"]
    other = seat(cards={"clay": 8}, guaranteed={"clay": 2}, pawn="(1,1)", hand={"sand/leaves": 1})
    state = position(
        start=start, seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)", cards={"water": 2, "clay": 2}), other]
    )
    assert obs(state)["stacks"]["clay"] == 0
    assert "advance (1,0) pay water+water" in texts(state)


def test_only_minimal_payments_are_offered():
    state = mover(start=["sand/flowers"] * 6, pawn="(0,0)", cards={"flowers": 3, "sand": 2, "clay": 2})
    lays = [m for m in texts(state) if m.startswith("lay")]
    pays = {m.split()[2] for m in lays}
    assert "flowers,flowers,flowers" in pays and "flowers,flowers,sand+clay" in pays
    assert "flowers,flowers,flowers,sand+clay" not in pays
    for pay in pays:  # no payment keeps working with one card fewer
        cards = pay.replace("+", ",").split(",")
        assert len(cards) - cards.count("flowers") == 2 * (3 - cards.count("flowers")) or "clay+clay+clay" in pay


def test_paying_returns_cards_to_their_stacks():
    state = mover(start=["sand/flowers"] * 6, pawn="(0,0)", cards={"flowers": 2, "sand": 1, "clay": 1})
    before = obs(state)["stacks"]
    state = play(state, "lay pay flowers,flowers,sand+clay guarantee leaves")
    after = obs(state)["stacks"]
    assert (after["flowers"], after["sand"], after["clay"], after["leaves"]) == (
        before["flowers"] + 2,
        before["sand"] + 1,
        before["clay"] + 1,
        before["leaves"] - 1,
    )


# ---------------------------------------------------------------------------------------------------------------------
# Eggs
# ---------------------------------------------------------------------------------------------------------------------
def test_a_lay_costs_three_nest_cards_of_the_tiles_nest():
    assert not [m for m in texts(mover(pawn="(0,0)", cards={"leaves": 2})) if m.startswith("lay")]
    assert not [m for m in texts(mover(pawn="(0,0)", cards={"flowers": 3})) if m.startswith("lay")]
    assert [m for m in texts(mover(pawn="(0,0)", cards={"leaves": 3})) if m.startswith("lay")]


def test_no_lay_on_an_egg_or_beside_another_bird_on_the_tile():
    state = position(
        seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)", cards={"leaves": 3}), seat(laid=1)],
        egg_cells=[("(0,0)", 1)],
    )
    assert not [m for m in texts(state) if m.startswith("lay")]
    state = position(seats=[seat(hand={"water/leaves": 4}, pawn="(1,0)", cards={"leaves": 3}), seat(pawn="(0,0)")])
    state = play(state, "advance (0,0)")
    assert not [m for m in texts(state) if m.startswith("lay")]


def test_with_two_free_eggs_a_lay_gains_a_guaranteed_resource_of_choice():
    state = mover(pawn="(0,0)", cards={"leaves": 3})
    lays = [m for m in texts(state) if m.startswith("lay")]
    assert lays == [
        f"lay pay leaves,leaves,leaves guarantee {r}"
        for r in ("water", "sand", "clay", "leaves", "branches", "flowers")
    ]
    state = play(state, "lay pay leaves,leaves,leaves guarantee branches")
    me = obs(state)["seats"][0]
    assert (me["laid"], me["free_eggs"], me["guaranteed"]) == (1, 8, {"branches": 1})
    assert obs(state)["eggs"] == [["(0,0)", 0]]


def test_at_most_two_identical_guaranteed_resources():
    state = mover(pawn="(0,0)", cards={"leaves": 3}, guaranteed={"water": 2})
    assert "guarantee water" not in " ".join(texts(state))


def test_a_guarantee_needs_a_card_in_its_stack():
    other = seat(cards={"clay": 8}, guaranteed={"clay": 2}, pawn="(1,1)", hand={"sand/leaves": 1})
    state = position(seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)", cards={"leaves": 3, "clay": 2}), other])
    assert obs(state)["stacks"]["clay"] == 0
    assert "guarantee clay" not in " ".join(texts(state)) and "guarantee sand" in " ".join(texts(state))


def test_with_no_type_to_guarantee_the_egg_is_laid_alone():
    # 4 players: every type is either guaranteed twice by seat 0 (water, flowers) or out of its stack.
    seats = [
        seat(
            hand={"water/leaves": 4},
            pawn="(0,0)",
            cards={"flowers": 1, "sand": 2, "leaves": 3, "branches": 2},
            guaranteed={"flowers": 2, "water": 2},
        ),
        seat(cards={"sand": 4, "clay": 4}, guaranteed={"sand": 2, "clay": 2, "leaves": 2}),
        seat(cards={"leaves": 4, "branches": 4}, guaranteed={"sand": 2, "clay": 2, "branches": 2}),
        seat(cards={"clay": 4, "leaves": 1, "branches": 2}, guaranteed={"leaves": 2, "branches": 2, "sand": 2}),
    ]
    state = position(players=4, start=["sand/flowers"] * 6, seats=seats)
    assert all(n == 0 for r, n in obs(state)["stacks"].items() if r not in ("water", "flowers"))
    plain = [m for m in texts(state) if m.startswith("lay pay flowers,*flowers,*flowers")]
    assert plain == ["lay pay flowers,*flowers,*flowers"]
    state = play(state, "lay pay flowers,*flowers,*flowers")
    me = obs(state)["seats"][0]
    assert (me["free_eggs"], me["laid"], me["guaranteed"]) == (1, 1, {"water": 2, "flowers": 2})


def test_a_lay_with_one_free_egg_guarantees_nothing():
    state = position(
        seats=[
            seat(
                hand={"water/leaves": 4},
                pawn="(0,0)",
                cards={"leaves": 3},
                guaranteed={"water": 2, "sand": 2, "clay": 2, "branches": 2},
                laid=1,
            ),
            seat(laid=1),
        ],
        egg_cells=[("(1,1)", 0), ("(-1,1)", 1)],
    )
    assert obs(state)["seats"][0]["free_eggs"] == 1
    assert [m for m in texts(state) if m.startswith("lay pay leaves,leaves,leaves")] == ["lay pay leaves,leaves,leaves"]
    assert all("guarantee" not in m for m in texts(state))
    state = play(state, "lay pay leaves,leaves,leaves")
    assert obs(state)["seats"][0]["free_eggs"] == 0 and obs(state)["seats"][0]["laid"] == 2


def test_with_no_free_egg_a_lay_releases_a_guaranteed_resource():
    state = position(
        seats=[
            seat(
                hand={"water/leaves": 4},
                pawn="(0,0)",
                cards={"leaves": 3},
                guaranteed={"water": 2, "sand": 2, "clay": 2, "branches": 2},
                laid=2,
            ),
            seat(laid=1),
        ],
        egg_cells=[("(1,1)", 0), ("(0,1)", 0), ("(-1,1)", 1)],
    )
    lays = {m for m in texts(state) if m.startswith("lay pay leaves,leaves,leaves ")}
    assert lays == {f"lay pay leaves,leaves,leaves release {r}" for r in ("water", "sand", "clay", "branches")}
    before = obs(state)["stacks"]["sand"]
    state = play(state, "lay pay leaves,leaves,leaves release sand")
    me = obs(state)["seats"][0]
    assert me["guaranteed"]["sand"] == 1 and me["laid"] == 3 and obs(state)["stacks"]["sand"] == before + 1


def test_the_guaranteed_resource_paying_a_lay_may_be_the_one_released():
    state = position(
        start=["sand/flowers"] * 6,
        seats=[
            seat(
                hand={"water/leaves": 4},
                pawn="(0,0)",
                cards={"flowers": 2},
                guaranteed={"flowers": 1, "water": 2, "sand": 2, "clay": 2, "branches": 1},
                laid=2,
            ),
            seat(laid=1),
        ],
        egg_cells=[("(1,1)", 0), ("(0,1)", 0), ("(-1,1)", 1)],
    )
    state = play(state, "lay pay flowers,flowers,*flowers release flowers")
    me = obs(state)["seats"][0]
    assert "flowers" not in me["guaranteed"] and me["used"] == {}


def test_a_guaranteed_resource_gained_is_usable_the_same_turn():
    start = ["sand/leaves", "sand/leaves", "clay/leaves", "sand/leaves", "sand/leaves", "sand/leaves"]
    state = play(mover(start=start, pawn="(0,0)", cards={"leaves": 3}), "lay pay leaves,leaves,leaves guarantee clay")
    assert "advance (1,0) pay *clay" in texts(state)


def test_egg_heights_are_recorded_for_the_tie_break():
    state = position(
        placed=[("(0,0)", "sand/leaves"), ("(0,0)", "sand/leaves")],
        seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)", cards={"leaves": 3}), seat()],
    )
    state = play(state, "lay pay leaves,leaves,leaves guarantee clay")
    assert [c["height"] for c in state.cells() if c["egg"] == 0] == [3]


# ---------------------------------------------------------------------------------------------------------------------
# End of the game
# ---------------------------------------------------------------------------------------------------------------------
def last_egg_position(active, other, phase="turn"):
    """4 players; seats ``active`` and ``other`` have laid 5 of their 6 eggs, ``active`` (on (0,0), with 3 leaves)
    can lay its last one, from its one guaranteed resource."""
    seats = [seat(hand={t: 4}) for t in ("water/leaves", "water/branches", "water/flowers", "clay/leaves")]
    for k in (active, other):
        seats[k].update(laid=5, guaranteed={"clay": 1}, free_eggs=0)
    seats[active].update(pawn="(0,0)", cards={"leaves": 3})
    placed = [(c, "clay/flowers") for c in ("(-2,0)", "(2,0)", "(-2,1)", "(2,1)", "(0,2)")]
    eggs = [(c, active) for c in ("(-1,0)", "(1,0)", "(-1,1)", "(0,1)", "(1,1)")] + [
        (c, other) for c in ("(-2,0)", "(2,0)", "(-2,1)", "(2,1)", "(0,2)")
    ]
    return position(placed=placed, seats=seats, active=active, egg_cells=eggs, players=4, phase=phase)


def test_the_last_egg_ends_the_game_after_the_round():
    state = play(last_egg_position(0, 1), "lay pay leaves,leaves,leaves release clay", "end move")
    for seat_to_play in (1, 2, 3):  # the round is completed
        assert not state.is_terminal() and state.current_player() == seat_to_play
        state = explore_once(state)
        while state.current_player() == engine_ext.CHANCE:
            state.apply(state.chance_outcomes()[0][0])
    assert state.is_terminal() and state.returns() == [1.0, 0.0, 0.0, 0.0] and state.scores() == [6, 5, 0, 0]


def test_the_last_egg_of_the_last_seat_ends_the_game_at_once():
    state = play(last_egg_position(3, 0), "lay pay leaves,leaves,leaves release clay", "end move")
    assert state.is_terminal() and state.returns() == [0.0, 0.0, 0.0, 1.0]


def test_the_last_tile_from_the_bag_ends_the_game_one_round_later():
    state = drained(1, seats=[seat(hand={"water/leaves": 3}), seat(hand={"sand/leaves": 4})])
    assert state.observation(0)["bag_size"] == 1
    state = play(state, "place water/leaves @(2,0)", "stop exploring")
    state.apply(state.chance_outcomes()[0][0])  # the last tile: round 1 is completed, then round 2
    assert state.observation(0)["control"]["final_round"] == 2 and state.current_player() == 1
    for _ in range(3):  # seat 1 (round 1), seats 0 and 1 (round 2)
        assert not state.is_terminal()
        state = explore_once(state)
    assert state.is_terminal()


def test_most_eggs_wins():
    assert last_egg_position(0, 1, phase="over").returns() == [0.5, 0.5, 0.0, 0.0]  # 5 each, all at height 1
    state = play(last_egg_position(3, 0), "lay pay leaves,leaves,leaves release clay", "end move")
    assert state.returns() == [0.0, 0.0, 0.0, 1.0]


def test_a_tie_goes_to_the_highest_egg_then_the_next():
    seats = [seat(laid=2), seat(laid=2)]
    placed = [("(0,0)", "sand/leaves"), ("(0,0)", "sand/leaves"), ("(1,1)", "sand/leaves")]
    # seat 0: heights 3 and 1; seat 1: heights 2 and 1
    state = position(
        placed=placed, seats=seats, egg_cells=[("(0,0)", 0), ("(-1,0)", 0), ("(1,1)", 1), ("(1,0)", 1)], phase="over"
    )
    assert state.returns() == [1.0, 0.0]
    placed = [("(0,0)", "sand/leaves"), ("(1,1)", "sand/leaves"), ("(0,1)", "sand/leaves")]
    # seat 0: 2, 1; seat 1: 2, 2 → seat 1 wins on the second egg
    state = position(
        placed=placed, seats=seats, egg_cells=[("(0,0)", 0), ("(-1,0)", 0), ("(1,1)", 1), ("(0,1)", 1)], phase="over"
    )
    assert state.returns() == [0.0, 1.0]


def test_a_tie_all_the_way_is_shared():
    seats = [seat(laid=1), seat(laid=1), seat(laid=0)]
    state = position(players=3, seats=seats, egg_cells=[("(0,0)", 0), ("(1,0)", 1)], phase="over")
    assert state.returns() == [0.5, 0.5, 0.0]


def test_the_round_limit_ends_a_game():
    state = position(seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)"), seat(pawn="(-1,1)")], round=200, active=1)
    state = play(state, "advance (0,1)", "end move")
    assert state.is_terminal()


# ---------------------------------------------------------------------------------------------------------------------
# Solo
# ---------------------------------------------------------------------------------------------------------------------
def solo(start=None, placed=(), cards=None, **kw):
    kw.setdefault("hand", {"water/leaves": 4})
    kw.setdefault("pawn", "(0,0)")
    return position(start=start, placed=placed, seats=[seat(**kw)], solo=True, cards=cards)


def test_solo_setup_two_islets_four_cards_and_a_chosen_start():
    state = engine_ext.new_game("islet_solo", 1, eggs=6)
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[-1][0])
    view = obs(state)
    assert len(view["tiles"]) == 12 and view["seats"][0]["hand_size"] == 4 and view["seats"][0]["free_eggs"] == 6
    assert len(view["cards"]["day"]) == 2 and len(view["cards"]["night"]) == 2 and len(view["deck"]) == 9
    starts = {m.split("@")[1] for m in texts(state)}
    assert starts == {t[0] for t in view["tiles"]}


def test_solo_explore_only_beside_the_pawns_islet():
    assert cells_of(texts(solo()), "place") == SEA
    assert cells_of(texts(solo(pawn="(10,0)")), "place") == {"(8,0)", "(10,-1)", "(12,0)", "(8,1)", "(10,2)", "(12,1)"}


def test_solo_islets_never_touch():
    # grow islet 1 leftwards until a sea cell touches both: (4,0)..(8,0) on islet 2's side, (2,0),(3,0) on islet 1's
    placed = [(f"({x},0)", "water/flowers") for x in (2, 3)] + [(f"({x},0)", "water/flowers") for x in (8, 7, 6, 5)]
    state = solo(placed=placed)
    assert "(4,0)" not in cells_of(texts(state), "place")


def test_solo_move_starts_by_removing_three_tiles():
    state = solo(hand={"water/leaves": 2, "clay/flowers": 2})
    removals = [m for m in texts(state) if m.startswith("remove")]
    assert removals == [
        "remove hand water/leaves,water/leaves,clay/flowers",
        "remove hand water/leaves,clay/flowers,clay/flowers",
        "remove bag",
    ]
    state = play(state, "remove hand water/leaves,water/leaves,clay/flowers")
    view = obs(state)
    assert view["seats"][0]["hand"] == {"clay/flowers": 1} and view["removed"] == {"water/leaves": 2, "clay/flowers": 1}
    assert "end move" in texts(state)


def test_solo_removal_from_the_bag_is_chance_and_seen():
    state = play(solo(), "remove bag")
    for _ in range(3):
        assert state.current_player() == engine_ext.CHANCE
        state.apply(state.chance_outcomes()[0][0])
    assert sum(obs(state)["removed"].values()) == 3 and obs(state)["bag_size"] == 90 - 12 - 4 - 3


def test_solo_removal_needs_three_tiles_in_hand():
    assert not [m for m in texts(solo(hand={"water/leaves": 2})) if m.startswith("remove hand")]


def test_solo_removal_from_a_bag_with_fewer_than_three_loses():
    state = drained(2, solo=True, seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)")])
    assert obs(state)["bag_size"] == 2
    state = play(state, "remove bag")
    state.apply(state.chance_outcomes()[0][0])
    state.apply(state.chance_outcomes()[0][0])
    assert state.is_terminal() and state.returns() == [0.0] and state.scores() == [0]


def test_solo_travel_between_identical_tiles_of_the_two_islets():
    start = ["water/leaves"] * 6 + ["sand/leaves", "water/leaves", "water/branches"] + ["clay/flowers"] * 3
    state = position(start=start, seats=[seat(hand={"water/leaves": 1}, pawn="(0,0)", cards={"water": 1})], solo=True)
    state = play(state, "remove bag")
    for _ in range(3):
        state.apply(state.chance_outcomes()[0][0])
    advances = [m for m in texts(state) if m.startswith("advance")]
    assert "advance (10,0) pay water" in advances  # identical tile on the other islet: always paid
    assert not [m for m in advances if "(11,0)" in m or "(9,0)" in m]  # not identical
    state = play(
        position(start=start, seats=[seat(hand={"water/leaves": 3}, pawn="(0,0)")], solo=True),
        "remove hand water/leaves,water/leaves,water/leaves",
    )
    assert not [m for m in texts(state) if "(10,0)" in m]  # nothing to pay with


def test_solo_lay_discards_the_card_and_refills_the_other_islet():
    state = position(
        start=SOLO_WATER,
        seats=[seat(hand={"water/leaves": 1}, pawn="(0,0)", cards={"leaves": 3})],
        solo=True,
        phase="move",
        cards={"day": [1, 2], "night": [0, 0]},
        deck=[3, 4, 5, 6, 7, 8],
    )
    lays = [m for m in texts(state) if m.startswith("lay")]
    assert lays and all(m.endswith("discard card 1") for m in lays)  # card 2 (sand) is not satisfied
    state = play(state, "lay pay leaves,leaves,leaves guarantee clay discard card 1")
    assert obs(state)["cards"]["day"] == [0, 2]
    for _ in range(2):
        assert state.current_player() == engine_ext.CHANCE
        state.apply(state.chance_outcomes()[0][0])
    assert obs(state)["cards"]["night"] == [3, 4] and obs(state)["deck"] == [5, 6, 7, 8]


def test_solo_lay_with_both_cards_satisfied_chooses_the_discard():
    state = position(
        start=SOLO_WATER,
        seats=[seat(hand={"water/leaves": 1}, pawn="(0,0)", cards={"leaves": 3})],
        solo=True,
        phase="move",
        cards={"day": [1, 4], "night": [2, 3]},
    )
    endings = {m.rsplit(" ", 1)[1] for m in texts(state) if m.startswith("lay")}
    assert endings == {"1", "4"}


def test_solo_no_lay_without_a_satisfied_card():
    state = position(
        start=SOLO_WATER,
        seats=[seat(hand={"water/leaves": 1}, pawn="(0,0)", cards={"leaves": 3})],
        solo=True,
        phase="move",
        cards={"day": [2, 3], "night": [1, 4]},
    )
    assert not [m for m in texts(state) if m.startswith("lay")]


def test_solo_win_scores_the_tiles_left_in_the_bag():
    state = position(
        start=SOLO_WATER,
        seats=[
            seat(
                hand={"water/leaves": 1}, pawn="(0,0)", cards={"leaves": 3}, guaranteed={"sand": 1}, laid=5, free_eggs=0
            )
        ],
        solo=True,
        phase="move",
        eggs=6,
        cards={"day": [1, 0], "night": [0, 0]},
        egg_cells=[(c, 0) for c in ("(-1,0)", "(1,0)", "(-1,1)", "(0,1)", "(1,1)")],
    )
    state = play(state, "lay pay leaves,leaves,leaves release sand discard card 1")
    assert state.is_terminal() and state.returns() == [1.0]
    assert state.scores() == [90 - 12 - 1] and state.band() == "ideal ecosystem"


def test_solo_loses_when_a_tile_must_be_drawn_from_an_empty_bag():
    state = drained(0, solo=True, seats=[seat(hand={"water/leaves": 4}, pawn="(0,0)")])
    assert obs(state)["bag_size"] == 0
    state = play(state, "place water/leaves @(2,0)", "stop exploring")
    assert state.is_terminal() and state.returns() == [0.0]


# Each card, both sides: (card, side) -> (a configuration where it holds, one where it does not). A configuration
# sets the pawn's stack P, the stacks of its left and right neighbours L and R, a tile on its third neighbour T, and an
# egg on L.
BASE = {"P": ["water/leaves"], "L": ["clay/flowers"], "R": ["clay/flowers"], "T": None, "egg": False}
CARD_CASES = {
    (1, "day"): ({}, {"P": ["sand/leaves"]}),
    (2, "day"): ({"P": ["sand/leaves"]}, {}),
    (3, "day"): ({"P": ["clay/leaves"]}, {}),
    (4, "day"): ({}, {"P": ["water/branches"]}),
    (5, "day"): ({"P": ["water/branches"]}, {}),
    (6, "day"): ({"P": ["water/flowers"]}, {}),
    (7, "day"): ({"P": ["water/leaves"] * 3}, {"P": ["water/leaves"] * 2}),
    (8, "day"): ({"P": ["water/leaves"] * 2}, {}),
    (9, "day"): ({}, {"T": "sand/branches"}),
    (10, "day"): ({}, {"L": ["clay/flowers"] * 2}),
    (11, "day"): ({"egg": True}, {}),
    (12, "day"): ({"L": ["water/branches"]}, {}),
    (13, "day"): ({"L": ["clay/leaves"]}, {}),
    (1, "night"): ({}, {"P": ["water/branches"]}),
    (2, "night"): ({"P": ["water/branches"]}, {}),
    (3, "night"): ({"P": ["water/flowers"]}, {}),
    (4, "night"): ({"P": ["sand/leaves"]}, {}),
    (5, "night"): ({"P": ["clay/leaves"]}, {}),
    (6, "night"): ({}, {"P": ["sand/leaves"]}),
    (7, "night"): ({}, {"P": ["water/leaves"] * 2}),
    (8, "night"): ({"P": ["water/leaves"] * 2}, {"P": ["water/leaves"] * 3}),
    (9, "night"): ({"T": "sand/branches"}, {}),
    (10, "night"): ({"L": ["clay/flowers"] * 2}, {}),
    (11, "night"): ({}, {"egg": True}),
    (12, "night"): ({}, {"L": ["water/branches"]}),
    (13, "night"): ({}, {"L": ["clay/leaves"]}),
}


def card_position(card, side, change):
    conf = dict(BASE, **change)
    islet = 0 if side == "day" else 1
    dx = 10 * islet
    names = {"P": f"({dx},0)", "L": f"({dx - 1},0)", "R": f"({dx + 1},0)", "T": f"({dx},-1)"}
    start = ["sand/branches"] * 12
    placed = []
    for key, index in (("L", 0), ("P", 1), ("R", 2)):
        start[6 * islet + index] = conf[key][0]
        placed += [(names[key], t) for t in conf[key][1:]]
    if conf["T"]:
        placed.append((names["T"], conf["T"]))
    nest = conf["P"][-1].split("/")[1]
    cards = {"day": [card, 0], "night": [0, 0]} if side == "day" else {"day": [0, 0], "night": [card, 0]}
    laid = 1 if conf["egg"] else 0
    return position(
        start=start,
        placed=placed,
        solo=True,
        cards=cards,
        phase="move",
        seats=[seat(hand={"water/leaves": 1}, pawn=names["P"], cards={nest: 3}, laid=laid)],
        egg_cells=[(names["L"], 0)] if conf["egg"] else [],
    )


@pytest.mark.parametrize(("card", "side"), list(CARD_CASES))
def test_each_day_night_card_on_both_sides(card, side):
    holds, fails = CARD_CASES[(card, side)]
    assert [m for m in texts(card_position(card, side, holds)) if m.startswith("lay")], "should be satisfied"
    assert not [m for m in texts(card_position(card, side, fails)) if m.startswith("lay")], "should not be"


# ---------------------------------------------------------------------------------------------------------------------
# Information and move text
# ---------------------------------------------------------------------------------------------------------------------
def test_a_drawn_tile_is_seen_by_its_drawer_alone():
    state = play(explorer(), "place water/leaves @(2,0)", "stop exploring")
    draw = state.chance_outcomes()[0][0]
    assert state.action_to_string(state.observed_action(draw, 0)).startswith("draw ")
    assert state.action_to_string(state.public_action(draw)) == "draw a tile"
    assert state.action_to_string(state.observed_action(draw, 1)) == "draw a tile"


def test_determinize_deals_other_hands_from_the_unseen_tiles():
    state = explorer(hand={"water/leaves": 4})
    hands = {json.dumps(state.determinize(0, seed).private_info(1)) for seed in range(10)}
    assert len(hands) > 1
    for seed in range(10):
        world = state.determinize(0, seed)
        assert world.private_info(0) == state.private_info(0) and not world.invariant_violations()


def test_the_issue_examples_parse():
    state = mover(start=["sand/flowers"] * 6, pawn="(0,0)", cards={"flowers": 2, "sand": 1, "clay": 1})
    for text in ("place water/leaves @(2,0)", "lay pay flowers,flowers,sand+clay guarantee leaves", "advance (1,0)"):
        assert state.action_to_string(state.string_to_action(text)) == text


def test_bad_move_text_is_refused_with_the_legal_moves():
    state = explorer()
    with pytest.raises(engine_ext.InvalidMoveText, match="legal here"):
        state.string_to_action("place lava/leaves @(2,0)")
    with pytest.raises(IllegalAction):
        state.apply(state.string_to_action("place water/leaves @(1,0)"))


def test_the_drawing_shows_heights_eggs_and_pawns():
    state = position(
        placed=[("(0,0)", "clay/flowers")], seats=[seat(pawn="(1,0)", laid=1), seat()], egg_cells=[("(-1,0)", 0)]
    )
    drawing = str(state)
    assert "\\Cf2.." in drawing and "/Sl1A." in drawing and "/Sl1.a" in drawing and "~" in drawing


def test_the_heights_evaluation_knows_the_tie_break_and_progress_does_not():
    # The same eggs laid, still in play: seat 0's eggs at heights 3 and 1, seat 1's at 2 and 1. The game would go to
    # seat 0 on the tie-break; `progress` scores the seats alike, `heights` leans to seat 0, by less than an egg.
    from search import mcts

    seats = [seat(laid=2), seat(laid=2)]
    placed = [("(0,0)", "sand/leaves"), ("(0,0)", "sand/leaves"), ("(1,1)", "sand/leaves")]
    state = position(placed=placed, seats=seats, egg_cells=[("(0,0)", 0), ("(-1,0)", 0), ("(1,1)", 1), ("(1,0)", 1)])
    assert not state.is_terminal()
    progress = mcts.evaluate_state(state, 0, 1, 0, True, "progress")
    heights = mcts.evaluate_state(state, 0, 1, 0, True, "heights")
    assert progress[0] == pytest.approx(progress[1])
    assert 0.5 < heights[0] < 0.6 and heights[0] + heights[1] == pytest.approx(1.0)
    # An egg more outweighs any tie-break.
    seats = [seat(laid=2), seat(laid=3)]
    state = position(placed=placed, seats=seats, egg_cells=[("(0,0)", 0), ("(-1,0)", 0), ("(1,1)", 1), ("(1,0)", 1),
                                                            ("(0,1)", 1)])  # fmt: skip
    assert mcts.evaluate_state(state, 0, 1, 0, True, "heights")[1] > 0.7
