"""Islet positions for the rule tests, built as full-state JSON (so every count stays consistent by construction)."""

import collections
import json

import engine_ext
from engine_ext.islet import RESOURCES, TILE_TYPES

START = ["(-1,0)", "(0,0)", "(1,0)", "(-1,1)", "(0,1)", "(1,1)"]
SOLO_START = START + ["(9,0)", "(10,0)", "(11,0)", "(9,1)", "(10,1)", "(11,1)"]
EGGS = {1: 10, 2: 10, 3: 8, 4: 6}


def _nonzero(counts):
    return {k: v for k, v in counts.items() if v}


def seat(hand=None, cards=None, guaranteed=None, used=None, laid=0, pawn="sea", free_eggs=None):
    return {
        "hand": dict(hand or {}),
        "cards": dict(cards or {}),
        "guaranteed": dict(guaranteed or {}),
        "used": dict(used or {}),
        "laid": laid,
        "pawn": pawn,
        "free_eggs": free_eggs,
    }


def position(
    start=None,
    placed=(),
    seats=None,
    players=2,
    phase="turn",
    active=0,
    round=1,
    final_round=None,
    solo=False,
    eggs=10,
    egg_cells=(),
    cards=None,
    deck=None,
    removed=None,
    **control,
):
    """A state from its parts: ``start`` the start islet's tile types (6, solo 12), ``placed`` further [cell, type]
    placements in order, ``seats`` from ``seat()``, ``egg_cells`` [cell, owner] pairs. Stacks and the bag hold the
    rest; free eggs default to what is left."""
    if solo:
        players = 1
    cells = SOLO_START if solo else START
    start = list(start or ["sand/leaves"] * 6 + ["clay/branches"] * (len(cells) - 6))
    tiles = [[cells[k], start[k]] for k in range(len(cells))] + [list(p) for p in placed]
    seats = seats or [seat() for _ in range(players)]
    eggs_each = eggs if solo else EGGS[players]
    used = collections.Counter(t for _, t in tiles)
    stacks = collections.Counter({r: 12 for r in RESOURCES})
    out_seats = []
    for entry in seats:
        entry = dict(entry)
        for t, n in entry["hand"].items():
            used[t] += n
        for r in RESOURCES:
            stacks[r] -= entry["cards"].get(r, 0) + entry["guaranteed"].get(r, 0)
        if entry["free_eggs"] is None:
            entry["free_eggs"] = eggs_each - sum(entry["guaranteed"].values()) - entry["laid"]
        entry["hand_size"] = sum(entry["hand"].values())
        for key in ("hand", "cards", "guaranteed", "used"):
            entry[key] = _nonzero(entry[key])
        out_seats.append(entry)
    for t, n in (removed or {}).items():
        used[t] += n
    bag = {t: 10 - used[t] for t in TILE_TYPES}
    pawn = seats[active]["pawn"]
    data = {
        "game": "islet_solo" if solo else "islet",
        "players": players,
        "control": {
            "phase": phase,
            "active": active,
            "round": round,
            "final_round": final_round,
            "left": 0,
            "placed": 0,
            "last_cell": None,
            "steps": 0,
            "visited": [pawn] if pawn != "sea" and phase in ("turn", "move") else [],
            "refill_islet": 0,
            "won": None,
        },
        "tiles": tiles,
        "eggs": [list(e) for e in egg_cells],
        "stacks": dict(stacks),
        "bag": _nonzero(bag),
        "seats": out_seats,
    }
    data["control"].update(control)
    if solo:
        data["options"] = {"eggs": eggs}
        data["removed"] = _nonzero(dict(removed or {}))
        data["cards"] = cards or {"day": [1, 2], "night": [3, 4]}
        shown = set(data["cards"]["day"] + data["cards"]["night"])
        data["deck"] = deck if deck is not None else [k for k in range(1, 14) if k not in shown]
    # from_json needs the eggs in cell order, which only the engine knows: load, then re-read its own text.
    state = engine_ext.from_json(json.dumps(_reordered(data)))
    return state


def _reordered(data):
    """The eggs listed in the order the engine writes them (its cell order), found by loading once without eggs."""
    if not data["eggs"]:
        return data
    bare = dict(data, eggs=[])
    bare_seats = [dict(s, laid=0, free_eggs=s["free_eggs"] + s["laid"]) for s in data["seats"]]
    probe = engine_ext.from_json(json.dumps(dict(bare, seats=bare_seats)))
    order = [c["cell"] for c in probe.cells()]
    return dict(data, eggs=sorted(data["eggs"], key=lambda e: order.index(e[0])))


def texts(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def play(state, *moves):
    for text in moves:
        state.apply(state.string_to_action(text))
    return state


def obs(state, seat=0):
    return state.observation(seat)
