"""The search's configurable pieces: which evaluation scores a position, and exploration that fits the reward scale."""

import math

import pytest
from survive_positions import position

import engine_ext
import search
import search.play
from search import mcts

# Red (seat 0) swims at (2,-3) with a 5; green (seat 1) has the same 5 on a tile as far from a Rescue Island.
SWIMMER = "(2,-3)"


def race(creatures: dict, **extra):
    return position(
        adventurers={"red": [(SWIMMER, 5)], "green": [("(-2,3)", 5)]},
        tiles={"(-2,3)": "b"},
        creatures=creatures,
        **extra,
    )


def rescue_equal(state):
    """Both fives count the same for the plain treasure estimate (equal distance to a Rescue Island)."""
    return scored(state, "treasure")[0] == pytest.approx(0.5)


def first_decision(game: str, players: int = 2):
    """A new game played through its opening chance events (each one's first outcome) to the first seat's decision."""
    state = engine_ext.new_game(game, players, seed=0)
    while state.current_player() == engine_ext.CHANCE:
        state.apply(state.chance_outcomes()[0][0])
    return state


def scored(state, heuristic):
    return mcts.evaluate_state(state, 0, 1, 0, True, heuristic)


def test_every_game_names_its_evaluations_and_its_default_is_one_of_them():
    for info in map(engine_ext.game_info, engine_ext.GAMES):
        if info.search_defaults.heuristic is not None:
            assert info.search_defaults.heuristic in info.heuristics
        for players in range(info.min_players, info.max_players + 1):  # every seat count's defaults resolve
            resolved = search.SearchConfig().resolved(info, players)
            assert resolved.heuristic is None or resolved.heuristic in info.heuristics
    survive = tuple("treasure danger escape rafts hunt swim tide calm tempo fitted horizon bold".split())
    assert engine_ext.game_info("survive").heuristics == survive
    assert engine_ext.game_info("kuhn_poker").heuristics == ()


def test_danger_sees_a_swimmer_within_a_sharks_reach_and_treasure_does_not():
    far = race({"shark": ["(6,-6)"]})
    near = race({"shark": ["(2,-5)"]})  # two water spaces from the swimmer
    assert rescue_equal(far)
    assert scored(far, "treasure") == pytest.approx(scored(near, "treasure"))
    assert scored(far, "danger")[0] == pytest.approx(scored(far, "treasure")[0])
    assert scored(near, "danger")[0] < scored(far, "danger")[0] - 0.03


def test_danger_sees_a_serpent_next_to_a_raft_and_a_kaiju_less():
    def aboard(creatures):
        return position(
            adventurers={"red": [(SWIMMER, 5, True)], "green": [("(-2,3)", 5)]},
            tiles={"(-2,3)": "b"},
            rafts=(SWIMMER,),
            creatures=creatures,
        )

    safe = scored(aboard({}), "danger")[0]
    serpent = scored(aboard({"serpent": ["(3,-3)"]}), "danger")[0]
    kaiju = scored(aboard({"kaiju": ["(4,-3)"]}), "danger")[0]
    shark = scored(aboard({"shark": ["(3,-3)"]}), "danger")[0]
    assert serpent < kaiju < safe
    assert shark == pytest.approx(safe)  # a Shark does not touch raft passengers


def test_escape_sees_a_tile_about_to_go_under_and_danger_does_not():
    # Green's 5 stands on the only tile left: the next Rising Waters takes it. On a mountain while beaches remain
    # elsewhere it is safe for now; with many beaches left, standing on one is a small risk.
    lone = race({"shark": ["(6,-6)"]})
    assert scored(lone, "escape")[0] > scored(lone, "danger")[0] + 0.03

    def green_on(land, beaches):
        tiles = {"(-2,3)": land} | {cell: "b" for cell in beaches}
        return position(adventurers={"red": [(SWIMMER, 5)], "green": [("(-2,3)", 5)]}, tiles=tiles,
                        creatures={"shark": ["(6,-6)"]})  # fmt: skip

    safe = green_on("m", ["(0,1)", "(1,1)"])
    assert scored(safe, "escape")[0] == pytest.approx(scored(safe, "danger")[0])
    few = green_on("b", ["(0,1)", "(1,1)"])
    many = green_on("b", ["(0,1)", "(1,1)", "(0,2)", "(1,2)", "(-1,2)", "(2,0)", "(2,1)"])
    assert scored(safe, "escape")[0] < scored(many, "escape")[0] < scored(few, "escape")[0]


def test_rafts_count_a_passengers_spaces_for_less():
    def red(aboard):
        return position(adventurers={"red": [(SWIMMER, 5, aboard)], "green": [("(-2,3)", 5)]},
                        tiles={"(-2,3)": "m", "(0,1)": "b"}, rafts=(SWIMMER,) if aboard else ())  # fmt: skip

    assert scored(red(True), "rafts")[0] > scored(red(False), "rafts")[0] + 0.02
    assert scored(red(True), "escape")[0] == pytest.approx(scored(red(False), "escape")[0])


def test_hunt_counts_one_creatures_best_prey_not_every_space_it_reaches():
    # Red swims a 5 at (2,-3) and a 1 at (2,-4). A Shark at (3,-5) reaches both spaces, one at (4,-3) only the 5's,
    # one at (2,-6) only the 1's. One Shark moves, so the rival takes the 5 either way: ``hunt`` scores the first two
    # alike, where ``rafts`` (0.3 per threatened Adventurer) counts the 1 on top.
    def shark_at(cell, serpent=None):
        return position(adventurers={"red": [(SWIMMER, 5), ("(2,-4)", 1)], "green": [("(-2,3)", 5)]},
                        tiles={"(-2,3)": "b"},
                        creatures={"shark": [cell]} | ({"serpent": [serpent]} if serpent else {}))  # fmt: skip

    both, five, one, none = (shark_at(c) for c in ("(3,-5)", "(4,-3)", "(2,-6)", "(6,-6)"))
    assert scored(both, "hunt")[0] == pytest.approx(scored(five, "hunt")[0])
    assert scored(both, "rafts")[0] < scored(five, "rafts")[0] - 0.005
    assert scored(five, "hunt")[0] < scored(one, "hunt")[0] < scored(none, "hunt")[0]
    # A Sea Serpent beside the 5 as well: the die picks either kind, so both threats count (``rafts`` flags it once).
    assert scored(shark_at("(4,-3)", serpent="(3,-3)"), "hunt")[0] < scored(five, "hunt")[0] - 0.03
    assert scored(shark_at("(4,-3)", serpent="(3,-3)"), "rafts")[0] == pytest.approx(scored(five, "rafts")[0])


def test_swim_counts_a_swimmers_spaces_twice_and_a_walkers_once():
    swimmer = race({"shark": ["(6,-6)"]})  # red's 5 swims, green's 5 stands on a tile as far from a Rescue Island
    assert scored(swimmer, "swim")[0] < scored(swimmer, "hunt")[0] - 0.02
    walkers = position(
        adventurers={"red": [("(0,1)", 5)], "green": [("(-2,3)", 5)]}, tiles={"(-2,3)": "m", "(0,1)": "m"}
    )
    assert scored(walkers, "swim")[0] == pytest.approx(scored(walkers, "hunt")[0])


def test_a_search_and_greedy_use_the_evaluation_they_are_given():
    state = race({"shark": ["(2,-5)"]}, phase="action")
    for algorithm in ("ismcts", "greedy"):
        a = search.suggest(state, 0, algorithm=algorithm, iterations=400, seed=2, heuristic="treasure")
        b = search.suggest(state, 0, algorithm=algorithm, iterations=400, seed=2)  # Survive's default: rafts
        assert [m.value for m in b.moves] == [
            m.value
            for m in search.suggest(state, 0, algorithm=algorithm, iterations=400, seed=2, heuristic="rafts").moves
        ]
        assert [m.value for m in a.moves] != [m.value for m in b.moves], algorithm
    with pytest.raises(ValueError, match="survive offers treasure, danger, escape, rafts"):
        search.suggest(state, 0, iterations=10, heuristic="nope")
    kuhn = first_decision("kuhn_poker")
    with pytest.raises(ValueError, match="no heuristic"):
        search.suggest(kuhn, 0, heuristic="treasure")


def test_a_search_and_greedy_use_the_playout_policy_they_are_given():
    state = first_decision("small_islands")
    for algorithm in ("ismcts", "greedy"):  # greedy told to play out (its own default scores at once)
        settings = dict(algorithm=algorithm, iterations=300, seed=2, playout_depth=-1)
        light = search.suggest(state, state.current_player(), **settings)
        named = search.suggest(state, state.current_player(), playout_policy="light", **settings)
        purposeful = search.suggest(state, state.current_player(), playout_policy="purposeful", **settings)
        assert [m.value for m in light.moves] == [m.value for m in named.moves]
        assert [m.value for m in purposeful.moves] != [m.value for m in light.moves], algorithm
    with pytest.raises(ValueError, match="small_islands offers light, purposeful, objectives; got 'heavy'"):
        search.suggest(state, state.current_player(), iterations=10, playout_policy="heavy")
    kuhn = first_decision("kuhn_poker")
    with pytest.raises(ValueError, match="playouts are uniform"):
        search.suggest(kuhn, 0, playout_policy="light")


def test_greedy_takes_the_games_own_evaluation_and_depth():
    info = engine_ext.game_info("small_islands")
    greedy = search.SearchConfig(algorithm="greedy").resolved(info)
    tree = search.SearchConfig(algorithm="ismcts").resolved(info)
    assert (greedy.heuristic, greedy.playout_depth) == ("missions", 0)
    assert (tree.heuristic, tree.playout_depth) == (None, -1)
    told = search.SearchConfig(algorithm="greedy", heuristic="points", playout_depth=-1).resolved(info)
    assert (told.heuristic, told.playout_depth) == ("points", -1)
    survive = search.SearchConfig(algorithm="greedy").resolved(engine_ext.game_info("survive"))
    assert (survive.heuristic, survive.playout_depth) == ("tide", 0)


def test_defaults_by_budget_apply_from_their_iterations_and_seat_count(monkeypatch):
    from dataclasses import replace

    info = engine_ext.game_info("survive")
    large = engine_ext.BudgetDefaults(iterations=20_000, players=4, settings={"playout_to": "own_turn"})
    any_count = engine_ext.BudgetDefaults(iterations=50_000, settings={"exploration": 0.25, "playout_to": "chance"})
    by_players = {4: {"playout_to": "turn", "exploration": 1.5}}
    defaults = replace(info.search_defaults, by_players=by_players, by_budget=(large, any_count))
    record = replace(info, search_defaults=defaults)
    monkeypatch.setitem(engine_ext._RECORDS, "survive", record)

    def resolved(players=None, **settings):
        config = search.SearchConfig(**settings).resolved(record, players)
        return config.playout_to, config.exploration

    plain = info.search_defaults.exploration
    assert resolved(4, iterations=19_999) == ("turn", 1.5)  # below the floor: the seat count's defaults
    assert resolved(4, iterations=20_000) == ("own_turn", 1.5)  # at it: the budget's, over the seat count's
    assert resolved(3, iterations=20_000) == ("steps", plain)  # another seat count
    assert resolved(4, iterations=50_000) == ("chance", 0.25)  # every entry met, in order: the later wins
    assert resolved(2, iterations=50_000) == ("chance", 0.25)  # players=None: every seat count
    assert resolved(None, iterations=20_000) == ("steps", plain)
    assert resolved(4, time_ms=60_000.0) == ("turn", 1.5)  # a time budget is not an iteration budget
    assert resolved(4, iterations=30_000, time_ms=10.0) == ("own_turn", 1.5)
    assert resolved(4, iterations=30_000, playout_to="steps") == ("steps", 1.5)  # a setting given wins
    assert resolved(4) == ("turn", 1.5)  # the default budget (3,000) is below the floor


def test_four_seat_survive_refines_from_level_5_up_and_every_other_search_is_at_the_defaults():
    # docs/experiments/survive.md, "`refine` adopted at level 5 with four seats": at equal time it beat the defaults'
    # 30,000
    info = engine_ext.game_info("survive")
    level5 = search.play.level_settings("survive", 5)

    def where(players, iterations):
        config = search.SearchConfig(iterations=iterations).resolved(info, players)
        return config.refine, config.refine_screen, config.playout_to, config.playout_candidates

    assert where(4, level5.iterations) == (3, 3000, "own_turn", 1)
    assert where(4, 100_000) == (3, 3000, "own_turn", 1)
    assert where(4, search.play.level_settings("survive", 4).iterations) == (0, 3000, "steps", 8)
    for players in (2, 3, 5):
        assert where(players, level5.iterations) == (0, 3000, "steps", 8)


def test_defaults_by_seat_count_apply_to_that_count(monkeypatch):
    from dataclasses import replace

    info = engine_ext.game_info("small_islands")
    by_players = {2: {"playout_depth": 7, "exploration": 0.5}}
    record = replace(info, search_defaults=replace(info.search_defaults, by_players=by_players))
    monkeypatch.setitem(engine_ext._RECORDS, "small_islands", record)
    plain = info.search_defaults.playout_depth
    assert search.SearchConfig().resolved(record, 2).playout_depth == 7
    assert search.SearchConfig().resolved(record, 2).exploration == 0.5
    assert search.SearchConfig().resolved(record, 4).exploration == info.search_defaults.exploration
    assert search.SearchConfig().resolved(record, 4).playout_depth == plain
    assert search.SearchConfig().resolved(record).playout_depth == plain
    assert search.SearchConfig(playout_depth=3).resolved(record, 2).playout_depth == 3  # a setting given wins
    assert search.SearchConfig(algorithm="greedy").resolved(record, 2).playout_depth == 0  # greedy's own depth
    state = first_decision("small_islands")
    seat = state.current_player()
    by_count = search.suggest(state, seat, iterations=200, seed=3)
    assert [m.value for m in by_count.moves] == [
        m.value for m in search.suggest(state, seat, iterations=200, seed=3, playout_depth=7, exploration=0.5).moves
    ]


def visit_concentration(state, seat, **settings) -> float:
    result = search.suggest(state, seat, iterations=3000, seed=5, top_k=200, **settings)
    return result.moves[0].visits / result.stats["iterations"]


def test_scaled_exploration_shrinks_with_the_spread_of_rewards():
    # Survive's control variate leaves rewards spread by a few hundredths: a constant of 1 spreads visits almost
    # evenly, the same constant in units of that spread concentrates them; a tiny constant concentrates them most.
    state = race({"shark": ["(2,-5)"]})
    flat = visit_concentration(state, 0, exploration=1.0, scaled_exploration=False)
    scaled = visit_concentration(state, 0, exploration=1.0, scaled_exploration=True)
    greedy = visit_concentration(state, 0, exploration=0.001, scaled_exploration=False)
    assert flat < scaled < greedy
    assert scaled > 2 * flat


def test_candidates_expand_the_heuristics_best_move_first():
    # The own share one ply on ranks seat 0's moves the same in every sampled world (only its own treasure moves),
    # so with every move a candidate the first child is the heuristic's best; without candidates it is random.
    state = race({"shark": ["(2,-5)"]}, phase="action")
    one_ply = {}
    for action in state.legal_actions():
        after = state.clone()
        after.apply(action)
        one_ply[action] = mcts.evaluate_state(after, 0, 1, 0, True)[0]
    best = max(one_ply.values())
    for seed in range(5):
        chosen = search.suggest(state, 0, iterations=1, candidates=1000, seed=seed).best.action
        assert one_ply[chosen] == pytest.approx(best)
    randomly = {search.suggest(state, 0, iterations=1, candidates=1, seed=seed).best.action for seed in range(12)}
    assert len(randomly) > 3


def test_widening_bounds_the_children_of_a_node_by_its_visits():
    state = engine_ext.new_game("survive", 2, seed=1)  # the first set-up placement: about 200 moves
    assert len(state.legal_actions()) > 100
    tree = {"iterations": 100, "top_k": 500, "seed": 1, "setup_algorithm": "same"}  # searched, not greedy
    wide = search.suggest(state, 0, widening=0.0, **tree)
    narrow = search.suggest(state, 0, widening=1.0, **tree)
    assert len(wide.moves) == 100  # every iteration tried a new move
    assert len(narrow.moves) <= 11  # ceil(1.0 * sqrt(100 + 1))
    with pytest.raises(ValueError, match="widening"):
        search.suggest(state, 0, widening=-1.0)
    with pytest.raises(ValueError, match="candidates"):
        search.suggest(state, 0, candidates=0)


def red_line() -> engine_ext.State:
    """Red to make its Movement: a swimmer worth 5 and an Adventurer worth 3 on land; green with a 5 on a Beach."""
    return position(
        adventurers={"red": [(SWIMMER, 5), ("(-1,1)", 3)], "green": [("(-2,3)", 5)]},
        tiles={"(-2,3)": "b", "(-1,1)": "f", "(0,1)": "f"},
    )


def test_implicit_minimax_values_a_line_of_own_moves_by_its_end_not_its_mean():
    # Red's Movement: two Adventurers' steps, the end of Movement, Rising Waters and the removed tile's reveal are
    # red's own consecutive decisions; the creature die that follows is chance. With a tiny widening factor every node
    # keeps one child, so each iteration extends one line by one node and the root child holds the mean of every
    # node's first score. Its minimax value must be the score of the line's newest node while the line is red's own,
    # and once chance follows the reveal, the reveal's mean (minimax does not reach past another mover).
    state = red_line()
    info = engine_ext.game_info("survive")
    sums, bests = [], []
    for iterations in range(1, 8):
        config = search.SearchConfig(iterations=iterations, widening=0.01, minimax=1.0, candidates=4, seed=5, worlds=1)
        run = mcts.run(state, 0, config.resolved(info), iterations, 0.0, 5, search.Control(), 100)
        (child,) = run["root_children"]
        assert child["visits"] == iterations
        sums.append(child["value_sum"])
        bests.append(child["best"])
    newest = [sums[0]] + [b - a for a, b in zip(sums, sums[1:], strict=False)]
    reveal_means = [sum(newest[4 : k + 1]) / (k - 3) for k in range(5, 7)]
    assert bests == pytest.approx(newest[:5] + reveal_means)
    assert len(set(round(v, 9) for v in newest)) > 2, "the line's scores differ, so mean and end tell apart"
    line = search.suggest(state, 0, iterations=6, widening=0.01, minimax=1.0, candidates=4, seed=5).moves[0].pv
    assert [step.split()[0] for step in line] == ["move", "move", "end", "remove", "reveal", "roll"]
    with pytest.raises(ValueError, match="minimax"):
        search.suggest(state, 0, minimax=1.5)


@pytest.mark.parametrize("prior", [0.0, 2.0])
def test_minimax_prior_shrinks_each_line_toward_its_node_mean_before_the_max(prior):
    # The position above: red's first four decisions are one chain (a tiny widening keeps one child a node), so after
    # k iterations node j of the chain (1: the root's child) holds the scores n_j..n_k. Its line is its only child's,
    # that child's visits and its own mean weighed together: best_j = (v * best_(j+1) + prior * mean_j) / (v + prior)
    # with v = k - j, and best_k = n_k (prior 0: every node holds the newest score, as above).
    state = red_line()
    info = engine_ext.game_info("survive")
    sums, bests = [], []
    for iterations in range(1, 5):
        config = search.SearchConfig(
            iterations=iterations, widening=0.01, minimax=1.0, minimax_prior=prior, candidates=4, seed=5, worlds=1
        )
        run = mcts.run(state, 0, config.resolved(info), iterations, 0.0, 5, search.Control(), 100)
        (child,) = run["root_children"]
        sums.append(child["value_sum"])
        bests.append(child["best"])
    newest = [sums[0]] + [b - a for a, b in zip(sums, sums[1:], strict=False)]
    expected = []
    for k in range(1, 5):
        best = newest[k - 1]
        for j in range(k - 1, 0, -1):
            visits = k - j
            best = (visits * best + prior * sum(newest[j - 1 : k]) / (k - j + 1)) / (visits + prior)
        expected.append(best)
    assert bests == pytest.approx(expected)
    if prior:  # the scores differ, so the prior moves the lines away from the newest scores
        assert max(abs(b - n) for b, n in zip(bests, newest, strict=True)) > 1e-3
    with pytest.raises(ValueError, match="minimax_prior"):
        search.suggest(state, 0, minimax_prior=-1.0)


def clocked(mountains: tuple, moves_left: int, forests: tuple = (), hourglass: str = "beach_forest"):
    """Red (seat 0, to move) and green each with a 5 on a Mountain five spaces from a Rescue Island, and more
    Mountains: the third Volcano is expected among them (4 face down), so the game's end is near."""
    tiles = {cell: "m" for cell in (SWIMMER, "(-2,3)") + mountains} | {cell: "f" for cell in forests}
    adventurers = {"red": [(SWIMMER, 5)], "green": [("(-2,3)", 5)]}
    return position(adventurers=adventurers, tiles=tiles, moves_left=moves_left, hourglass=hourglass)


def test_tide_is_rafts_while_the_game_has_no_clock():
    # Two Mountains cannot hold the three Volcanoes that end the game: every Adventurer has the time it needs.
    state = clocked((), 3)
    assert scored(state, "rafts")[0] == pytest.approx(0.5)
    assert scored(state, "tide") == pytest.approx(scored(state, "rafts"))


def test_tide_counts_an_adventurer_its_seat_cannot_bring_home_in_time_for_less():
    # Five Mountains, about 1.8 turns left: red has its 3 movements and a little more, green little over 1.
    fresh = clocked(("(0,-2)", "(1,-2)", "(-1,-2)"), 3)
    assert scored(fresh, "rafts")[0] == pytest.approx(0.5)
    assert scored(fresh, "tide")[0] > 0.52
    # Red's movements spent: now green has the larger share of the time left.
    spent = clocked(("(0,-2)", "(1,-2)", "(-1,-2)"), 0)
    assert scored(spent, "rafts")[0] == pytest.approx(0.5)
    assert scored(spent, "tide")[0] < 0.48


def test_tide_counts_forests_without_the_hourglass_two_a_turn():
    # Two Forests more: with the hourglass on Forests they add two turns and both seats have time enough; with the
    # hourglass on Beaches only they go two a turn, the game is shorter and red's movements in hand weigh more.
    mountains, forests = ("(0,-2)", "(1,-2)", "(-1,-2)"), ("(0,-3)", "(1,-3)")
    both = scored(clocked(mountains, 3, forests, "beach_forest"), "tide")[0]
    beach = scored(clocked(mountains, 3, forests, "beach"), "tide")[0]
    assert 0.5 < both < beach - 0.01


def test_calm_keeps_the_order_of_tide_at_half_the_slope():
    for state in (race({"shark": ["(2,-5)"]}), race({})):  # red's swimmer within a Shark's reach, or not
        tide, calm = scored(state, "tide")[0], scored(state, "calm")[0]
        assert abs(tide - 0.5) > 0.005 and min(tide, 0.5) < calm < max(tide, 0.5)
        # The same treasure gap read at 8 points per e instead of 4: logit halves.
        assert math.log(calm / (1 - calm)) == pytest.approx(math.log(tide / (1 - tide)) / 2)


def logit(share: float) -> float:
    return math.log(share / (1 - share))


@pytest.mark.parametrize(
    ("control", "green_shape_minus_red"),
    [
        # Red (seat 0) active with its three movements to come (red's shape -1, green's +1: green has just moved), one
        # made (red -1/3, green +1/3: a third of the way down), all made, and after its Action phase (red +1, green -1).
        ({"moves_left": 3}, 2.0),
        ({"moves_left": 2}, 2.0 / 3.0),
        ({"moves_left": 0}, -2.0),
        ({"moves_left": 0, "phase": "creature_roll"}, -2.0),
        # Green active with its movements to come: red has just had its turn.
        ({"moves_left": 3, "active": 1}, -2.0),
    ],
)
def test_tempo_moves_each_seats_estimate_by_its_place_in_the_round(control, green_shape_minus_red):
    state = race({}, **control)
    tide, tempo = scored(state, "tide")[0], scored(state, "tempo")[0]
    # Red's estimate moves by 0.5 points (TEMPO_POINTS) times (green's shape - red's) against green's, read at 4 points
    # per e: the log-odds move by exactly that over 4.
    assert logit(tempo) - logit(tide) == pytest.approx(0.5 * green_shape_minus_red / 4)


def test_tempo_is_tide_in_set_up_and_sums_to_one_with_four_seats():
    state = engine_ext.new_game("survive", 2, seed=3)
    assert scored(state, "tempo") == pytest.approx(scored(state, "tide"))
    four = position(
        4, adventurers={"red": [(SWIMMER, 5)], "green": [("(-2,3)", 5)]}, tiles={"(-2,3)": "b"}, moves_left=3, active=2
    )
    shares = scored(four, "tempo")
    assert sum(shares) == pytest.approx(1.0)
    # Seat 2 about to move is raised the most, seat 1 (it has just moved) lowered the most; seats 3 and 0 between.
    plain = scored(four, "tide")
    lift = [logit(a) - logit(b) for a, b in zip(shares, plain, strict=True)]
    assert lift[2] > lift[3] > lift[0] > lift[1]


def test_tide_shares_with_tides_own_weights_is_tide_and_with_eight_points_calm():
    from engine_ext import survive

    state = race({"shark": ["(2,-5)"]})
    assert survive.tide_shares(state) == pytest.approx(scored(state, "tide"))
    assert survive.tide_shares(state, survive.tide_weights()) == pytest.approx(scored(state, "tide"))
    assert survive.tide_shares(state, {"points": 8.0}) == pytest.approx(scored(state, "calm"))
    assert survive.tide_shares(state, survive.tide_weights("fitted")) == pytest.approx(scored(state, "fitted"))
    with pytest.raises(ValueError, match="unknown tide weights"):
        survive.tide_shares(state, {"pointz": 8.0})
    with pytest.raises(ValueError, match="is not 'tide'"):
        survive.tide_weights("rafts")


def test_each_tide_weight_moves_the_shares_the_way_it_says():
    from engine_ext import survive

    def red(state, **weights):
        return survive.tide_shares(state, weights)[0]

    # Red's 5 swims two water spaces from a Shark: the weight of that threat takes red's share down.
    hunted = race({"shark": ["(2,-5)"]})
    assert red(hunted, eat=0.6) < red(hunted) < red(hunted, eat=0.0)
    # Green's 5 stands on the last beach tile (it may go under next): red leads, and a steeper distance discount
    # shrinks both fives alike (equal distances), so the lead in points and red's share shrink with them.
    calm = race({})
    assert 0.5 < red(calm, base=0.7) < red(calm) < red(calm, base=0.95)
    assert red(calm, removal=0.0) == pytest.approx(0.5)
    # The same 5 on a raft: the Serpent beside it sinks it, the Kaiju capsizes it.
    aboard = position(
        adventurers={"red": [(SWIMMER, 5, True)], "green": [("(-2,3)", 5)]},
        tiles={"(-2,3)": "b"},
        rafts=(SWIMMER,),
        creatures={"serpent": ["(3,-3)"]},
    )
    assert red(aboard, sink=0.6) < red(aboard) < red(aboard, sink=0.0)
    assert red(aboard, capsize=0.6) == pytest.approx(red(aboard))  # no Kaiju in reach
    # Fewer points per e: the leader's share grows (red still leads: green's 5 may go under with its tile).
    assert 0.5 < red(hunted) < red(hunted, points=2.0)
    # ``fitted`` is ``tide`` with fewer points per e, its other weights ``tide``'s.
    assert survive.tide_weights("fitted") == survive.tide_weights() | {"points": 2.2}
    # ``horizon`` is ``tide`` with the threat counted over the rivals' Creature phases, its other weights ``tide``'s.
    assert survive.tide_weights()["horizon"] == 0.0
    assert survive.tide_weights("horizon") == survive.tide_weights() | {"horizon": 1.0}
    # ``bold`` is ``tide`` with the creatures' threats at half weight.
    assert survive.tide_weights("bold") == survive.tide_weights() | {"eat": 0.15, "sink": 0.15, "capsize": 0.075}
    assert scored(hunted, "bold")[0] > scored(hunted, "tide")[0] + 0.005
    assert survive.tide_shares(hunted, survive.tide_weights("bold")) == pytest.approx(scored(hunted, "bold"))


def four_seat_race(active: int):
    """Red (seat 0) swims with a 5 two water spaces from a Shark; every other seat has a 5 on a tile as far from a
    Rescue Island; ``active`` is the seat whose turn it is."""
    return position(
        4,
        adventurers={
            "red": [(SWIMMER, 5)],
            "blue": [("(-3,1)", 5)],
            "green": [("(-2,3)", 5)],
            "yellow": [("(3,-1)", 5)],
        },
        tiles={"(-3,1)": "b", "(-2,3)": "b", "(3,-1)": "b"},
        creatures={"shark": ["(2,-5)"]},
        active=active,
    )


@pytest.mark.parametrize(
    ("active", "phases"),
    [
        (3, 1),  # red moves next: only seat 3's Creature phase comes before
        (2, 2),  # seats 2 and 3
        (1, 3),  # seats 1, 2 and 3
        (0, 3),  # red's own turn: its Creature phase is its own, then the three rivals'
    ],
)
def test_horizon_counts_the_threat_over_each_rivals_creature_phase_before_the_owner_moves(active, phases):
    from engine_ext import survive

    state = four_seat_race(active)
    tide, horizon = scored(state, "tide"), scored(state, "horizon")
    # The Shark's one-phase threat (eat 0.3) over ``phases`` phases: red's swimmer keeps 0.7 ** phases of its worth.
    assert horizon == pytest.approx(survive.tide_shares(state, {"eat": 1 - 0.7**phases}))
    assert survive.tide_shares(state, {"horizon": 1.0}) == pytest.approx(horizon)
    if phases == 1:
        assert horizon == pytest.approx(tide)
    else:
        assert horizon[0] < tide[0] - 0.005


def test_horizon_is_tide_with_two_seats_and_without_a_threat():
    # With two seats each seat faces the other's one Creature phase before it moves again, whoever is active.
    for active in (0, 1):
        state = race({"shark": ["(2,-5)"]}, active=active)
        assert scored(state, "horizon") == pytest.approx(scored(state, "tide"))
    calm = position(4, adventurers={"red": [(SWIMMER, 5)], "green": [("(-2,3)", 5)]}, tiles={"(-2,3)": "b"})
    assert scored(calm, "horizon") == pytest.approx(scored(calm, "tide"))
