"""The benchmark scripts run and measure what they say: each at a tiny size, its JSON read back.

docs/benchmarks.md gives each script's command; a script that fails, or quietly measures another algorithm than the
one its figure names, breaks the figures' reproducibility. (Their full sizes are for the benchmarks, not for CI.)
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import search
from search import bench

BENCHMARKS = Path(__file__).parents[1] / "benchmarks"


def _run(script: str, *args: str) -> dict:
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / script), *args], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_search_speed_times_the_search_where_the_defaults_hand_the_set_up_to_greedy():
    # Survive's first decision is a set-up placement, which its defaults give to greedy (no tree); the opening's
    # speed target is the search's, so the benchmark must time ISMCTS there, not greedy's sampled worlds.
    report = bench.search_speed("survive", 4, 0.05)
    assert report["algorithm"] == "ismcts"
    assert report["nodes"] > 0 and report["iterations"] > 0


def test_the_midgame_search_speed_times_the_search_at_set_up_positions_too(monkeypatch):
    # Its positions at 10 % of a Survive game are set-up placements; greedy plays them at the defaults.
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import search_profile
    import search_speed

    opening = bench.opening_decision("survive", 2)
    monkeypatch.setattr(search_profile, "position", lambda *args: (opening.clone(), 0))
    report = search_speed.midgame_speed("survive", 2, search.SearchConfig("ismcts", iterations=100), 1)
    assert report["algorithms"] == ["ismcts"]


def test_the_midgame_search_speed_times_each_named_algorithm_against_the_first():
    report = _run(
        "search_speed.py",
        "--midgame",
        "--iterations",
        "30",
        "--repeats",
        "1",
        "--games",
        "kuhn_poker",
        "--algorithms",
        "ismcts",
        "pimc",
        "cheat",
    )["kuhn_poker"]
    assert list(report) == ["ismcts", "pimc", "cheat"]
    for name, row in report.items():
        assert row["algorithms"] == [name]  # each row timed the search it names, not the default
        assert row["cpu_relative"] > 0
    assert report["ismcts"]["cpu_relative"] == 1.0


def test_the_midgame_search_speed_times_named_configurations_per_decision_against_the_first():
    # A head to head at equal time is sized from these figures: each bot searches at its own iterations, and its
    # CPU a decision is read against the first bot's (no timing threshold: a busy machine would make one flaky).
    report = _run(
        "search_speed.py",
        "--midgame",
        "--repeats",
        "2",
        "--games",
        "kuhn_poker",
        "--bot",
        "small=ismcts,iterations=400",
        "--bot",
        "large=ismcts,iterations=1600",
    )["kuhn_poker"]
    assert list(report) == ["small", "large"]
    assert report["small"]["iterations"] == 400 and report["large"]["iterations"] == 1600
    # Each searched its own budget, as the searches report it: ten positions, two repeats.
    assert report["small"]["searched"] == 400 * 10 * 2 and report["large"]["searched"] == 1600 * 10 * 2
    assert report["small"]["decision_cpu_relative"] == 1.0
    small, large = report["small"], report["large"]
    assert large["decision_cpu_relative"] == round(large["cpu_seconds"] / small["cpu_seconds"], 3) > 0
    per_iteration = small["iterations_per_cpu_second"] / large["iterations_per_cpu_second"]
    assert large["cpu_relative"] == round(per_iteration, 3)


@pytest.mark.parametrize(
    "args, said",
    [
        (["--bot", "a=ismcts,iterations=10"], "--midgame"),
        (["--midgame", "--bot", "a=ismcts,iterations=10", "--algorithms", "pimc"], "--midgame"),
        (["--midgame", "--games", "kuhn_poker", "--bot", "a=ismcts,iterashuns=10"], "unknown setting 'iterashuns'"),
        (["--midgame", "--games", "kuhn_poker", "--bot", "a=ismcts,time_ms=5"], "a: give iterations="),
    ],
)
def test_the_midgame_search_speed_refuses_bots_it_cannot_time(args, said):
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "search_speed.py"), *args],
        capture_output=True, text=True, timeout=60, check=False,
    )  # fmt: skip
    assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr


def test_search_profile_profiles_set_up_and_play_positions():
    report = _run(
        "search_profile.py", "--iterations", "200", "--games", "survive", "--players", "2", "--fractions", "0", "0.5"
    )
    first, later = report["positions"]
    assert first["step"] == 0 and first["legal_moves"] == 400
    assert first["decided_by"] == "greedy" and first["profiled_with"] == {"setup_algorithm": "same"}
    assert later["decided_by"] == "ismcts" and "profiled_with" not in later
    for entry in (first, later):
        assert entry["depths"][0]["share"] == 1.0 and entry["depths"][0]["mean_children"] > 1
        assert entry["max_depth"] >= 1


def test_search_profile_profiles_both_stages_of_a_refined_search(monkeypatch):
    # With refine the profiled tree is the second stage's, whose root holds the screen's best moves only: the
    # report says so and profiles the screen's tree as well (its root spans the legal moves).
    monkeypatch.syspath_prepend(str(BENCHMARKS))
    import search_profile

    state = bench.opening_decision("survive", 4)
    refined = search_profile.profile_position(state, 0, 400, 0, refine=3, refine_screen=200)
    assert refined["refine"] == {"moves": 3, "screen_iterations": 200}
    assert refined["depths"][0]["mean_children"] == 3
    assert refined["screen"]["depths"][0]["mean_children"] > 3
    plain = search_profile.profile_position(state, 0, 400, 0, refine=0)
    assert "refine" not in plain and "screen" not in plain


def test_decision_stability_compares_configurations_pairwise_without_references():
    configs = '{"a": {}, "same": {}, "other": {"iterations": 20}}'
    report = _run(
        "decision_stability.py", "--game", "islet", "--players", "2", "--positions", "3", "--seeds", "2",
        "--iterations", "200", "--configs", configs, "--reference-iterations", "0",
    )  # fmt: skip
    assert set(report["agreement"]) == {"a~a", "a~same", "a~other", "same~same", "same~other", "other~other"}
    for name, row in report["configs"].items():
        assert not any(key.startswith("agrees_") for key in row)  # no reference searches were run
        assert 0 < row["top_visit_share"] <= 1
        # with itself, over two seeds: agreeing at a position is a modal share of 1, else of 1/2
        assert report["agreement"][f"{name}~{name}"] == pytest.approx(2 * row["stability"] - 1, abs=0.003)
    # the same settings under the same seeds pick the same moves: of the four pairs of picks, the two that share a
    # seed always agree, the two that do not agree as its seeds do
    assert report["agreement"]["a~same"] == pytest.approx((1 + report["agreement"]["a~a"]) / 2, abs=0.003)
    assert report["configs"]["a"] == report["configs"]["same"]


def test_the_service_benchmark_measures_every_product_game_against_a_real_server():
    report = _run("service.py", "--calls", "3", "--clients", "2")
    assert set(report["suggest_overhead"]) == {"kuhn_poker", "leduc_poker", "survive", "islet", "small_islands"}
    for name, row in report["suggest_overhead"].items():
        assert row["calls"] == 3 and row["players"] == (2 if name.endswith("poker") else 4), name
        for budget in ("200_iterations", "5_ms"):
            assert 0 < row[budget]["overhead_ms_p50"] <= row[budget]["overhead_ms_p90"], (name, budget)
            # the server's handler is part of each call's time: call by call below it, so its median too
            assert 0 < row[budget]["handler_ms_p50"] < row[budget]["overhead_ms_p50"], (name, budget)
        # a time-budgeted search stops at its time, not before and not much after
        assert 5 <= row["5_ms"]["search_ms_p50"] < 50, name
    assert report["throughput"]["calls"] == report["throughput"]["ok"] == 2 * 25
    # a zero time would be no budget at all (the server's 1,000 iterations), measured under the name "0_ms"
    done = subprocess.run(
        [sys.executable, str(BENCHMARKS / "service.py"), "--time-ms", "0"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "--time-ms: expected at least 1, got 0" in done.stderr


def test_the_service_benchmark_times_each_part_of_suggest_in_process():
    report = _run("service.py", "--stages", "--calls", "3")["suggest_stages"]
    assert report["calls"] == 3 and report["iterations"] == 200
    assert set(report["p50"]) == {"kuhn_poker", "leduc_poker", "survive", "islet", "small_islands"}
    parts = {"decode_ms", "rebuild_state_ms", "settings_ms", "rank_ms", "belief_summary_ms", "response_ms", "log_ms"}
    for name, row in report["p50"].items():
        assert set(row) == parts | {"beyond_search_ms", "search_ms"}, name
        assert all(value > 0 for value in row.values()), (name, row)
        assert row["beyond_search_ms"] > max(row[part] for part in parts), (name, row)


@pytest.mark.parametrize(
    ("script", "args", "keys"),
    [
        ("speed.py", ["--seconds", "0.02", "--games", "survive"], {"machine", "games"}),
        ("search_speed.py", ["--seconds", "0.05", "--games", "small_islands"], {"small_islands"}),
        (
            "decision_stability.py",
            ["--positions", "1", "--seeds", "2", "--iterations", "50", "--reference-iterations", "100"],
            {"game", "configs"},
        ),
        ("phase_bias.py", ["--games", "1"], {"players", "heuristics"}),
        ("fit_tide.py", ["--games", "2", "--rounds", "1", "--players", "2", "--weights", "points"], {"fitted", "loss"}),
    ],
)
def test_the_benchmark_scripts_run_at_a_tiny_size(script, args, keys):
    assert keys <= set(_run(script, *args))


def test_the_level_5_head_to_head_reads_its_lost_groups_as_documented_and_its_record_after_them(tmp_path):
    # With no later games, the first 47 deal groups alone: the figures docs/benchmarks.md gave for them (2026-12-06,
    # commit 8efd659), so a wrong count in the script's table shows here.
    empty = tmp_path / "none.jsonl"
    empty.write_text("")
    alone = _run("records/level5_equal_time.py", str(empty))
    assert alone["deal_groups"] == 47 and alone["later_groups"] == 0
    assert alone["win_share"] == pytest.approx(0.254, abs=5e-4) and alone["llr"] == pytest.approx(-0.38, abs=5e-3)
    assert alone["elo"][0] == pytest.approx(4, abs=1) and alone["score_edge"] == pytest.approx([0.31, -0.18, 0.80])
    assert alone["first_verdict"] is None
    # The committed record: its groups follow deal 46 in a row and count in the SPRT.
    later = _run("records/level5_equal_time.py")
    assert later["later_groups"] >= 3 and later["deal_groups"] == 47 + later["later_groups"]
    assert later["llr"] != alone["llr"]


def test_the_hosting_load_benchmark_runs_its_whole_scenario_at_a_tiny_size():
    # Games with bots, watchers, the steady client and the flooder, a kill -9 half way and a restart: every part
    # reports and nothing acknowledged is lost. (Whether its latency targets are met is the benchmark's figure: a
    # busy machine may miss them, and this test must not fail for that.)
    report = _run("hosting_load.py", "--games", "8", "--watchers", "20", "--seconds", "6", "--client-nice", "0")
    assert report["health_ms"]["n"] > 0 and report["thinking_get_view_ms"]["n"] > 0
    assert report["calls"]["watchers"]["OK"] == 40  # twenty opened in each half
    assert report["lost_after_kill"] == {"games": 0, "moves": 0, "acknowledged_games": 8}
    assert report["calls"]["suggester"]["OK"] > 0 and report["calls"]["flooder"]["OK"] > 0
    assert set(report["targets"]) >= {"health_p99_under_50_ms", "no_acknowledged_move_lost", "suggester_not_starved"}
