"""``atoll play`` as a person meets it, in a real terminal (tmux): each game's board with the coordinates its moves
are written in, a legend, the seat's own facts in words and once, grouped moves, per-game help, hints that mark their
sampled draws, and "not legal here" with the legal alternatives for a well-formed move that is not."""

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

BIN = Path(sys.executable).parent
GAMES = {  # game: (arguments, what the board must show)
    "survive": (["--players", "2"], ["r=-3", "q-1", "terrain ~ sea", "your abilities:"]),
    "islet": (["--players", "3"], ["legend:", "your hand:"]),
    "islet_solo": ([], ["legend:", "day cards", "your hand:"]),
    "small_islands": (["--players", "2"], ["legend:", "your hand:", "display:"]),
}


def tmux(*args: str) -> str:
    return subprocess.run(["tmux", *args], capture_output=True, text=True, check=True).stdout


@pytest.fixture
def terminal():
    if shutil.which("tmux") is None:
        pytest.skip("no tmux on this machine (Debian's tmux)")
    name = f"atoll-play-{time.monotonic_ns()}"
    yield name
    subprocess.run(["tmux", "kill-session", "-t", name], capture_output=True)


def screen_after(pane: str, keys: list[str], wait_for: str, timeout: float = 60.0) -> str:
    for key in keys:
        tmux("send-keys", "-t", pane, key, "Enter")
        time.sleep(0.3)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        shown = tmux("capture-pane", "-p", "-J", "-S", "-400", "-t", pane)
        if wait_for in shown:
            return shown
        time.sleep(0.2)
    raise AssertionError(f"{wait_for!r} did not appear:\n{shown}")


@pytest.mark.parametrize("game", GAMES)
def test_a_person_reads_the_board_moves_help_and_hints(terminal, game):
    args, shows = GAMES[game]
    command = " ".join([str(BIN / "atoll"), "play", game, "--seed", "3", "--iterations", "40", *args])
    tmux("new-session", "-d", "-s", terminal, "-x", "200", "-y", "300", command)
    first = screen_after(terminal, [], "> ")
    for expected in shows:
        assert expected in first, f"{game}: {expected!r} is not on the screen"
    for python in ("{'", "[{", "None", "': "):
        assert python not in first, f"{game}: a Python repr ({python!r}) on the screen"
    assert first.count("your hand:") <= 1, f"{game}: the hand is printed twice"
    shown = screen_after(terminal, ["help", "moves", "hint"], "visits)")
    help_line = next(line for line in shown.splitlines() if "<move text>" in line)
    assert "now, e.g." in help_line and "red:5 (2,-1)->(3,-1)" not in help_line.replace("survive", "")
    shown = screen_after(terminal, ["move me (99,99)", "start @(40,40)"], "not a")
    assert "Traceback" not in shown


def test_a_well_formed_move_that_is_not_legal_is_told_so_with_the_legal_ones(terminal):
    command = " ".join([str(BIN / "atoll"), "play", "islet_solo", "--seed", "3", "--iterations", "40"])
    tmux("new-session", "-d", "-s", terminal, "-x", "200", "-y", "300", command)
    screen_after(terminal, [], "> ")
    shown = screen_after(terminal, ["start @(5,0)"], "not legal here")
    assert "the legal `start` moves: start @(" in shown
