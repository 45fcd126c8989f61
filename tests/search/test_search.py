"""The search: forced wins, legality, no cheating, determinism, budgets, threads, errors."""

import random
import statistics
import threading
import time

import pytest
from survive_positions import position

import engine_ext
import search

TREE_ALGORITHMS = ("ismcts", "pimc", "flat", "greedy", "random")


# Survive's first decisions are set-up placements, which the defaults leave to greedy; these tests search them.
SEARCHED = {"setup_algorithm": "same"}


def kuhn(*actions):
    state = engine_ext.new_game("kuhn_poker", 2)
    for a in actions:
        state.apply(a if isinstance(a, int) else state.string_to_action(a))
    return state


def leduc(*actions):
    state = engine_ext.new_game("leduc_poker", 2)
    for a in actions:
        state.apply(a if isinstance(a, int) else state.string_to_action(a))
    return state


# --- Finding the forced win -------------------------------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["ismcts", "pimc", "flat"])
def test_kuhn_king_calls_a_bet_it_cannot_lose(algorithm):
    state = kuhn(0, 2, "Bet")
    assert search.suggest(state, 1, iterations=2000, algorithm=algorithm).best.text == "Bet"


@pytest.mark.parametrize("algorithm", ["ismcts", "pimc", "flat"])
def test_kuhn_jack_folds_to_a_bet_it_cannot_win(algorithm):
    state = kuhn(2, 0, "Bet")
    assert search.suggest(state, 1, iterations=2000, algorithm=algorithm).best.text == "Pass"


def test_leduc_pair_facing_a_raise_never_folds():
    state = leduc(0, 4, "Call", "Call", 1)
    result = search.suggest(state, 0, iterations=3000)
    assert result.best.text == "Raise", "seat 0 holds the pair of jacks: the best hand, so it bets"
    state.apply_string("Raise")
    state.apply_string("Raise")
    assert search.suggest(state, 0, iterations=3000).best.text in ("Call", "Raise")


def test_survive_rescues_the_last_adventurer_for_the_win():
    state = position(
        adventurers={"red": [("(-2,-5)", 5)]}, rescued={"green": [("SE", 4)]}, creatures={"shark": ["(-3,-4)"]}
    )
    result = search.suggest(state, 0, iterations=3000)
    assert result.best.text == "move red:5 (-2,-5)->NW"
    # Green's rescued value is hidden from seat 0: a 5 (2 of its 10 values) would tie, so 0.8 + 0.2 / 2.
    assert result.best.win_prob == pytest.approx(0.9, abs=0.03)


def test_survive_does_not_swim_into_a_serpent():
    state = position(
        adventurers={"red": [("(5,-3)", 5), ("(0,5)", 1)]},
        rescued={"green": [("SE", 1)]},
        creatures={"serpent": ["(6,-3)"]},
    )
    result = search.suggest(state, 0, iterations=2000, algorithm="greedy")
    assert all(m.text != "move red:5 (5,-3)->(6,-3)" for m in result.moves[:1])


# --- Legality ------------------------------------------------------------------------------------------------------
def random_decision_positions(name, players, count, seed):
    rng = random.Random(seed)
    positions = []
    state = engine_ext.new_game(name, players, seed=seed)
    while len(positions) < count:
        if state.is_terminal():
            state = engine_ext.new_game(name, players, seed=rng.getrandbits(30))
        if state.current_player() == engine_ext.CHANCE:
            outcomes = state.chance_outcomes()
            state.apply(rng.choices([a for a, _ in outcomes], [p for _, p in outcomes])[0])
            continue
        positions.append(state.clone())
        state.apply(rng.choice(state.legal_actions()))
    return positions


# Seat counts the search tests use per game (others: 2).
PLAYERS = {"survive": 3, "islet": 3, "islet_solo": 1, "small_islands": 3}


@pytest.mark.parametrize("name", engine_ext.GAMES)
def test_never_returns_an_illegal_action(name):
    players = PLAYERS.get(name, 2)
    count = 600 if name in ("survive", "islet", "islet_solo", "small_islands") else 1000
    for k, state in enumerate(random_decision_positions(name, players, count, seed=17)):
        seat = state.current_player()
        algorithm = TREE_ALGORITHMS[k % len(TREE_ALGORITHMS)]
        result = search.suggest(state, seat, iterations=24, algorithm=algorithm, seed=k, top_k=3)
        legal = set(state.legal_actions())
        assert result.best.action in legal
        assert all(m.action in legal for m in result.moves)
        assert result.best.text == state.action_to_string(result.best.action)


def test_playouts_use_the_games_light_policy_when_asked():
    state = engine_ext.new_game("survive", 2, seed=4)
    while state.observation(0)["control"]["phase"] != "action":
        state.apply(state.legal_actions()[0])
    light = [search.mcts.evaluate_state(state, 0, seed, -1, True) for seed in range(30)]
    uniform = [search.mcts.evaluate_state(state, 0, seed, -1, False) for seed in range(30)]
    assert light != uniform, "the per-game playout hook is used"


def test_the_control_variate_makes_the_learnt_values_steadier():
    from dataclasses import replace

    from search import mcts

    state = random_decision_positions("survive", 2, 120, seed=6)[-1]
    seat = state.current_player()
    info = engine_ext.game_info("survive")

    def learnt_values(baseline: bool) -> dict[int, list[float]]:
        # Without widening: every seed then tries the same moves, so what varies between seeds is the sampled worlds,
        # the noise the control variate is for (with widening, which candidates a node admits varies as well).
        config = replace(search.SearchConfig(iterations=600, baseline=baseline, widening=0.0).resolved(info), worlds=1)
        values: dict[int, list[float]] = {}
        for seed in range(8):
            for entry in mcts.run(state, seat, config, 600, 0.0, seed, search.Control(), 50_000)["actions"]:
                if entry["visits"] >= 5:
                    values.setdefault(entry["action"], []).append(entry["learnt_sum"] / entry["visits"])
        return values

    def spread(values: dict[int, list[float]]) -> float:
        rows = [v for v in values.values() if len(v) >= 4]
        return sum(statistics.pstdev(v) for v in rows) / len(rows)

    steady, noisy = spread(learnt_values(True)), spread(learnt_values(False))
    assert steady < 0.7 * noisy, (steady, noisy)


# --- The bot does not cheat -------------------------------------------------------------------------------------------
def comparable(result):
    return [(m.action, m.visits, round(m.value, 9), round(m.win_prob, 9)) for m in result.moves], result.stats["nodes"]


@pytest.mark.parametrize("name", engine_ext.GAMES)
def test_search_reads_only_the_seats_observation(name):
    players = PLAYERS.get(name, 2)
    positions = random_decision_positions(name, players, 60, seed=5)
    for state in positions[::12]:
        seat = state.current_player()
        other_world = state.determinize(seat, 987)  # same observation, other hidden facts
        assert other_world.observation(seat) == state.observation(seat)
        for algorithm in ("ismcts", "pimc", "flat", "greedy"):
            a = search.suggest(state, seat, iterations=300, seed=4, algorithm=algorithm)
            b = search.suggest(other_world, seat, iterations=300, seed=4, algorithm=algorithm)
            assert comparable(a) == comparable(b), f"{name}: {algorithm} depends on hidden facts"
            assert a.belief == b.belief


def test_the_stateless_path_gives_the_same_result_as_the_state():
    state = random_decision_positions("survive", 4, 80, seed=2)[-1]
    seat = state.current_player()
    from_state = search.suggest(state, seat, iterations=400, seed=9)
    from_view = search.suggest(state.observation(seat), seat, iterations=400, seed=9)
    assert comparable(from_state) == comparable(from_view)


def test_cheat_is_refused_unless_explicitly_allowed():
    state = kuhn(0, 2)
    with pytest.raises(ValueError, match="only for benchmarks"):
        search.suggest(state, 0, algorithm="cheat")
    assert search.suggest(state, 0, algorithm="cheat", allow_cheat=True, iterations=200).best.action in (0, 1)


# --- Determinism, budgets, cancellation, threads --------------------------------------------------------------------
@pytest.mark.parametrize("algorithm", ["ismcts", "pimc", "flat", "greedy", "random"])
def test_same_seed_and_iterations_give_the_same_result(algorithm):
    state = random_decision_positions("survive", 4, 30, seed=3)[-1]
    seat = state.current_player()
    a = search.suggest(state, seat, iterations=500, seed=11, algorithm=algorithm)
    b = search.suggest(state, seat, iterations=500, seed=11, algorithm=algorithm)
    assert comparable(a) == comparable(b) and a.best.pv == b.best.pv


def test_threads_with_an_iteration_budget_are_deterministic_too():
    state = engine_ext.new_game("survive", 4, seed=1)
    a = search.suggest(state, 0, iterations=2000, seed=5, threads=2, **SEARCHED)
    b = search.suggest(state, 0, iterations=2000, seed=5, threads=2, **SEARCHED)
    assert comparable(a) == comparable(b) and a.stats["iterations"] == 2000


def test_time_budget_stops_near_the_deadline():
    state = engine_ext.new_game("survive", 4, seed=1)
    started = time.perf_counter()
    result = search.suggest(state, 0, time_ms=100, **SEARCHED)
    elapsed = (time.perf_counter() - started) * 1000
    assert result.stats["iterations"] > 0
    # It stops at the first clock check past 100 ms: on a busy machine that check comes later, never sooner.
    assert 95 <= result.stats["elapsed_ms"] and elapsed < 100 + 5000, f"took {elapsed:.0f} ms for a 100 ms budget"


def test_a_time_budget_is_checked_every_few_iterations_of_a_slow_game():
    # A Small Islands iteration takes tens of microseconds (about 30 here at the opening), so a half-millisecond
    # budget ends after a dozen or so iterations: the search stops at the first clock check past the deadline. Read
    # every 64 iterations, the clock let it run 64 (a 5 ms Suggest searched for 7 ms). A busy machine only makes the
    # count smaller.
    state = engine_ext.new_game("small_islands", 4, seed=2)
    while state.current_player() < 0:
        state.apply(state.chance_outcomes()[0][0])
    counts = [
        search.suggest(state, state.current_player(), time_ms=0.5, seed=k, summary=False).stats["iterations"]
        for k in range(3)
    ]
    assert max(counts) < 64, counts


def test_cancel_stops_the_search_and_returns_the_best_so_far():
    state = engine_ext.new_game("survive", 4, seed=1)
    control = search.Control()
    results = []
    long_search = {"time_ms": 30_000, "control": control, **SEARCHED}
    worker = threading.Thread(target=lambda: results.append(search.suggest(state, 0, **long_search)))
    worker.start()
    time.sleep(0.2)
    cancelled_at = time.perf_counter()
    control.cancel()
    worker.join(timeout=5)
    assert not worker.is_alive()
    # Checked every 8 iterations (well under 0.1 s idle): far sooner than the 30 s search, however busy the machine.
    assert (time.perf_counter() - cancelled_at) < 5.0
    assert results[0].stats["cancelled"] and results[0].stats["iterations"] > 0
    assert results[0].best.action in state.legal_actions()


def test_the_search_releases_the_interpreter_while_it_runs():
    # Measured as work the main thread gets done, not as wall-clock speed-up, so a busy machine cannot fail it: a
    # search holding the GIL would starve this loop completely for its whole duration.
    def count_for(seconds: float) -> int:
        n, end = 0, time.perf_counter() + seconds
        while time.perf_counter() < end:
            n += 1
        return n

    alone = count_for(0.3)
    state = engine_ext.new_game("survive", 4, seed=1)
    worker = threading.Thread(target=lambda: search.suggest(state, 0, time_ms=600, threads=2, **SEARCHED))
    worker.start()
    time.sleep(0.05)
    beside = count_for(0.3)
    worker.join()
    assert beside > 0.2 * alone, (beside, alone)


# --- Results --------------------------------------------------------------------------------------------------------
def test_result_ranks_by_visits_and_reports_statistics():
    state = engine_ext.new_game("survive", 4, seed=1)
    result = search.suggest(state, 0, iterations=3000, top_k=4, **SEARCHED)
    visits = [m.visits for m in result.moves]
    assert visits == sorted(visits, reverse=True) and len(result.moves) == 4
    best = result.best
    assert best.pv[0] == best.text and len(best.pv) > 1
    assert len(best.values) == 4 and 0 <= best.win_prob <= 1
    stats = result.stats
    assert stats["iterations"] == 3000 and stats["worlds_sampled"] == 3000 and stats["nodes"] > 0
    assert stats["elapsed_ms"] > 0 and stats["iterations_per_s"] > 0


def test_the_tree_profile_counts_depths_movers_and_the_seats_next_turn():
    # Kuhn from the opener's decision (J, Q dealt): depth 1 is the opener's pass or bet, depth 2 the other seat's
    # answers (four edges), depth 3 the opener again after pass-bet: the opener's second turn.
    state = kuhn(0, 1)
    profile = search.suggest(state, 0, iterations=2000, seed=3, profile=True).stats["profile"]
    levels = profile["levels"]
    assert profile["root_visits"] == 2000 and levels[0]["visits"] == 2000 and levels[0]["children"] == 2
    assert (levels[1]["nodes"], levels[1]["own"], levels[1]["others"]) == (2, 2, 0)
    assert (levels[2]["nodes"], levels[2]["own"], levels[2]["others"]) == (4, 0, 4)
    assert levels[1]["visits"] == 2000 and levels[2]["visits"] <= 2000
    assert len(levels) == 4 and levels[3]["own"] == levels[3]["nodes"] == 2
    assert profile["turns_reached"][1] == 2000
    assert 0 < profile["turns_reached"][2] == levels[3]["visits"]
    assert "profile" not in search.suggest(state, 0, iterations=200, seed=3).stats
    assert search.suggest(state, 0, iterations=200, algorithm="flat", profile=True).stats["profile"]["levels"] == []


def test_an_open_loop_tree_holds_only_the_searching_seats_moves():
    # Kuhn, opener: closed loop, depth 2 holds the other seat's answers; open loop, the opener's tree goes from its
    # first move straight to its second decision (after pass-bet), and the other seat's moves are not in it.
    state = kuhn(0, 1)
    closed = search.suggest(state, 0, iterations=2000, seed=3, profile=True).stats["profile"]["levels"]
    opened = search.suggest(state, 0, iterations=2000, seed=3, profile=True, open_loop=True).stats["profile"]["levels"]
    assert closed[2]["others"] == 4
    assert all(level["others"] == 0 and level["chance"] == 0 for level in opened)
    assert len(opened) == 3 and opened[2]["own"] == 2  # call or fold after the other seat's bet
    # Survive set-up: placements alternate, so the closed-loop tree interleaves the other seat's; the open one does not,
    # and its own placements still chain (the other seat's turn, played by policy, no longer ends the iteration).
    state = engine_ext.new_game("survive", 2, seed=1)
    tree = {"iterations": 3000, "seed": 1, "profile": True, **SEARCHED}
    shallow = search.suggest(state, 0, **tree).stats["profile"]["levels"]
    deep = search.suggest(state, 0, open_loop=True, **tree).stats["profile"]["levels"]
    assert all(level["others"] == 0 for level in deep)
    assert sum(lv["own"] for lv in deep) > 0 and len(deep) >= 3
    assert shallow[2]["others"] > 0


def test_belief_summary_describes_other_seats_hidden_values():
    state = random_decision_positions("survive", 3, 60, seed=8)[-1]
    seat = state.current_player()
    belief = search.suggest(state, seat, iterations=50).belief
    for cells in belief["treasure_values"].values():
        for dist in cells.values():
            assert sum(dist.values()) == pytest.approx(1.0, abs=1e-3)
            assert set(dist) <= {"1", "2", "3", "4", "5"}
    poker = search.suggest(kuhn(0, 2), 0, iterations=50).belief
    assert poker == {"seat 1": {"card": {"1": pytest.approx(0.5, abs=0.2), "2": pytest.approx(0.5, abs=0.2)}}}


@pytest.mark.parametrize(
    ("game", "players", "decisions", "facts"),
    [("survive", 4, 200, "abilities"), ("islet", 3, 40, "hands"), ("small_islands", 4, 40, "objectives")],
)
def test_every_games_belief_summary_names_the_other_seats_alike(game, players, decisions, facts):
    state = random_decision_positions(game, players, decisions, seed=3)[-1]
    seat = state.current_player()
    belief = search.belief_summary(state, seat, 5)
    assert belief["worlds"] == search.BELIEF_WORLDS
    others = {f"seat {k}" for k in range(players) if k != seat}
    assert belief[facts] and set(belief[facts]) <= others, belief[facts]
    for row in belief[facts].values():
        order = (lambda card: int(card[1:])) if game == "small_islands" else None  # O1, O2, ..., O12
        assert list(row) == sorted(row, key=order) and all(v > 0 for v in row.values())


@pytest.mark.parametrize(("game", "players"), [("islet", 3), ("islet", 4), ("small_islands", 3), ("small_islands", 4)])
def test_the_island_games_belief_summaries_are_the_means_of_what_the_worlds_hold(game, players):
    # Each figure is the mean over the worlds of what ``private_info`` says another seat holds: an Islet hand's tiles
    # by type, a Small Islands Objective still face down (a card shown is no belief). Counted in C, so checked here.
    facts = "hands" if game == "islet" else "objectives"
    positions = random_decision_positions(game, players, 300, seed=5)

    def harvester(state) -> int | None:  # in a Harvest, the seat whose Objective lies face up
        if game == "islet" or state.observation(state.current_player())["control"]["phase"] != "harvest":
            return None
        return state.current_player()

    # In a Harvest another seat's view is summarised too: the harvester's current Objective is shown there.
    harvests = [p for p in positions if harvester(p) is not None][:10]
    cases = [(p, p.current_player()) for p in positions[::10]]
    cases += [(p, (harvester(p) + 1) % players) for p in harvests]
    for state, seat in cases:
        worlds = [state.determinize(seat, k) for k in range(7)]
        expected: dict[str, dict[str, float]] = {}
        for world in worlds:
            for other in range(players):
                info = world.private_info(other)
                if game == "islet":
                    held = info.get("hand", {})
                else:
                    held = {info["objective"]: 1} if "objective" in info else {}
                for name, count in held.items():
                    if other != seat:
                        row = expected.setdefault(f"seat {other}", {})
                        row[name] = row.get(name, 0) + count / len(worlds)
        summary = engine_ext.game_info(game).belief_summary(worlds, seat)
        assert summary["worlds"] == len(worlds)
        assert list(summary[facts]) == sorted(expected, key=lambda key: int(key.split()[1]))
        for key, row in expected.items():
            assert summary[facts][key] == {name: pytest.approx(v, abs=5e-4) for name, v in row.items()}
    assert game == "islet" or harvests  # the sample holds Objectives face up, which must not be counted


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"algorithm": "minimax"}, "algorithm"),
        ({"iterations": 0}, "iterations"),
        ({"time_ms": -1}, "time_ms"),
        ({"time_ms": float("nan")}, "time_ms"),
        ({"time_ms": float("inf")}, "time_ms"),
        ({"exploration": -0.1}, "exploration"),
        ({"exploration": float("nan")}, "exploration"),
        ({"worlds": 0}, "worlds"),
        ({"playout_depth": -2}, "playout_depth"),
        ({"node_capacity": 0}, "node_capacity"),
        ({"top_k": 0}, "top_k"),
        ({"threads": 0}, "threads"),
    ],
)
def test_bad_requests_name_the_field(kwargs, field):
    with pytest.raises(ValueError, match=f"^{field}"):
        search.suggest(kuhn(0, 2), 0, **kwargs)


def test_the_smallest_node_capacity_searches_and_stops():
    # A tree whose arena fills stops growing but finishes its budget (the roots always fit).
    state = random_decision_positions("survive", 4, 60, seed=8)[-1]
    result = search.suggest(state, state.current_player(), iterations=500, node_capacity=search.MIN_NODES)
    assert result.stats["iterations"] == 500
    assert result.stats["nodes"] <= search.MIN_NODES


def test_a_seat_that_is_not_to_act_is_refused():
    with pytest.raises(ValueError, match="seat 1 is not to act; seat 0 is"):
        search.suggest(kuhn(0, 2), 1)
    with pytest.raises(ValueError, match="chance"):
        search.suggest(kuhn(0), 0)


def test_a_bot_seat_plays_the_full_searchs_move_without_making_a_belief_summary():
    # A bot seat only plays the move (arena, hosted and PlayGame games), so its search skips the summary's own sampled
    # worlds; what it ranks is what the same search with the summary ranks.
    from dataclasses import replace

    from search import play

    state = engine_ext.new_game("survive", players=4, seed=5)
    seat = state.current_player()
    settings = play.BotSettings("ismcts", iterations=300, setup_algorithm="same")
    bot = play.bot_search(state, seat, settings, game_seed=11, move_number=0)
    full = search.suggest(state, seat, replace(settings, seed=play.search_seed(settings, 11, 0)))
    assert bot.belief == {} and full.belief
    assert [(m.action, m.visits) for m in bot.moves] == [(m.action, m.visits) for m in full.moves]
