"""The arena: duplicate deals, resumable JSONL files, identical results on every executor, sound summaries."""

import itertools
import json
import math
import os
import signal
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

import engine_ext
from search import arena, stats
from search.play import BotSettings

FAST = {"a": BotSettings("ismcts", iterations=60), "g": BotSettings("greedy"), "r": BotSettings("random")}


def kuhn(deals: int = 6) -> arena.Tournament:
    return arena.Tournament("kuhn_poker", 2, {k: FAST[k] for k in "ar"}, [["a", "r"]], deals, seed=4)


def in_process(tournament: arena.Tournament) -> list[dict]:
    return [arena._play_job(job) for job in tournament.jobs()]


TIMINGS = ("seconds", "cpu_seconds")  # what the machine decides, not the seeds


def comparable(results: list[dict]) -> list[str]:
    return sorted(json.dumps({k: v for k, v in r.items() if k not in TIMINGS}, sort_keys=True) for r in results)


def test_a_deal_is_replayed_in_every_seat_permutation_with_one_seed():
    tournament = arena.Tournament("survive", 4, {k: FAST[k] for k in "gr"}, [["g", "r", "r", "r"]], 2, seed=1)
    jobs = list(tournament.jobs())
    assert len(jobs) == 8
    for deal in (0, 1):
        group = [j for j in jobs if j["deal"] == deal]
        assert len({j["seed"] for j in group}) == 1
        assert sorted(j["seats"].index("g") for j in group) == [0, 1, 2, 3]
    assert jobs[0]["seed"] != jobs[4]["seed"]


@pytest.mark.parametrize(
    "lineup",
    [
        "ab", "aa", "abc", "abb", "aab", "abcd", "abbb", "aabb", "abcde", "abbbb", "aabbc",
    ],
)  # fmt: skip
def test_every_deal_is_played_in_every_distinct_seat_order_of_its_lineup_once(lineup):
    # Three different bots in three seats play all 6 orders of each deal, not only the 3 rotations (a always just
    # before b); a repeated bot's copies are interchangeable, so aab plays 3 orders and abbbb 5.
    seats = len(lineup)
    game = "survive" if seats > 2 else "kuhn_poker"
    configs = {name: FAST["r"] for name in set(lineup)}
    tournament = arena.Tournament(game, seats, configs, [list(lineup)], 2, seed=3)
    jobs = list(tournament.jobs())
    every_order = set(itertools.permutations(lineup))
    for deal in (0, 1):
        played = [tuple(j["seats"]) for j in jobs if j["deal"] == deal]
        assert sorted(played) == sorted(every_order)  # each distinct order exactly once
    assert (
        len(jobs)
        == 2 * len(every_order)
        == 2 * math.factorial(seats) // math.prod(math.factorial(lineup.count(name)) for name in set(lineup))
    )


def test_a_deal_group_counts_only_when_it_holds_every_seat_order_not_just_as_many_games():
    lineup = ["a", "b", "g"]
    orders = arena.seat_permutations(lineup)
    whole = [{"match": "a,b,g", "deal": 0, "seats": list(s), "returns": [1.0, 0.0, 0.0], "seed": 0} for s in orders]
    doubled = whole[:5] + [dict(whole[0])]  # six games, but one order twice and one missing
    assert arena.complete_groups(lineup, whole) == {0: whole}
    assert arena.complete_groups(lineup, doubled) == {}


def test_permuted_seats_see_the_same_chance_while_the_games_agree():
    results = in_process(arena.Tournament("kuhn_poker", 2, {k: FAST[k] for k in "rg"}, [["r", "g"]], 3, seed=2))
    for deal in range(3):
        a, b = [r for r in results if r["deal"] == deal]
        assert a["seed"] == b["seed"]


def test_each_game_records_its_seats_decisions_and_the_cpu_they_took():
    # Survive with four seats: a searching seat against three that play at random. Every decision is some seat's, and
    # a search of 2,000 iterations a move costs far more CPU than a random pick (about 200 times here, ten times the
    # margin the test asks, so a busy machine cannot reverse it).
    bots = [BotSettings("ismcts", iterations=2000, setup_algorithm="same")] + [BotSettings("random")] * 3
    record = arena.play_game("survive", bots, seed=3)
    assert sum(record["seat_decisions"]) == record["decisions"] > 0
    assert all(n > 0 for n in record["seat_decisions"])
    assert len(record["cpu_seconds"]) == 4 and min(record["cpu_seconds"]) >= 0
    per_decision = [c / n for c, n in zip(record["cpu_seconds"], record["seat_decisions"], strict=True)]
    assert per_decision[0] > 20 * max(per_decision[1:])


def test_the_summary_gives_each_configuration_its_cpu_a_decision_over_the_games_that_recorded_it():
    def game(deal: int, seats: list[str], cpu: list[float] | None) -> dict:
        record = {"match": "a,b", "deal": deal, "seats": seats, "returns": [1.0, 0.0], "scores": [1, 0]}
        if cpu is not None:
            record.update(cpu_seconds=cpu, seat_decisions=[10, 5])
        return record

    # Seat 0 decides 10 times a game, seat 1 five times; "a" sits in each once per deal.
    games = [game(0, ["a", "b"], [1.0, 2.0]), game(0, ["b", "a"], [3.0, 0.5])]
    configs = arena.summarize_match(["a", "b"], games)["configs"]
    assert configs["a"]["cpu_ms_per_decision"] == round(1000 * 1.5 / 15, 3)  # (1.0 + 0.5) s over 10 + 5 decisions
    assert configs["b"]["cpu_ms_per_decision"] == round(1000 * 5.0 / 15, 3)
    assert configs["a"]["cpu_seats_timed"] == configs["b"]["cpu_seats_timed"] == 2
    # A resumed run with records from before the field (or from another tool): the games that recorded it, said so.
    older = [game(1, ["a", "b"], None), game(1, ["b", "a"], None)]
    configs = arena.summarize_match(["a", "b"], games + older)["configs"]
    assert configs["a"]["cpu_ms_per_decision"] == round(1000 * 1.5 / 15, 3) and configs["a"]["seats_played"] == 4
    assert configs["a"]["cpu_seats_timed"] == 2
    configs = arena.summarize_match(["a", "b"], older)["configs"]
    assert configs["a"]["cpu_ms_per_decision"] is None and configs["a"]["cpu_seats_timed"] == 0


def test_an_interrupted_run_continues_where_it_stopped_and_ends_as_a_full_run(tmp_path):
    path = tmp_path / "games.jsonl"
    tournament = kuhn()
    with arena.local_executor(2) as executor:
        arena.run(tournament, path, executor, stop=lambda results: len(results) >= 5, in_flight=1)
    with open(path, "a") as sink:
        sink.write('{"game": "kuhn_po')  # a write cut short by a kill
    assert len(arena.load_results(path, tournament)) == 5
    with arena.local_executor(2) as executor:
        resumed = arena.run(tournament, path, executor)
    assert len(resumed) == 12
    assert comparable(resumed) == comparable(in_process(tournament))
    # The cut line stays alone on its line: the first game played after it is read back from the file too.
    assert comparable(arena.load_results(path, tournament)) == comparable(resumed)


def test_a_run_stopped_early_ends_the_game_in_flight_instead_of_finishing_it_unrecorded(tmp_path):
    import multiprocessing

    path = tmp_path / "games.jsonl"
    slow = BotSettings("ismcts", iterations=600_000)  # a game of about a second: still in flight at the stop
    tournament = arena.Tournament("leduc_poker", 2, {"s": slow}, [["s", "s"]], 3, seed=4)
    with arena.local_executor(1) as executor:
        results = arena.run(tournament, path, executor, stop=lambda results: len(results) >= 1, in_flight=2)
        assert multiprocessing.active_children() == []  # the worker was ended, not left playing
    assert len(results) == 1
    assert len(path.read_text().splitlines()) == 1
    with arena.local_executor(1) as executor:
        assert len(arena.run(tournament, path, executor)) == 3  # the abandoned game is played on resumption


def test_a_game_that_raises_is_named_and_the_games_before_it_are_kept(tmp_path, monkeypatch):
    from concurrent.futures import ThreadPoolExecutor

    path = tmp_path / "games.jsonl"
    tournament = kuhn(3)
    jobs = list(tournament.jobs())
    broken = jobs[3]
    play_game = arena.play_game

    def failing(game, bots, seed, options=None):
        if seed == broken["seed"] and [b.algorithm for b in bots] == [FAST[n].algorithm for n in broken["seats"]]:
            raise ZeroDivisionError("float division by zero")
        return play_game(game, bots, seed, options)

    monkeypatch.setattr(arena, "play_game", failing)
    with ThreadPoolExecutor(1) as executor, pytest.raises(arena.GameFailedError) as failed:
        arena.run(tournament, path, executor, in_flight=1)
    message = str(failed.value)
    seats = ",".join(broken["seats"])
    assert f"(kuhn_poker, match a,r, deal {broken['deal']}, seats {seats}, seed {broken['seed']})" in message
    assert "ZeroDivisionError: float division by zero" in message and failed.value.job == broken
    assert isinstance(failed.value.__cause__, ZeroDivisionError)
    assert len(arena.load_results(path, tournament)) == 3  # the games finished before it
    monkeypatch.setattr(arena, "play_game", play_game)  # mended: the same call plays the rest
    with ThreadPoolExecutor(1) as executor:
        assert comparable(arena.run(tournament, path, executor)) == comparable(in_process(tournament))


def test_an_error_raised_in_a_worker_process_reaches_the_caller_whole():
    # A game whose options the engine refuses, played in a real worker: the engine's InvalidOption must come back as
    # itself inside GameFailedError, not as a broken process pool (it did not pickle before).
    tournament = kuhn(2)
    jobs = list(tournament.jobs())
    jobs[1] = {**jobs[1], "options": {"nosuch": 1}}

    class Broken:
        def jobs(self):
            return iter(jobs)

    with arena.local_executor(1) as executor, pytest.raises(arena.GameFailedError) as failed:
        arena.run(Broken(), None, executor, in_flight=1)
    assert failed.value.job == jobs[1]
    assert isinstance(failed.value.error, engine_ext.InvalidOption) and failed.value.error.option == "nosuch"


def test_a_file_from_other_configurations_is_refused(tmp_path):
    path = tmp_path / "games.jsonl"
    results = in_process(kuhn(1))
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    changed = arena.Tournament("kuhn_poker", 2, {"a": BotSettings("ismcts", iterations=61), "r": FAST["r"]},
                               [["a", "r"]], 1)  # fmt: skip
    with pytest.raises(ValueError, match="configuration 'a' was"):
        arena.load_results(path, changed)


def test_a_file_played_before_a_default_changed_is_refused(tmp_path, monkeypatch):
    from dataclasses import replace

    import engine_ext

    path = tmp_path / "games.jsonl"
    tournament = kuhn(1)
    results = in_process(tournament)
    assert results[0]["resolved"]["a"]["exploration"] == engine_ext.game_info("kuhn_poker").search_defaults.exploration
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    assert len(arena.load_results(path, tournament)) == len(results)  # the same defaults: it resumes
    info = engine_ext.game_info("kuhn_poker")
    defaults = replace(info.search_defaults, exploration=info.search_defaults.exploration + 1)
    monkeypatch.setitem(engine_ext._RECORDS, "kuhn_poker", replace(info, search_defaults=defaults))
    # The same settings as given ("a" names no exploration), but they now resolve to another bot.
    with pytest.raises(ValueError, match="configuration 'a' was played .*exploration 0.7 -> 1.7.*a default changed"):
        arena.load_results(path, tournament)


def test_a_tree_search_default_that_changed_leaves_greedy_and_random_the_same_bots(tmp_path, monkeypatch):
    import engine_ext

    path = tmp_path / "games.jsonl"
    tournament = arena.Tournament("kuhn_poker", 2, {k: FAST[k] for k in "agr"}, [["a", "g"], ["g", "r"]], 1, seed=4)
    results = in_process(tournament)
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    info = engine_ext.game_info("kuhn_poker")
    tree = replace(info.search_defaults, exploration=info.search_defaults.exploration + 1, minimax=0.5, widening=2.0)
    monkeypatch.setitem(engine_ext._RECORDS, "kuhn_poker", replace(info, search_defaults=tree))
    with pytest.raises(ValueError, match="configuration 'a' was played"):  # the tree search is another bot now
        arena.load_results(path, tournament)
    greedy_and_random = arena.Tournament("kuhn_poker", 2, {k: FAST[k] for k in "gr"}, [["g", "r"]], 1, seed=4)
    kept = [r for r in results if r["match"] == "g,r"]
    path.write_text("".join(json.dumps(r) + "\n" for r in kept))
    assert len(arena.load_results(path, greedy_and_random)) == len(kept)  # neither reads a tree's settings
    deeper = replace(info, search_defaults=replace(tree, playout_depth=3))
    monkeypatch.setitem(engine_ext._RECORDS, "kuhn_poker", deeper)
    with pytest.raises(ValueError, match="configuration 'g' was played .*playout_depth"):  # greedy reads this one
        arena.load_results(path, greedy_and_random)


def test_greedy_plays_the_same_whatever_the_tree_settings_it_does_not_read():
    import engine_ext
    import search

    state = engine_ext.new_game("survive", 2, 3)
    while state.current_player() < 0 or len(state.legal_actions()) < 4:
        state.apply(state.legal_actions()[0])
    seat = state.current_player()
    unread = dict(exploration=5.0, scaled_exploration=False, candidates=1, widening=0.0, minimax=1.0, final_lcb=2.0,
                  canonical_order=True, playout_to="turn", playout_candidates=2, baseline=False, worlds=3, threads=2,
                  setup_algorithm="same", beliefs=True)  # fmt: skip
    assert not set(unread) & arena.READ_WITHOUT_A_TREE["greedy"]
    # A keeper as a game loop gives every seat: greedy deals no worlds by beliefs (Survive's filter) through it.
    plain = search.suggest(state, seat, algorithm="greedy", iterations=200, seed=5, beliefs=False)
    keeper = search.TreeKeeper(seat)
    other = search.suggest(state, seat, algorithm="greedy", iterations=200, seed=5, keeper=keeper, **unread)
    assert keeper.filter is None and keeper.bytes == 0
    assert [(m.action, m.value) for m in plain.moves] == [(m.action, m.value) for m in other.moves]


def test_a_file_played_before_a_setting_existed_resumes_where_the_setting_plays_as_before(tmp_path):
    path = tmp_path / "games.jsonl"
    tournament = kuhn(1)
    results = in_process(tournament)
    for result in results:  # as recorded before SearchConfig had playout_to and playout_candidates
        for played in result["resolved"].values():
            played.pop("playout_to", None), played.pop("playout_candidates", None)
    path.write_text("".join(json.dumps(r) + "\n" for r in results))
    assert len(arena.load_results(path, tournament)) == len(results)
    turn = arena.Tournament("kuhn_poker", 2, {"a": replace(tournament.configs["a"], playout_to="turn"),
                                              "r": tournament.configs["r"]}, [["a", "r"]], 1)  # fmt: skip
    with pytest.raises(ValueError, match="configuration 'a' was"):
        arena.load_results(path, turn)


def test_ray_gives_the_same_results_as_the_process_pool():
    pytest.importorskip("ray")
    tournament = kuhn(4)
    executor = arena.RayExecutor("local:2")
    try:
        on_ray = arena.run(tournament, None, executor)
    finally:
        executor.shutdown()
    assert comparable(on_ray) == comparable(in_process(tournament))


def test_a_board_game_summary_has_shares_wilson_elo_and_the_pentanomial():
    configs = {"r": FAST["r"], "r2": BotSettings("random", seed=5)}
    tournament = arena.Tournament("survive", 2, configs, [["r", "r2"]], 6, seed=1)
    summary = arena.summarize(tournament, in_process(tournament))
    match = summary["matches"]["r,r2"]
    assert match["deal_groups"] == 6 and sum(match["pentanomial"]) == 6
    share = match["configs"]["r"]["win_share"]
    assert share[1] <= share[0] <= share[2] and share == match["configs"]["r"]["mean_return"]
    assert share[0] + match["configs"]["r2"]["win_share"][0] == pytest.approx(1.0)
    assert match["elo"]["interval"][0] <= match["elo"]["elo"] <= match["elo"]["interval"][1]
    assert "openskill" not in summary


def test_poker_is_judged_by_chips_because_a_duplicate_pair_splits_the_wins():
    tournament = kuhn(10)
    match = arena.summarize(tournament, in_process(tournament))["matches"]["a,r"]
    assert "elo" not in match
    chips = match["configs"]["a"]["mean_return"]
    assert chips[1] <= chips[0] <= chips[2] and chips[0] == pytest.approx(-match["configs"]["r"]["mean_return"][0])


def test_multi_player_summaries_rate_with_openskill_and_the_stronger_bot_leads():
    tournament = arena.Tournament("survive", 3, {k: FAST[k] for k in "gr"}, [["g", "r", "r"]], 2, seed=3)
    summary = arena.summarize(tournament, in_process(tournament))
    ratings = summary["openskill"]
    assert list(ratings) == ["g", "r"], ratings
    assert summary["matches"]["g,r,r"]["configs"]["g"]["win_share"][0] > 1 / 3


def test_one_bot_against_a_field_of_three_gets_an_elo_for_four_seats_and_a_mixed_table_none():
    configs = {"r": FAST["r"], "r2": BotSettings("random", seed=5), "r3": BotSettings("random", seed=9)}
    tournament = arena.Tournament("survive", 4, configs, [["r", "r2", "r2", "r2"], ["r", "r2", "r3", "r3"]], 4, seed=1)
    summary = arena.summarize(tournament, in_process(tournament))
    match = summary["matches"]["r,r2,r2,r2"]
    share = match["configs"]["r"]["win_share"][0]
    assert match["elo"]["elo"] == pytest.approx(stats.elo_from_share(share, 4), abs=0.1), match
    low, high = match["elo"]["interval"]
    assert low <= match["elo"]["elo"] <= high and "pentanomial" not in match
    assert "elo" not in summary["matches"]["r,r2,r3,r3"] and "score_edge" not in summary["matches"]["r,r2,r3,r3"]
    edge = match["score_edge"]["points"]
    assert edge[1] <= edge[0] <= edge[2]


def test_the_sprt_decides_a_four_seat_lineup_and_refuses_what_it_cannot_judge(tmp_path):
    atoll = str(Path(sys.executable).parent / "atoll")
    command = [atoll, "bench", "strength", "--game", "survive", "--players", "4", "--bot", "g=greedy,iterations=200",
               "--bot", "r=random", "--lineup", "g,r,r,r", "--deals", "30", "--workers", "2", "--quiet",
               "--sprt=0,200", "--out", str(tmp_path / "games.jsonl")]  # fmt: skip
    summary = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    verdict = summary["sprt"]
    assert verdict["verdict"] == "g is stronger" and verdict["llr"] >= verdict["bounds"][1]
    assert verdict["deal_groups"] < 30 and sum(verdict["group_scores"].values()) == verdict["deal_groups"]
    refused = [("g,r,g,r", "0,30", "one configuration against copies"), ("g,r,r,r", "30,0", "the lower first"),
               ("g,r,r,r", "thirty", "ELO0,ELO1")]  # fmt: skip
    for lineup, bounds, message in refused:
        bad = command[:11] + ["--lineup", lineup, "--deals", "1", f"--sprt={bounds}"]
        done = subprocess.run(bad, capture_output=True, text=True)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_two_bots_in_the_same_games_are_compared_paired_by_deal_group():
    lineup = ["a", "b", "g"]
    permutations = arena.seat_permutations(lineup)
    # Deal 0: a wins every game; deal 1: b wins four of the six and a two; deal 2: one game only (left out).
    winners = {0: ["a"] * 6, 1: ["b", "b", "a", "b", "a", "b"], 2: ["b"]}
    games = [
        {"match": "a,b,g", "deal": deal, "seats": list(seats), "returns": [float(s == w) for s in seats],
         "scores": [1] * 3, "seed": deal}
        for deal, won in winners.items() for seats, w in zip(permutations[: len(won)], won, strict=True)
    ]  # fmt: skip
    match = arena.summarize_match(lineup, games)
    assert set(match["head_to_head"]) == {"a - b", "a - g"}
    a_b = match["head_to_head"]["a - b"]
    assert a_b["deal_groups"] == 2 and a_b["difference"][0] == pytest.approx(((1 - 0) + (2 / 6 - 4 / 6)) / 2, abs=1e-4)
    assert match["head_to_head"]["a - g"]["difference"][0] == pytest.approx((1 + 2 / 6) / 2, abs=1e-4)
    assert "head_to_head" not in arena.summarize_match(["a", "g", "g"], [])  # one bot against a field: elo instead


def test_a_run_too_small_to_say_anything_says_so_and_its_intervals_stay_in_range(capsys):
    lineup = ["a", "b"]
    # Two pairs: a wins both games of deal 0 and splits deal 1 (the --deals 2 run that reported [0.625, -4.14, 5.39]).
    games = [
        {"match": "a,b", "deal": deal, "seats": list(seats), "returns": [float(s == w) for s in seats],
         "scores": [1, 0], "seed": deal}
        for deal, won in ((0, "aa"), (1, "ab")) for seats, w in zip(arena.seat_permutations(lineup), won, strict=True)
    ]  # fmt: skip
    match = arena.summarize_match(lineup, games)
    assert "too few" in match["note"] and match["deal_groups"] == 2
    assert match["configs"]["a"]["win_share"] == [0.75, 0.0, 1.0]
    assert match["configs"]["a"]["mean_return"] == [0.75, 0.0, 1.0]
    assert match["elo"]["interval"] == [None, None]  # the shares' interval reaches 0 and 1: Elo is unbounded
    json.dumps(match, allow_nan=False)  # valid JSON: no Infinity or NaN
    tournament = arena.Tournament("survive", 2, {"a": FAST["r"], "b": FAST["r"]}, [lineup], 2, seed=1)
    import io

    stream = io.StringIO()
    arena.Progress(tournament, 4, stream=stream)(games[:2])
    assert "1 deal group: too few to tell yet" in stream.getvalue() and "inf" not in stream.getvalue()


def test_the_score_edge_pairs_the_challengers_points_with_the_fields_in_the_same_seat_of_the_same_deal():
    lineup = ["a", "b", "b", "b"]
    permutations = arena.seat_permutations(lineup)

    # Seat 0 is worth 10 points more than the others whoever sits there (a seat advantage, not a skill). Deal 0: a
    # scores 2 more than b would in its seat; deal 1: 1 less; deal 2 is incomplete and left out.
    def game(deal: int, seats: tuple, edge: float) -> dict:
        scores = [(10 if k == 0 else 0) + (edge if who == "a" else 0) + deal for k, who in enumerate(seats)]
        return {"match": "a,b,b,b", "deal": deal, "seats": list(seats), "returns": [0.25] * 4, "scores": scores,
                "seed": deal}  # fmt: skip

    games = [game(deal, seats, edge) for deal, edge in ((0, 2), (1, -1)) for seats in permutations]
    games.append(game(2, permutations[0], 50))
    edge = arena.summarize_match(lineup, games)["score_edge"]
    assert edge["of"] == "a" and edge["against"] == "b" and edge["points"][0] == pytest.approx(0.5)
    assert edge["points"][1] < 0.5 < edge["points"][2]


def test_a_solo_summary_counts_wins_and_the_score_of_the_games_won():
    tournament = arena.Tournament("islet_solo", 1, {"r": FAST["r"]}, arena.default_lineups(["r"], 1), 3, seed=1)
    games = [
        {"match": "r", "deal": k, "seats": ["r"], "returns": [ret], "scores": [score], "seed": k}
        for k, (ret, score) in enumerate([(1.0, 12), (0.0, 0), (1.0, 6)])
    ]
    config = arena.summarize(tournament, games)["matches"]["r"]["configs"]["r"]
    assert config["win_share"][0] == pytest.approx(2 / 3, abs=1e-4) and config["mean_score_of_wins"] == 9.0
    assert config["mean_margin"] is None and config["mean_score"] == 6.0


def test_the_strength_plot_is_written(tmp_path):
    configs = {"a60": FAST["a"], "a30": BotSettings("ismcts", iterations=30), "r": FAST["r"]}
    tournament = arena.Tournament("kuhn_poker", 2, configs, [["a60", "r"], ["a30", "r"]], 3)
    summary = arena.summarize(tournament, in_process(tournament))
    arena.plot_strength(summary, tournament, tmp_path / "strength.png", "r")
    assert (tmp_path / "strength.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_shards_play_the_games_of_the_whole_match_and_their_files_joined_summarize_as_it(tmp_path):
    whole = arena.Tournament("survive", 4, {k: FAST[k] for k in "gr"}, [["g", "r", "r", "r"]], 3, seed=5)
    late = replace(whole, deals=2, first_deal=1)
    assert [j["deal"] for j in late.jobs()] == [1] * 4 + [2] * 4
    assert [j for j in whole.jobs() if j["deal"] > 0] == list(late.jobs())
    paths = tmp_path / "late.jsonl", tmp_path / "early.jsonl"
    with arena.local_executor(2) as executor:
        arena.run(late, paths[0], executor)  # the later stretch first, as a second machine would
        arena.run(replace(whole, deals=1), paths[1], executor)
    joined = tmp_path / "joined.jsonl"
    joined.write_text(paths[0].read_text() + paths[1].read_text())
    with arena.local_executor(1) as executor:
        games = arena.run(whole, joined, executor)
    assert joined.read_text() == paths[0].read_text() + paths[1].read_text(), "nothing was left to play"
    assert comparable(games) == comparable(in_process(whole))
    with pytest.raises(ValueError, match="first deal"):
        replace(whole, first_deal=-1)


def test_the_command_line_resumes_from_its_file(tmp_path):
    out = tmp_path / "games.jsonl"
    command = [str(Path(sys.executable).parent / "atoll"), "bench", "strength", "--game", "survive",
               "--bot", "g=greedy,iterations=200", "--bot", "r=random", "--deals", "3", "--out", str(out),
               "--workers", "1", "--quiet", "--sprt=-50,50"]  # fmt: skip
    first = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    lines = out.read_text().count("\n")
    second = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
    assert out.read_text().count("\n") == lines, "a finished run plays nothing more"
    assert first["matches"] == second["matches"] and second["sprt"]["pairs"] == first["sprt"]["pairs"]


def test_a_bad_configuration_is_one_line_on_stderr():
    command = [str(Path(sys.executable).parent / "atoll"), "bench", "strength", "--game", "kuhn_poker",
               "--bot", "a=ismcts,iteratons=50", "--bot", "r=random"]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True)
    assert done.returncode == 2 and "unknown setting 'iteratons'" in done.stderr and "Traceback" not in done.stderr


def test_bot_settings_text_parses_each_type_and_refuses_an_unclear_flag():
    name, settings = arena.parse_config("s=ismcts,iterations=300,exploration=2,scaled_exploration=false", "survive")
    assert (name, settings.iterations, settings.exploration, settings.scaled_exploration) == ("s", 300, 2.0, False)
    assert arena.parse_config("s=ismcts,open_loop=on", "survive")[1].open_loop is True
    with pytest.raises(ValueError, match="scaled_exploration is true or false, not 'ture'"):
        arena.parse_config("s=ismcts,scaled_exploration=ture", "survive")


def test_levels_name_their_configurations_and_a_game_may_replace_the_ladder(monkeypatch):
    from dataclasses import replace

    import engine_ext
    from search import play

    assert arena.parse_config("x=level:3", "islet") == ("x", play.LEVELS[3])
    with pytest.raises(ValueError, match="1..5"):
        play.level_settings("kuhn_poker", 6)
    info = engine_ext.game_info("kuhn_poker")
    ladder = tuple({"algorithm": "ismcts", "iterations": 100 * k} for k in range(1, 6))
    monkeypatch.setitem(engine_ext._RECORDS, "kuhn_poker", replace(info, bot_levels=ladder))
    assert play.level_settings("kuhn_poker", 2) == BotSettings("ismcts", iterations=200)


def test_every_game_ladder_has_five_levels_that_search_and_grow():
    """Each game's levels 1-5 are valid settings that ``suggest`` accepts, from random up, and the searching levels
    spend at least as many iterations as the one below (a ladder whose budget fell would be a typo)."""
    from dataclasses import fields

    import engine_ext
    from search import play

    known = {f.name for f in fields(BotSettings)}
    for game in engine_ext.GAMES:
        for level in engine_ext.game_info(game).bot_levels or ():
            assert set(level) <= known, (game, level)  # from_dict would drop a misspelt field silently
        ladder = [play.level_settings(game, level) for level in range(1, 6)]
        assert ladder[0].algorithm == "random" and ladder[1].algorithm == "greedy", game
        budgets = [settings.iterations for settings in ladder[2:]]
        assert all(b is not None for b in budgets) and budgets == sorted(budgets), (game, budgets)


def test_pooled_ratings_put_one_seat_rows_from_separate_runs_on_one_scale(tmp_path):
    import importlib.util

    path = Path(__file__).parents[2] / "benchmarks" / "pooled_ratings.py"
    spec = importlib.util.spec_from_file_location("pooled_ratings", path)
    pooled = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(pooled)

    def run(name: str, row_wins: bool) -> str:
        # One row bot in seat 0 against a field "f" in 3 seats; the row bot wins every game or comes last in each.
        games = []
        for deal in range(12):
            returns = [1.0, 0.0, 0.0, 0.0] if row_wins else [0.0, 1.0, 0.0, 0.0]
            games.append(
                {
                    "match": f"{name},f,f,f",
                    "deal": deal,
                    "seed": deal,
                    "seats": [name, "f", "f", "f"],
                    "returns": returns,
                }
            )
        file = tmp_path / f"{name}.jsonl"
        file.write_text("".join(json.dumps(g) + "\n" for g in games))
        return str(file)

    ratings = pooled.pooled_ratings([run("strong", True), run("weak", False)])
    assert list(ratings) == ["strong", "f", "weak"], ratings
    # The field is seen in both runs, so it is the most certain rating.
    assert ratings["f"]["sigma"] < min(ratings["strong"]["sigma"], ratings["weak"]["sigma"])


def test_ratings_do_not_depend_on_which_games_come_first():
    # OpenSkill rates one game after another and its sigma shrinks as it goes, so the first games weigh the most: rated
    # in one order (deal by deal), a bot that won its first 40 deals and lost the next 40 was rated 14.9 with the deals
    # numbered one way and 47.7 with them numbered the other. The same games must give the same rating.
    def games(reverse: bool) -> list[dict]:
        out = []
        for deal in range(80):
            label = 79 - deal if reverse else deal
            returns = [1.0, 0.0, 0.0, 0.0] if deal < 40 else [0.0, 1.0, 0.0, 0.0]
            out.append({"match": "a,f,f,f", "deal": label, "seed": label, "seats": ["a", "f", "f", "f"],
                        "returns": returns})  # fmt: skip
        return out

    forward, backward = arena.openskill_ratings(games(False)), arena.openskill_ratings(games(True))
    assert abs(forward["a"]["mu"] - backward["a"]["mu"]) < 1.0, (forward, backward)
    # Won half of its games against three others: above the field, which shares the rest.
    assert forward["a"]["mu"] > forward["f"]["mu"]
    assert forward["a"]["order_sd"] > 0  # how far one order strays is reported


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return found


def _running(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads worker processes from /proc")
def test_workers_leave_when_the_arena_is_killed(tmp_path):
    # A kill -9 of the arena leaves its pool's workers behind unless they watch their parent: they would play on,
    # burning the cores of the next run, with nobody to record their games.
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "server.cli", "bench", "strength", "--game", "survive",
               "--bot", "a=ismcts,iterations=3000", "--bot", "g=greedy", "--deals", "1000", "--out", str(out),
               "--workers", "2", "--quiet"]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 60
        workers = []
        while time.time() < deadline and len(workers) < 2:
            time.sleep(0.2)
            workers = [p for p in _children(proc.pid) if "spawn_main" in Path(f"/proc/{p}/cmdline").read_text()]
        assert len(workers) == 2, "the pool did not start"
        time.sleep(1.0)
    finally:
        proc.kill()
        proc.wait()
    deadline = time.time() + 15
    while time.time() < deadline and any(_running(p) for p in workers):
        time.sleep(0.2)
    left = [p for p in workers if _running(p)]
    for pid in left:  # leave the machine clean even when the check fails
        os.kill(pid, signal.SIGKILL)
    assert not left


@pytest.mark.parametrize(("signum", "word", "code"), [(signal.SIGINT, "interrupted", 130),
                                                        (signal.SIGTERM, "terminated", 143)])  # fmt: skip
def test_ctrl_c_or_sigterm_ends_the_run_with_a_line_on_how_to_resume_and_the_rerun_finishes_it(
    tmp_path, signum, word, code
):
    # A terminal's Ctrl-C reaches the arena and its workers (one process group), and so does a SIGTERM from systemd
    # stopping a unit or a cluster's preemption: the workers leave it to the arena, which ends the games in flight,
    # says where the finished ones are, and exits 128 + the signal without a traceback (none from a worker that died
    # first either); rerunning the command plays the rest.
    out = tmp_path / "games.jsonl"
    command = [sys.executable, "-m", "server.cli", "bench", "strength", "--game", "islet", "--players", "2",
               "--bot", "a=ismcts,iterations=2000", "--bot", "g=greedy", "--deals", "10", "--out", str(out),
               "--workers", "2", "--quiet"]  # fmt: skip

    def as_from_a_terminal() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background child of a script starts with SIGINT ignored
        os.setpgrp()

    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=as_from_a_terminal)
    deadline = time.time() + 60
    while time.time() < deadline and not (out.exists() and out.read_text().count("\n") >= 4):  # both workers up
        time.sleep(0.05)
    os.killpg(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    err = err.decode()
    kept = [json.loads(line) for line in out.read_text().splitlines()]
    assert proc.returncode == code and "Traceback" not in err, err
    assert f"{word}; {len(kept)} games are in {out}. The same command resumes the run." in err
    assert 4 <= len(kept) < 20
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["games"] == 20
    games = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(games) == 20 and len({(g["deal"], tuple(g["seats"])) for g in games}) == 20


def _load_benchmark(name: str):
    import importlib.util

    path = Path(__file__).parents[2] / "benchmarks" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _row_file(tmp_path: Path, name: str, config: dict, wins_per_group: list[int], resolved: dict | None = None) -> str:
    # One row bot against a field "f" on 4 seats, deal by deal; in deal d it wins wins_per_group[d] of its 4 rotations
    # (the field wins the others).
    games = []
    for deal, wins in enumerate(wins_per_group):
        for seat in range(4):
            seats = ["f"] * 4
            seats[seat] = name
            winner = seat if seat < wins else (seat + 1) % 4
            returns = [1.0 if k == winner else 0.0 for k in range(4)]
            games.append({"game": "islet", "players": 4, "options": {}, "match": f"{name},f,f,f", "deal": deal,
                          "seed": deal, "seats": seats, "configs": {name: config, "f": {"algorithm": "greedy"}},
                          "returns": returns, "scores": [3 * r for r in returns], "seconds": 1.5})  # fmt: skip
            if resolved is not None:
                games[-1]["resolved"] = {name: resolved, "f": {"algorithm": "greedy"}}
    file = tmp_path / f"{name}.jsonl"
    file.write_text("".join(json.dumps(g) + "\n" for g in games))
    return str(file)


def test_rows_pair_separate_runs_by_deal_and_plot_them(tmp_path):
    rows = _load_benchmark("rows")
    # The reference wins 1 to 3 rotations a deal, the challenger exactly one more each deal: the rows' own intervals
    # overlap, but paired by deal the difference is exactly +0.25 with no spread.
    base = [1, 2, 3, 1, 2, 3, 1, 2]
    ref = _row_file(tmp_path, "i3k", {"iterations": 3000}, base)
    better = _row_file(tmp_path, "i30k", {"iterations": 30000}, [w + 1 for w in base])
    partial = _row_file(tmp_path, "i300", {"iterations": 300}, [0, 1, 2])
    summary, tournament = rows.rows([ref, better, partial], reference=ref)
    matches = summary["matches"]
    assert matches["i30k,f,f,f"]["against_reference"]["difference"] == [0.25, 0.25, 0.25]
    # In points (a win is 3): each deal's extra win is 3 more in the row bot's seat (3 / 4 over the four seats) and 3
    # fewer for the field seat that no longer wins it (a third of that, 1, in that seat: 1 / 4 over the seats).
    assert matches["i30k,f,f,f"]["against_reference"]["score_edge_difference"] == [1.0, 1.0, 1.0]
    assert matches["i30k,f,f,f"]["against_reference"]["deal_groups"] == 8
    assert matches["i300,f,f,f"]["against_reference"]["deal_groups"] == 3  # only the deals both rows played
    assert "against_reference" not in matches["i3k,f,f,f"]
    assert matches["i3k,f,f,f"]["deal_groups"] == 8 and matches["i3k,f,f,f"]["minutes"] == 0.8  # 32 games of 1.5 s
    ratings = summary["openskill"]
    assert ratings["i30k"]["mu"] > ratings["i3k"]["mu"] > ratings["i300"]["mu"]
    rows.arena.plot_strength(summary, tournament, tmp_path / "rows.png", "f")
    assert (tmp_path / "rows.png").stat().st_size > 1000


def test_rows_report_each_rows_sprt_as_the_arena_judges_it(tmp_path, monkeypatch, capsys):
    rows = _load_benchmark("rows")
    strong = _row_file(tmp_path, "s", {"iterations": 3000}, [4, 3, 4, 4, 3, 4, 4, 4, 3, 4] * 4)  # 0.9 of the wins
    even = _row_file(tmp_path, "e", {"iterations": 300}, [1, 1, 0, 2] * 5)  # 0.25: an equal share of four seats
    summary = rows.rows([strong, even], sprt=(0.0, 30.0))[0]
    verdict_strong, verdict_even = summary["matches"]["s,f,f,f"]["sprt"], summary["matches"]["e,f,f,f"]["sprt"]
    games = rows.load([strong])
    own = rows.arena.sprt_report(["s", "f", "f", "f"], games, 0.0, 30.0)  # the arena's own report
    assert {k: v for k, v in verdict_strong.items() if k != "decided_after"} == own
    assert verdict_strong["verdict"] == "s is stronger" and verdict_strong["deal_groups"] == 40
    assert verdict_even["llr"] < 0 < verdict_strong["llr"]
    decided = verdict_strong["decided_after"]  # where an SPRT run would have stopped: the first crossing in deal order
    assert decided["verdict"] == "H1" and 1 < decided["deal_groups"] < 40, decided
    deals = sorted({g["deal"] for g in games})
    for count, crossed in ((decided["deal_groups"], True), (decided["deal_groups"] - 1, False)):
        prefix = [g for g in games if g["deal"] in deals[:count]]
        report = rows.arena.sprt_report(["s", "f", "f", "f"], prefix, 0.0, 30.0)
        assert (report["llr"] >= report["bounds"][1]) is crossed, (count, report)
    # a threshold instead of "stronger at all": 0.9 of the wins is +572 Elo over each of three seats
    assert rows.arena.sprt_report(["s", "f", "f", "f"], games, 300.0, 400.0)["verdict"] == "s is stronger than 300 Elo"
    assert (
        rows.arena.sprt_report(["s", "f", "f", "f"], games, 700.0, 800.0)["verdict"] == "s is not stronger by 800 Elo"
    )
    assert "sprt" not in rows.rows([strong])[0]["matches"]["s,f,f,f"]  # only when asked
    monkeypatch.setattr("sys.argv", ["rows.py", strong, "--sprt", "30,0"])
    with pytest.raises(SystemExit) as exit_:
        rows.main()
    assert exit_.value.code == 2 and "lower first" in capsys.readouterr().err


def test_the_progress_line_shows_the_sprt_when_a_run_has_one(tmp_path):
    import io
    from types import SimpleNamespace

    games = [json.loads(line) for line in Path(_row_file(tmp_path, "s", {}, [4, 3, 2] * 5)).read_text().splitlines()]
    tournament = SimpleNamespace(lineups=[["s", "f", "f", "f"]], first_deal=0, deals=20)
    judged, plain = io.StringIO(), io.StringIO()
    arena.Progress(tournament, 80, stream=judged, sprt=(0.0, 30.0))(games)
    arena.Progress(tournament, 80, stream=plain)(games)
    llr = arena.sprt_report(["s", "f", "f", "f"], games, 0.0, 30.0)["llr"]
    assert llr > 0.5 and f"| LLR {llr:.2f} [-2.94, 2.94] |" in judged.getvalue()
    assert "60/80 games" in plain.getvalue() and "LLR" not in plain.getvalue()


def test_rows_refuse_one_name_with_two_settings(tmp_path):
    rows = _load_benchmark("rows")
    first = _row_file(tmp_path / "a", "x", {"iterations": 300}, [1, 2]) if (tmp_path / "a").mkdir() is None else None
    second = _row_file(tmp_path / "b", "x", {"iterations": 3000}, [1, 2]) if (tmp_path / "b").mkdir() is None else None
    with pytest.raises(ValueError, match="'x'.*rename"):
        rows.rows([first, second])


def test_rows_refuse_one_name_whose_defaults_changed_between_runs(tmp_path):
    rows = _load_benchmark("rows")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    old = {"iterations": 3000, "playout_depth": -1}
    first = _row_file(tmp_path / "a", "x", {"iterations": 3000}, [1, 2], resolved=old)
    second = _row_file(tmp_path / "b", "x", {"iterations": 3000}, [1, 2], resolved=old | {"playout_depth": 80})
    with pytest.raises(ValueError, match=r"'x' resolved differently.*\['playout_depth'\]\); rename"):
        rows.rows([first, second])
    summary = rows.rows([first, second], reference=first, renames={second: {"x": "x80"}})[0]  # one read as another
    assert summary["matches"]["x80,f,f,f"]["against_reference"]["difference"] == [0.0, 0.0, 0.0]
    summary = rows.rows([first, second], reference=second, renames={second: {"x": "x80"}})[0]  # the reference, too
    assert summary["matches"]["x,f,f,f"]["against_reference"]["reference"] == "x80,f,f,f"
    assert summary["matches"]["x,f,f,f"]["deal_groups"] == 2
    with pytest.raises(ValueError, match="not read"):
        rows.rows([first], renames={second: {"x": "x80"}})
    same = _row_file(tmp_path / "b", "x", {"iterations": 3000}, [2, 3], resolved=old)
    assert rows.rows([first, same])[0]["games"] == 16  # resolved alike: read together


def test_rows_read_a_setting_added_since_a_record_as_its_former_behaviour(tmp_path):
    rows = _load_benchmark("rows")
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir(), (tmp_path / "c").mkdir()
    old = {"iterations": 3000, "candidates": 8}  # recorded before playout_to existed
    first = _row_file(tmp_path / "a", "x", {"iterations": 3000}, [1, 2], resolved=old)
    now = old | {"playout_to": "steps", "playout_candidates": 8}
    second = _row_file(tmp_path / "b", "x", {"iterations": 3000}, [2, 3], resolved=now)
    assert rows.rows([first, second])[0]["games"] == 16  # the search played as it did then
    turn = _row_file(tmp_path / "c", "x", {"iterations": 3000}, [2, 3], resolved=now | {"playout_to": "turn"})
    with pytest.raises(ValueError, match=r"'x' resolved differently.*\['playout_candidates', 'playout_to'\]"):
        rows.rows([first, turn])


# The resolved settings the first game records kept; every setting added since must read as its former behaviour.
FIRST_RECORDED = frozenset(
    "algorithm baseline beliefs candidates canonical_order exploration final_lcb halving heuristic iterations"
    " light_playouts minimax node_capacity open_loop playout_depth playout_policy private_roots reuse"
    " scaled_exploration setup_algorithm threads time_ms top_k widening worlds".split()
)


@pytest.mark.parametrize("game,players", [("survive", 4), ("small_islands", 4), ("islet", 2)])
def test_a_record_from_before_a_setting_was_added_resumes_when_the_setting_plays_as_before(tmp_path, game, players):
    now = arena.resolved_settings(game, players, BotSettings("ismcts", iterations=5))
    added = set(now) - FIRST_RECORDED - {"playout_candidates"}  # counted only where playout_to uses it
    unlisted = sorted(added - set(arena.PLAYED_AS_BEFORE))
    assert not unlisted, f"settings added since the first records, not in arena.PLAYED_AS_BEFORE: {unlisted}"
    as_before = BotSettings("ismcts", iterations=5, **{key: arena.PLAYED_AS_BEFORE[key] for key in added})
    tournament = arena.Tournament(game, players, {"x": as_before}, [["x"] * players], 1)
    resolved = arena.resolved_settings(game, players, as_before)
    old = {key: value for key, value in resolved.items() if key in FIRST_RECORDED}
    record = {"game": game, "players": players, "configs": {"x": as_before.to_dict()}, "resolved": {"x": old}}
    path = tmp_path / "old.jsonl"
    path.write_text(json.dumps(record) + "\n")
    assert arena.load_results(path, tournament) == [record]
    path.write_text(json.dumps(record | {"resolved": {"x": old | {"minimax": 0.123}}}) + "\n")
    with pytest.raises(ValueError, match=r"minimax 0\.123 -> .*a default changed since"):
        arena.load_results(path, tournament)


def test_a_tournament_refuses_a_configuration_its_games_would_fail_on_before_playing_any():
    bad = {"c": BotSettings("ismcts", iterations=0), "r": FAST["r"]}
    with pytest.raises(ValueError, match="configuration 'c': iterations: expected at least 1, got 0"):
        arena.Tournament("kuhn_poker", 2, bad, [["c", "r"]], 1)
    with pytest.raises(ValueError, match="configuration 'c': minimax"):
        arena.Tournament("kuhn_poker", 2, {"c": BotSettings("ismcts", minimax=2.0)}, [["c", "c"]], 1)
    assert arena.Tournament("kuhn_poker", 2, {"c": BotSettings("cheat")}, [["c", "c"]], 1)  # the bound it may measure
