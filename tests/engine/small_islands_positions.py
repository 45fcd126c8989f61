"""Small Islands positions for the rule tests, built as full-state JSON from their parts."""

import json

import engine_ext
from engine_ext.small_islands import COMPONENTS, ICON_CODES, ICONS

START = [
    ["s0", 0, "(0,0)", [{"icons": {"flower": 1, "house": 1}}]],
    ["s1", 0, "(1,0)", [{"icons": {"fruit": 1, "house": 1}}]],
    ["s2", 0, "(0,1)", [{"icons": {"leaf": 1, "house": 1}}]],
    ["s3", 0, "(1,1)", [{"icons": {"temple": 1, "house": 1}}]],
]
COLOURS = ("red", "blue", "green", "yellow")


def printed_icons(tile: int) -> list[dict]:
    """The regions of Landscape tile ``tile`` as the board JSON writes them."""
    out = []
    for region in COMPONENTS["landscape_tiles"][tile]["regions"]:
        icons = {}
        for code in region["icons"]:
            name = ICONS[ICON_CODES.index(code)]
            icons[name] = icons.get(name, 0) + 1
        out.append({"icons": icons})
    return out


def seat(
    hand=(),
    known=(),
    tokens=("flower", "fruit", "leaf", "wild"),
    houses_hand=4,
    houses_placed=0,
    pp=0,
    objective=None,
    next_objective=None,
    discovery=None,
    revealed=None,
    last_place=0,
):
    return {
        "hand": list(hand),
        "known": list(known),
        "tokens": list(tokens),
        "houses_hand": houses_hand,
        "houses_placed": houses_placed,
        "pp": pp,
        "objective": objective,
        "next_objective": next_objective,
        "discovery": dict(discovery or {}),
        "revealed": revealed,
        "last_place": last_place,
    }


def position(
    players=2,
    board=(),
    seats=None,
    display=(None, None, None),
    phase="turn",
    active=0,
    nav=0,
    deck=None,
    start_player=0,
    lander=None,
    round=1,
    harvest_left=0,
    final=False,
    turn=0,
    icons=None,
    houses=None,
    top=None,
    top_by=None,
    discarded=(),
    drawn=None,
    **control,
):
    """``board``: placements after the start island as (tile, turn, "(x,y)") with tile "t17" or "ship red";
    ``icons``: {board index: [region icon dicts]} overriding printed icons; ``houses``: {board index: [[per seat],
    ...]}; ``deck``: tiles left in the Landscape deck (the rest of the unseen tiles are the Navigation deck);
    ``drawn``: the active seat's fresh Objective draws (phases ``objective_draw`` and ``objective_keep``)."""
    seats = seats or [seat() for _ in range(players)]
    entries = json.loads(json.dumps(START))  # deep: the overrides below must not touch START
    ships = {}
    for tile, turn_, where in board:
        regions = [] if tile.startswith("ship") else printed_icons(int(tile[1:]))
        entries.append([tile, turn_, where, regions])
        if tile.startswith("ship"):
            ships[tile.split()[1]] = where
    for k, regions in (icons or {}).items():
        entries[k][3] = regions
    for k, per_region in (houses or {}).items():
        for r, counts in enumerate(per_region):
            if any(counts):
                entries[k][3][r] = dict(entries[k][3][r], houses=counts)
    used = {e[0] for e in entries} | {t for t in display if t} | set(discarded)
    held_objectives = set()
    out_seats = []
    for entry in seats:
        used |= set(entry["hand"])
        for card in (entry["objective"], entry["next_objective"]):
            if card:
                held_objectives.add(card)
        discovery = entry["discovery"]
        out_seats.append(
            {
                "hand_size": len(entry["hand"]),
                "known_hand": entry["known"],
                "tokens": entry["tokens"],
                "houses_hand": entry["houses_hand"],
                "houses_stock": 8 - entry["houses_hand"] - entry["houses_placed"],
                "houses_placed": entry["houses_placed"],
                "pp": entry["pp"],
                "discovery_count": sum(discovery.values()),
                "last_place": entry["last_place"],
                "revealed": entry["revealed"],
                "has_objective": entry["objective"] is not None,
                "has_next_objective": entry["next_objective"] is not None,
                "hand": entry["hand"],
                "objective": entry["objective"],
                "next_objective": entry["next_objective"],
                "discovery": discovery,
            }
        )
    pool = [f"t{t}" for t in range(56) if f"t{t}" not in used]
    deck_n = len(pool) - nav if deck is None else deck
    piles = {"7": 2, "6": 4, "5": 4, "4": 2}
    for entry in seats:
        for value, n in entry["discovery"].items():
            piles[value] -= n
    objective_deck = [f"O{k}" for k in range(1, 13) if f"O{k}" not in held_objectives and f"O{k}" not in (drawn or ())]
    data = {
        "game": "small_islands",
        "players": players,
        "control": {
            "phase": phase,
            "active": active,
            "start_player": start_player,
            "lander": lander,
            "round": round,
            "harvest_left": harvest_left,
            "final": final,
            "left": 0,
            "objective_seats_left": 0,
            "taken_slot": None,
            "discovery_left": 0,
            "turn": turn,
            "harvested": [],
            **control,
        },
        "board": entries,
        "display": list(display),
        "deck_size": deck_n,
        "navigation_size": nav,
        "ships": ships,
        "objective_deck_size": len(objective_deck),
        "objective_top_by": top_by,
        "discovery_pile_size": sum(piles.values()),
        "discovery_drawn_count": 0,
        "discarded": list(discarded),
        "pool": pool,
        "objective_deck": objective_deck,
        "objective_top": top,
        "discovery_pile": {k: v for k, v in piles.items() if v},
        "seats": out_seats,
    }
    if drawn is not None:
        data["drawn_objectives"] = list(drawn)
    return engine_ext.from_json(json.dumps(data))


def texts(state):
    return [state.action_to_string(a) for a in state.legal_actions()]


def play(state, *moves):
    for text in moves:
        state.apply(state.string_to_action(text))
    return state
