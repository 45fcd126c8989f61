"""Boards as SVG: drawn from one seat's observation alone, naming every cell the move grammar uses, the same bytes
for the same observation whatever the hidden facts of the other seats, and a clear error for what is not an
observation."""

import random
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import engine_ext
from engine_ext import core
from engine_ext import survive_board as board
from engine_ext.render import arrows_of, svg
from search import play

SVG = "{http://www.w3.org/2000/svg}"
CASES = [("survive", 2), ("survive", 4), ("islet", 2), ("islet", 3), ("islet_solo", 1), ("small_islands", 2),
         ("small_islands", 4)]  # fmt: skip
CELL = re.compile(r"\(-?\d+,-?\d+\)")


def positions(game: str, players: int, seed: int, every: int = 25):
    """States of one random game, every ``every`` steps, chance drawn from the seed."""
    state = play.new_game(game, players, seed)
    rng = random.Random(seed)
    step = 0
    while not state.is_terminal() and step < 400:
        if step % every == 0 and state.current_player() >= 0:
            yield state.clone()
        if state.current_player() < 0:
            state.apply(core.sample_chance(state, seed * 10_000 + step))
        else:
            state.apply(rng.choice(state.legal_actions()))
        step += 1


def labels(text: str) -> set[str]:
    root = ET.fromstring(text)  # well-formed XML, or this raises
    return {"".join(t.itertext()) for t in root.iter(f"{SVG}text")}


@pytest.mark.parametrize(("game", "players"), CASES)
def test_the_board_names_every_cell_the_seats_moves_name(game, players):
    for seed in (1, 2):
        for state in positions(game, players, seed):
            seat = state.current_player()
            shown = labels(svg(state.observation(seat)))
            named = {cell for a in state.legal_actions() for cell in CELL.findall(state.action_to_string(a))}
            assert named <= shown, f"{game} step: cells the moves name but the board does not: {named - shown}"
            if game == "survive":
                assert {f"({q},{r})" for q, r in board.CELLS} | set(board.RESCUE_NAMES) <= shown


@pytest.mark.parametrize(("game", "players"), [c for c in CASES if c[1] > 1])
def test_the_drawing_is_the_same_whatever_the_other_seats_hide(game, players):
    for state in positions(game, players, 3, every=40):
        seat = state.current_player()
        drawings = {svg(state.determinize(seat, seed=k).observation(seat)) for k in range(4)}
        assert drawings == {svg(state.observation(seat))}, "the other seats' hidden facts changed the drawing"
        # The drawing does depend on whose it is: another seat sees other things (its own hand, values).
        other = (seat + 1) % players
        assert svg(state.observation(other)) != svg(state.observation(seat))


def test_survive_shows_the_seats_own_values_and_the_others_as_unknown():
    state = next(s for s in positions("survive", 3, 4, every=60) if s.observation(0)["control"]["phase"] == "action")
    text = svg(state.observation(0))
    mine = [p for p in state.observation(0)["adventurers"][0] if p["status"] == "board"]
    others = [p for k in (1, 2) for p in state.observation(0)["adventurers"][k] if p["status"] == "board"]
    circles = labels(text)
    assert "?" in circles and all("value" not in p for p in others)
    assert {str(p["value"]) for p in mine} <= circles


def test_arrows_follow_a_moves_cells():
    assert arrows_of(["move red:1 (0,-3) (1,-3)", "sail (1,-3) NW"]) == [("(0,-3)", "(1,-3)"), ("(1,-3)", "NW")]
    state = next(positions("survive", 2, 5))
    plain, marked = svg(state.observation(0)), svg(state.observation(0), [("(0,-3)", "(1,-3)")])
    assert plain.count("<line") == 0 and marked.count("<line") == 1 and 'marker-end="url(#head)"' in marked


def test_what_is_not_an_observation_is_refused_by_name():
    with pytest.raises(ValueError, match="no board drawing for 'chess'"):
        svg({"game": "chess"})
    with pytest.raises(ValueError, match="no board drawing for 'kuhn_poker'"):
        svg(engine_ext.new_game("kuhn_poker", 2, 0).observation(0))
    broken = next(positions("islet", 2, 1)).observation(0)
    broken["bag_size"] = "many"
    with pytest.raises(ValueError, match="bag_size"):
        svg(broken)


def test_atoll_render_writes_the_svg_of_a_saved_observation(tmp_path):
    import json

    state = next(positions("small_islands", 3, 2))
    path = tmp_path / "view.json"
    path.write_text(json.dumps(state.observation(1)))
    out = tmp_path / "board.svg"
    bin_dir = Path(sys.executable).parent
    done = subprocess.run([bin_dir / "atoll", "render", str(path), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert out.read_text() == svg(state.observation(1))
    path.write_text('{"game": "survive", "seat": 0}')
    done = subprocess.run([bin_dir / "atoll", "render", str(path)], capture_output=True, text=True)
    assert done.returncode == 2 and done.stderr.startswith("atoll render:") and len(done.stderr.splitlines()) == 1
