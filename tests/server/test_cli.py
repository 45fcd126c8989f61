"""The ``atoll`` command line as a newcomer meets it: play, suggest, games."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from google.protobuf import json_format

import engine_ext
from server import codec

BIN = str(Path(sys.executable).parent)


def atoll(*args: str, stdin: str = "") -> subprocess.CompletedProcess:
    return subprocess.run(["atoll", *args], input=stdin, capture_output=True, text=True, timeout=120, env={"PATH": BIN})


def test_play_has_help_says_when_moves_are_cut_and_points_errors_to_moves():
    out = atoll(
        "play", "survive", "--players", "2", "--iterations", "20", "--seed", "1", stdin="help\nmoves\nfly\nquit\n"
    )
    assert out.returncode == 0, out.stderr
    assert "moves         the legal moves" in out.stdout
    assert "[cell]" in out.stdout and "cell: (" in out.stdout  # 400 placements as a few grouped lines
    assert "'fly' is not a move of this game; `moves` lists the legal ones" in out.stdout
    assert "legal_actions()" not in out.stdout


def test_play_shows_private_facts_readably_and_end_of_input_exits_cleanly():
    out = atoll("play", "kuhn_poker", "--iterations", "20", "--seed", "3", stdin="")
    assert out.returncode == 0, out.stderr
    assert "your card:" in out.stdout and "{" not in out.stdout.split("your card:")[1].splitlines()[0]


def test_play_never_prints_another_seats_card():
    out = atoll("play", "kuhn_poker", "--iterations", "20", "--seed", "4", stdin="Pass\nPass\nPass\n")
    dealt = [line for line in out.stdout.splitlines() if "chance:" in line]
    assert dealt[0].strip().startswith("chance: Deal:") and dealt[1].strip() == "chance: Deal:?"


def test_suggest_reads_the_json_that_get_view_returns(tmp_path):
    state = engine_ext.new_game("kuhn_poker", 2)
    state.apply(2)
    state.apply(0)
    view = {
        "gameId": "g",
        "seat": 0,
        "observation": json_format.MessageToDict(codec.observation_to_proto(state.observation(0))),
    }
    path = tmp_path / "view.json"
    path.write_text(json.dumps(view))
    out = atoll("suggest", str(path), "--iterations", "200")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["moves"][0]["text"] in ("Pass", "Bet")


def test_suggest_gives_one_line_errors_for_bad_input(tmp_path):
    cases = {"bad.json": "{not json", "list.json": "[1, 2]", "empty.json": "{}"}
    for name, text in cases.items():
        (tmp_path / name).write_text(text)
    for name in [*cases, "missing.json"]:
        out = atoll("suggest", str(tmp_path / name))
        assert out.returncode == 2 and out.stdout == "", name
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr, out.stderr
        assert out.stderr.startswith("atoll suggest:")


def test_games_lists_every_registered_game_with_its_options():
    out = atoll("games")
    for name in engine_ext.GAMES:
        assert f"{name}: " in out.stdout
    # Options as a user types them (the flags of play and bench strength), defaults in words: no Python reprs.
    assert "--hourglass beach_forest|beach" in out.stdout and "; default beach_forest" in out.stdout
    assert "--eggs 10|6" in out.stdout and "--layout LETTERS" in out.stdout
    assert "None" not in out.stdout and "'" not in out.stdout.replace("'s ", "")


def test_the_speed_and_metrics_reports_show_their_steps_on_stderr_and_json_on_stdout(tmp_path):
    out = atoll("bench", "speed", "--games", "kuhn_poker", "leduc_poker", "--seconds", "0.02", "--no-openspiel")
    assert out.returncode == 0, out.stderr
    assert set(json.loads(out.stdout)["engines"]) == {"kuhn_poker", "leduc_poker"}
    steps = out.stderr.splitlines()
    assert [line.split(" s  ", 1)[1] for line in steps] == [
        "[1/4] kuhn_poker: engine speed", "[2/4] kuhn_poker: search speed",
        "[3/4] leduc_poker: engine speed", "[4/4] leduc_poker: search speed",
    ]  # fmt: skip
    out = atoll("bench", "metrics", "--games", "kuhn_poker", "--games-per-count", "3", "--greedy-deals", "0", "--quiet")
    assert out.returncode == 0 and out.stderr == "" and set(json.loads(out.stdout)) == {"kuhn_poker"}


def test_the_speed_plot_slants_its_game_names(tmp_path):
    pytest.importorskip("matplotlib")
    from search import bench

    report = json.loads(
        atoll(
            "bench", "speed", "--seconds", "0.02", "--no-openspiel", "--quiet", "--plot", str(tmp_path / "s.png")
        ).stdout
    )
    assert (tmp_path / "s.png").stat().st_size > 0
    shown = []
    bench.plot_speed(report, tmp_path / "again.png", shown.append)
    for axes in shown[0].axes:
        labels = axes.get_xticklabels()
        assert [label.get_text() for label in labels] == list(report["engines"])
        assert all(label.get_rotation() == 30 and label.get_horizontalalignment() == "right" for label in labels)


def test_a_multi_player_strength_run_without_the_bench_extra_says_so_and_still_summarises(tmp_path):
    # A make-run environment has no bench extra: the run warns at its start and its summary says what is missing.
    script = (
        "import sys; sys.modules['openskill'] = None; from server.cli import main; "
        f"sys.exit(main(['bench', 'strength', '--game', 'kuhn_poker', '--players', '3', '--bot', 'r=random', "
        f"'--bot', 'g=greedy', '--lineup', 'g,r,r', '--deals', '2', '--workers', '1', '--quiet', "
        f"'--summary', {str(tmp_path / 's.json')!r}]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "OpenSkill ratings need the bench extra" in done.stderr and "make bench" in done.stderr
    summary = json.loads((tmp_path / "s.json").read_text())
    assert "bench extra" in summary["openskill"]["missing"] and summary["matches"]["g,r,r"]["deal_groups"] == 2


def test_bench_strength_takes_game_options_as_flags(tmp_path):
    out = tmp_path / "solo.jsonl"
    done = atoll(
        "bench", "strength", "--game", "islet_solo", "--players", "1", "--bot", "r=random", "--lineup", "r",
        "--deals", "1", "--workers", "1", "--eggs", "6", "--out", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text().splitlines()[0])["options"] == {"eggs": 6}
    refused = atoll("bench", "strength", "--game", "islet", "--bot", "r=random", "--deals", "1", "--eggs", "6")
    assert refused.returncode == 2 and "islet has no option 'eggs'" in refused.stderr


def test_play_islet_solo_takes_its_egg_option_and_draws_the_cards():
    out = atoll("play", "islet_solo", "--eggs", "6", "--seed", "2", "--iterations", "20", stdin="moves\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "Islet (solo), 1 player;" in out.stdout and "free eggs 6" in out.stdout
    assert "day cards (islet 1):" in out.stdout and "start @[cell]  cell: (" in out.stdout


def test_play_refuses_an_option_of_another_game_and_a_bad_value():
    out = atoll("play", "islet", "--eggs", "6", stdin="")
    assert out.returncode == 2 and "islet has no option 'eggs'" in out.stderr
    out = atoll("play", "islet_solo", "--eggs", "7", stdin="")
    assert out.returncode == 2 and "must be one of 10, 6" in out.stderr


def test_play_islet_against_bots_shows_only_own_hand():
    out = atoll("play", "islet", "--players", "3", "--seed", "5", "--iterations", "20", stdin="board\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "your hand:" in out.stdout and "chance: draw a tile" in out.stdout


def test_play_small_islands_shows_the_display_hand_and_objectives():
    out = atoll("play", "small_islands", "--players", "3", "--seed", "7", "--iterations", "20", stdin="moves\nquit\n")
    assert out.returncode == 0, out.stderr
    assert "display: 1:" in out.stdout and "your hand:" in out.stdout and "keep O" in out.stdout
    assert "chance: deal a tile" in out.stdout


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the command's CPU time from /proc")
@pytest.mark.parametrize(("signum", "word", "code"), [(2, "interrupted", 130), (15, "terminated", 143)])
def test_ctrl_c_or_sigterm_ends_a_command_with_one_line_and_its_exit_code(signum, word, code):
    import os
    import signal
    import time

    def as_from_a_terminal() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)  # a background child of a script starts with SIGINT ignored
        os.setpgrp()

    command = ["atoll", "bench", "metrics", "--games", "islet", "--games-per-count", "100000", "--greedy-deals", "0",
               "--quiet"]  # fmt: skip
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env={"PATH": BIN},
                            preexec_fn=as_from_a_terminal)  # fmt: skip
    # Past its imports, within its random games (which take far longer): two seconds of CPU, however slow the machine.
    ticks = 2 * os.sysconf("SC_CLK_TCK")
    deadline = time.time() + 60
    while time.time() < deadline and sum(map(int, Path(f"/proc/{proc.pid}/stat").read_text().split()[13:15])) < ticks:
        time.sleep(0.1)
    os.killpg(proc.pid, signum)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == code and err.decode().strip() == f"atoll: {word}", err.decode()


def test_main_runs_from_a_thread_other_than_the_main_one(capsys):
    # Python takes signal handlers on its main thread only: an embedding program's worker thread gets the command
    # without the SIGTERM handler, and the main thread's handler stays as it was.
    import signal
    import threading

    from server.cli import main

    before = signal.getsignal(signal.SIGTERM)
    codes, errors = [], []

    def run() -> None:
        try:
            codes.append(main(["games"]))
        except BaseException as err:  # noqa: BLE001 - the test reports whatever the thread raised
            errors.append(err)

    worker = threading.Thread(target=run)
    worker.start()
    worker.join(60)
    assert not errors and codes == [0]
    assert "survive" in capsys.readouterr().out
    assert signal.getsignal(signal.SIGTERM) is before


def test_bench_strength_writes_into_a_missing_folder_and_refuses_bad_counts_and_paths(tmp_path):
    # The README's commands write to runs/, which a fresh clone does not have.
    base = ["bench", "strength", "--game", "islet", "--bot", "a=greedy", "--bot", "b=random", "--quiet"]
    out = tmp_path / "runs" / "ab.jsonl"
    done = atoll(*base, "--deals", "1", "--out", str(out), "--summary", str(tmp_path / "sums" / "ab.json"))
    assert done.returncode == 0, done.stderr
    assert len(out.read_text().splitlines()) == 2 and json.loads((tmp_path / "sums" / "ab.json").read_text())["games"]
    refused = [
        (["--deals", "0"], "argument --deals: expected at least 1, got 0"),
        (["--workers", "0"], "argument --workers: expected at least 1, got 0"),
        (["--deals", "many"], "argument --deals: expected a whole number, got 'many'"),
        (["--out", str(tmp_path)], f"argument --out: {tmp_path} is a folder; name a file in it"),
        (["--plot", str(out / "x.png")], "argument --plot: cannot create the folder"),
        (["--plot", str(tmp_path / "p.png"), "--against", "c"], "--against 'c' is not one of the --bot names (a, b)"),
        (["--bot", "a=ismcts"], "--bot names must differ; given more than once: a"),
        (["--bot", "c=ismcts,iterations=-4"], "configuration 'c': iterations: expected at least 1, got -4"),
        (["--bot", "c=ismcts,heuristic=nosuch"], "configuration 'c': heuristic: islet offers"),
        (["--bot", "c=ismcts,exploration=abc"], "'c=ismcts,exploration=abc': exploration is a number, not 'abc'"),
        (["--seed", "-1"], "argument --seed: expected at least 0, got -1"),
    ]
    for extra, message in refused:
        done = atoll(*base, *extra)
        assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_bench_strength_refuses_an_out_file_it_cannot_continue_and_leaves_it_as_it_was(tmp_path):
    base = ["bench", "strength", "--quiet", "--deals", "1"]
    bots = ["--game", "kuhn_poker", "--bot", "a=random", "--bot", "b=random"]
    kept = tmp_path / "kuhn.jsonl"
    assert atoll(*base, *bots, "--out", str(kept)).returncode == 0
    played = kept.read_bytes()
    summary = tmp_path / "summary.json"
    summary.write_text(json.dumps({"games": 2, "configs": {"a": {}}}, indent=2) + "\n")  # a summary, not records
    other = tmp_path / "other.jsonl"
    other.write_text('{"seed": 1}\n')  # JSON lines of something else
    refused = [
        (
            kept,
            ["--game", "leduc_poker", "--bot", "a=random", "--bot", "b=random"],
            "kuhn.jsonl:1 is a kuhn_poker game",
        ),
        (
            kept,
            ["--game", "kuhn_poker", "--bot", "a=random", "--bot", "b=ismcts"],
            "kuhn.jsonl:1: configuration 'b' was",
        ),
        (summary, bots, "summary.json:1 is not an arena game record"),
        (other, bots, "other.jsonl:1 is not an arena game record"),
    ]
    for path, extra, message in refused:
        before = path.read_bytes()
        done = atoll(*base, *extra, "--out", str(path))
        assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
        assert f"atoll bench strength: --out: {path}" in done.stderr and message in done.stderr, done.stderr
        assert path.read_bytes() == before
    # the same tournament resumes it: nothing left to play
    assert atoll(*base, *bots, "--out", str(kept)).returncode == 0 and kept.read_bytes() == played


def test_bench_strength_names_a_game_that_raises_and_says_what_was_kept(tmp_path, monkeypatch, capsys):
    from search import arena
    from server.cli import main

    def run(tournament, path, executor, **_):
        path.write_text("")
        job = next(iter(tournament.jobs()))
        try:
            raise ZeroDivisionError("float division by zero")
        except ZeroDivisionError as err:
            raise arena.GameFailedError(job, err) from err

    monkeypatch.setattr(arena, "run", run)
    out = tmp_path / "ab.jsonl"
    base = ["bench", "strength", "--game", "islet", "--bot", "a=greedy", "--bot", "b=random", "--quiet"]
    assert main([*base, "--deals", "1", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert "Traceback" in err and "ZeroDivisionError: float division by zero" in err  # the bug's own traceback
    assert (
        "a game failed (islet, match a,b, deal 0, seats a,b, seed " in err
        and f"(0 games are in {out}; once mended" in err
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["serve", "--port", "99999"], "argument --port: expected 0 to 65535, got 99999"),  # grpc would wrap it
        (["serve", "--port", "-1"], "argument --port: expected 0 to 65535, got -1"),
        (["serve", "--max-searches", "0"], "argument --max-searches: expected at least 1, got 0"),
        (["serve", "--kept-trees-mb", "-1"], "argument --kept-trees-mb: expected a number from 0, got -1"),
        (["serve", "--lease", "nan"], "argument --lease: expected a number above 0, got nan"),
        (["serve", "--lease", "0.1"], "atoll serve: lease: expected 0.5 to 600 seconds, got 0.1"),
        (["play", "survive", "--iterations", "0"], "argument --iterations: expected at least 1, got 0"),
        (["suggest", "-", "--time-ms", "nan"], "argument --time-ms: expected a number above 0, got nan"),
        (["suggest", "-", "--top-k", "0"], "argument --top-k: expected at least 1, got 0"),
        (["bench", "speed", "--seconds", "0"], "argument --seconds: expected a number above 0, got 0"),
        (["bench", "speed", "--games", "chess"], "argument --games: invalid choice: 'chess'"),
        (["bench", "metrics", "--games", "chess"], "argument --games: invalid choice: 'chess'"),
    ],
)
def test_a_bad_number_or_name_on_the_command_line_is_a_usage_error(args, message):
    done = atoll(*args)
    assert done.returncode == 2 and message in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_a_ray_address_without_a_cluster_is_one_line_on_stderr():
    base = ["bench", "strength", "--game", "islet", "--bot", "a=greedy", "--bot", "b=random", "--deals", "1"]
    done = atoll(*base, "--ray", "local:0")
    assert done.returncode == 2 and "--ray: a local Ray cluster takes local:N with N CPUs, at least 1" in done.stderr
    pytest.importorskip("ray")
    done = atoll(*base, "--ray", "auto")  # no cluster runs here
    assert done.returncode == 2 and "--ray: no Ray cluster at 'auto'" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr
