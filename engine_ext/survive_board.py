"""Survive The Island: the board's geometry and the component tables, read from data/survive_board.json.

Plain Python, read once at import: ``survive_rules`` copies these tables into C arrays for the nogil rules, and
``survive`` uses the names and the cell parser for move text, JSON and observations.

Cells are the 143 hexes that are not Rescue Islands, numbered by (r, q) ascending; nodes 143..146 are the four Rescue
Islands (NW, NE, SW, SE), each one node adjacent to its landing spaces.
"""

from __future__ import annotations

import json
import re
from importlib import resources

NUM_CELLS = 143
FIRST_RESCUE = NUM_CELLS
NUM_NODES = NUM_CELLS + 4

RESCUE_NAMES = ("NW", "NE", "SW", "SE")
COLOUR_NAMES = ("red", "blue", "green", "yellow", "purple")
CREATURE_NAMES = ("serpent", "shark", "kaiju")
LAND_NAMES = ("beach", "forest", "mountain")
BACK_NAMES = ("shark", "kaiju", "raft", "whirlpool", "volcano", "paddles", "dolphin", "dive", "die", "repellent")
TERRAIN_LETTERS = "~bfmV"
PHASE_NAMES = (
    "setup_adventurers", "setup_rafts", "action", "rising_waters", "reveal", "summon", "rising_next",
    "creature_roll", "creature_move", "die_roll", "die_move", "end_turn", "over",
)  # fmt: skip

# Tile backs per land type (rulebook, "Tile Descriptions"), in BACK_NAMES order; rows beach, forest, mountain.
BACKS = (
    (3, 3, 1, 0, 0, 2, 3, 0, 2, 2),
    (3, 2, 3, 2, 0, 0, 1, 2, 2, 1),
    (0, 0, 0, 4, 4, 0, 0, 0, 0, 0),
)
SUPPLY = (5, 6, 2)  # creatures in the supply: serpents, sharks, kaijus
VALUES = (1, 1, 2, 2, 3, 3, 4, 4, 5, 5)  # treasure values of one colour's ten Adventurers

HEX_DIRECTIONS = ((1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1))


def _load():
    data = json.loads(resources.files("engine_ext").joinpath("data/survive_board.json").read_text())
    rescue_cells = {tuple(c) for cells in data["rescue_islands"].values() for c in cells}
    cells = sorted((tuple(c) for c in data["board_cells"] if tuple(c) not in rescue_cells), key=lambda c: (c[1], c[0]))
    if len(cells) != NUM_CELLS:
        raise RuntimeError(f"board data: expected {NUM_CELLS} cells outside the Rescue Islands, found {len(cells)}")
    index = {c: i for i, c in enumerate(cells)}
    neighbours = {i: [] for i in range(NUM_NODES)}
    for i, (q, r) in enumerate(cells):
        for dq, dr in HEX_DIRECTIONS:
            j = index.get((q + dq, r + dr))
            if j is not None:
                neighbours[i].append(j)
    for k, name in enumerate(RESCUE_NAMES):
        for c in data["landing_spaces"][name]:
            neighbours[FIRST_RESCUE + k].append(index[tuple(c)])
            neighbours[index[tuple(c)]].append(FIRST_RESCUE + k)
    for ns in neighbours.values():
        ns.sort()  # ascending, so moves come out in action-id order
    return data, cells, index, [tuple(neighbours[n]) for n in range(NUM_NODES)]


BOARD_DATA, CELLS, CELL_INDEX, NEIGHBOURS = _load()
SLOT_CELLS = tuple(CELL_INDEX[tuple(c)] for c in BOARD_DATA["island_slots"])  # the ``layout`` option's order
SERPENT_STARTS = tuple(CELL_INDEX[tuple(c)] for c in BOARD_DATA["serpent_starts"])


def _rescue_distances() -> tuple[int, ...]:
    """Steps from every node to the nearest Rescue Island, ignoring what stands between."""
    distance = {FIRST_RESCUE + k: 0 for k in range(len(RESCUE_NAMES))}
    frontier = list(distance)
    while frontier:
        node = frontier.pop(0)
        for n in NEIGHBOURS[node]:
            if n not in distance:
                distance[n] = distance[node] + 1
                frontier.append(n)
    return tuple(distance[n] for n in range(NUM_NODES))


RESCUE_DISTANCE = _rescue_distances()
NODE_NAMES = tuple([f"({q},{r})" for q, r in CELLS] + list(RESCUE_NAMES))
NODE_BY_NAME = {name: node for node, name in enumerate(NODE_NAMES)}
RESCUE_AT = {tuple(cell): name for name, cells in BOARD_DATA["rescue_islands"].items() for cell in cells}
_NODE_RE = re.compile(r"^(?:raft@)?(?:\((-?\d+),\s*(-?\d+)\)|(NW|NE|SW|SE))$", re.IGNORECASE)


def node_name(node: int) -> str:
    """``(q,r)`` for a board cell, ``NW``/``NE``/``SW``/``SE`` for a Rescue Island."""
    return NODE_NAMES[node]


def parse_node(text: str) -> int:
    """The node of ``(q,r)`` / ``raft@(q,r)`` / a Rescue Island name; ``ValueError`` if it is not on the board."""
    node = NODE_BY_NAME.get(text)
    if node is not None:
        return node
    match = _NODE_RE.match(text.strip())
    if match is None:
        raise ValueError(f"{text[:40]!r} is not a cell: write (q,r) or NW/NE/SW/SE")
    if match.group(3):
        return FIRST_RESCUE + RESCUE_NAMES.index(match.group(3).upper())
    cell = CELL_INDEX.get((int(match.group(1)), int(match.group(2))))
    if cell is None:
        raise ValueError(f"{text!r} is not on the board")
    return cell
