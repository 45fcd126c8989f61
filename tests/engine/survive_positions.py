"""Build Survive positions for rule tests: name only what matters, everything else is empty water or eliminated."""

import json

from engine_ext import survive, survive_board

VALUES = [1, 1, 2, 2, 3, 3, 4, 4, 5, 5]
COLOURS = ("red", "blue", "green", "yellow", "purple")


def cell(q: int, r: int) -> str:
    return f"({q},{r})"


def position(
    players: int = 2,
    *,
    tiles: dict | None = None,
    adventurers: dict | None = None,
    rescued: dict | None = None,
    rafts: tuple = (),
    creatures: dict | None = None,
    held: dict | None = None,
    revealed: dict | None = None,
    hourglass: str = "beach_forest",
    **control,
) -> survive.SurviveState:
    """``tiles``: {cell: 'b'|'f'|'m'|'V'}; ``adventurers``: {colour: [(cell, value, aboard, swum), ...]};
    ``rescued``: {colour: [(island, value), ...]}; ``creatures``: {kind: [cells]};
    ``held``: {seat: {"beach:dolphin": n}}; remaining keyword arguments override the control block
    (phase, active, moves_left, ...)."""
    colours = 4 if players == 2 else players
    index = survive_board.CELL_INDEX
    terrain = ["~"] * len(survive_board.CELLS)
    for name, letter in (tiles or {}).items():
        terrain[survive.parse_node(name)] = letter
    entries = []
    for colour in COLOURS[:colours]:
        left = list(VALUES)
        listed = []
        for c, value, *flags in (adventurers or {}).get(colour, []):
            aboard = bool(flags[0]) if flags else False
            swum = bool(flags[1]) if len(flags) > 1 else False
            left.remove(value)
            listed.append({"status": "board", "cell": c, "aboard": aboard, "swum": swum, "value": value})
        for island, value in (rescued or {}).get(colour, []):
            left.remove(value)
            listed.append({"status": "rescued", "cell": island, "aboard": False, "swum": False, "value": value})
        listed += [{"status": "eliminated", "cell": None, "aboard": False, "swum": False, "value": v} for v in left]
        entries.append(listed)
    held_rows = []
    for seat in range(players):
        rows = {
            "beach": {"paddles": 0, "dolphin": 0, "die": 0, "repellent": 0},
            "forest": {"dolphin": 0, "dive": 0, "die": 0, "repellent": 0},
        }
        for key, n in (held or {}).get(seat, {}).items():
            land, ability = key.split(":")
            rows[land][ability] = n
        held_rows.append(rows)
    face_up = {
        "beach": {b: 0 for b in ("shark", "kaiju", "raft", "paddles", "dolphin", "die", "repellent")},
        "forest": {b: 0 for b in ("shark", "kaiju", "raft", "whirlpool", "dolphin", "dive", "die", "repellent")},
        "mountain": {"whirlpool": 0, "volcano": 0},
    }
    for key, n in (revealed or {}).items():
        land, back = key.split(":")
        face_up[land][back] = n
    ctrl = {
        "phase": "action",
        "active": 0,
        "turn": 1,
        "setup_count": 0,
        "moves_left": 3,
        "rising_left": 0,
        "volcanoes": sum(1 for v in (tiles or {}).values() if v == "V"),
        "die": "serpent",
        "effect_cell": None,
        "effect_land": "beach",
        "summon": "shark",
        "reaction": None,
        "kaiju_resolving": [],
        "continuation": None,
    }
    ctrl.update(control)
    data = {
        "game": "survive",
        "players": players,
        "options": {"hourglass": hourglass},
        "control": ctrl,
        "terrain": "".join(terrain),
        "rafts": list(rafts),
        "creatures": {k: list((creatures or {}).get(k, [])) for k in ("serpent", "shark", "kaiju")},
        "revealed": face_up,
        "adventurers": entries,
        "held": held_rows,
    }
    assert index  # the board is loaded
    return survive.from_json(json.dumps(data))


def apply(state, *moves: str):
    for move in moves:
        state.apply(state.string_to_action(move))
    return state


def legal_texts(state) -> set[str]:
    return {state.action_to_string(a) for a in state.legal_actions()}


def where(state, colour: str) -> list[dict]:
    """The colour's adventurers (status, cell, aboard, value) from the full state."""
    data = json.loads(state.to_json())
    return [e for e in data["adventurers"][COLOURS.index(colour)] if e["status"] != "eliminated"]


def on_board(state, colour: str) -> list[tuple]:
    return sorted((e["cell"], e["value"], e["aboard"]) for e in where(state, colour) if e["status"] == "board")


def creatures(state) -> dict:
    return json.loads(state.to_json())["creatures"]


def rafts(state) -> list[str]:
    return json.loads(state.to_json())["rafts"]
