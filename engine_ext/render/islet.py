"""Islet's board as SVG, from one seat's observation: the triangular grid with every cell's coordinate as moves write
it (``@(x,y)``), each stack's top terrain, nest and height, eggs and pawns by seat colour, and a side panel in words
(the seat's own hand; the others' hand sizes only)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import engine_ext
from engine_ext.render.drawing import SEAT_COLOURS, SEAT_NAMES, Drawing, panel_header

SIDE = 56.0  # a triangle's side in pixels
HEIGHT = SIDE * math.sqrt(3) / 2
TERRAIN = {"water": "#5fa8d3", "sand": "#efd9a7", "clay": "#c97c4a"}
SEA = "#e3f2fa"
NESTS = {"leaves": "L", "branches": "B", "flowers": "F"}
PANEL = 260.0


def _corners(x: int, y: int, left: float, top: float) -> list[tuple[float, float]]:
    cx, cy = x * SIDE / 2 - left, y * HEIGHT - top
    if (x + y) & 1:  # points up
        return [(cx - SIDE / 2, cy + HEIGHT / 2), (cx + SIDE / 2, cy + HEIGHT / 2), (cx, cy - HEIGHT / 2)]
    return [(cx - SIDE / 2, cy - HEIGHT / 2), (cx + SIDE / 2, cy - HEIGHT / 2), (cx, cy + HEIGHT / 2)]


def _centre(x: int, y: int, left: float, top: float) -> tuple[float, float]:
    shift = HEIGHT / 6 if (x + y) & 1 else -HEIGHT / 6  # the centroid sits low in an up triangle
    return x * SIDE / 2 - left, y * HEIGHT - top + shift


def draw(observation: dict, arrows: Sequence[tuple[str, str]] = ()) -> str:
    game, seat = observation["game"], observation["seat"]
    cells = engine_ext.from_observation(game, observation).cells()
    if not cells:  # before the first tile: an empty sea
        cells = [{"cell": "(0,0)", "x": 0, "y": 0, "height": 0, "top": None, "egg": None, "pawns": [], "islet": None}]
    left = min(c["x"] for c in cells) * SIDE / 2 - SIDE
    top = min(c["y"] for c in cells) * HEIGHT - HEIGHT
    width = max(c["x"] for c in cells) * SIDE / 2 - left + SIDE
    height = max(c["y"] for c in cells) * HEIGHT - top + HEIGHT
    title = "Islet (solo)" if game == "islet_solo" else "Islet"
    d = Drawing(width + PANEL, max(height, 420.0), f"{title}, seat {seat} ({SEAT_NAMES[seat]})")
    d.rect(0, 0, width, height, "#f7fbfd")
    where = {}
    for c in sorted(cells, key=lambda c: (c["y"], c["x"])):
        x, y = c["x"], c["y"]
        cx, cy = _centre(x, y, left, top)
        where[c["cell"]] = (cx, cy)
        if not c["height"]:
            d.polygon(_corners(x, y, left, top), SEA, "#9cc5dc", stroke_dasharray="3,2", data_cell=c["cell"])
            d.label(cx, cy, c["cell"], 8, fill="#5b7f95")
            continue
        terrain, nest = c["top"].split("/")
        d.polygon(_corners(x, y, left, top), TERRAIN[terrain], "#3d3d3d", data_cell=c["cell"])
        d.label(cx, cy - 8, f"{NESTS[nest]}{c['height']}", 11, font_weight="bold")
        d.label(cx, cy + 6, c["cell"], 8, fill="#222")
        if c["egg"] is not None:
            d.add(f'<ellipse cx="{cx + 13:.1f}" cy="{cy - 9:.1f}" rx="4.5" ry="6" fill="{SEAT_COLOURS[c["egg"]]}" '
                  'stroke="#111" stroke-width="0.8"/>')  # fmt: skip
        for k, pawn in enumerate(c["pawns"]):
            d.circle(cx - 13 + 7 * k, cy - 9, 4.2, SEAT_COLOURS[pawn], "#fff", stroke_width="1")
    for start, end in arrows:
        if start in where and end in where:
            d.arrow(where[start], where[end])
    _panel(d, observation, width + 12)
    return d.text()


def _panel(d: Drawing, observation: dict, x: float) -> None:
    seat, control = observation["seat"], observation["control"]
    progress = f"Round {control['round']}, phase {control['phase'].replace('_', ' ')}"
    y = panel_header(d, x, observation, SEAT_NAMES[seat], progress)
    y = d.legend(x, y + 6, [
        *(("box", colour, f"{name} (top tile)") for name, colour in TERRAIN.items()),
        ("box", SEA, "sea: a cell a tile may go to"),
        *(("text", letter, f"{nest} nest; the digit: stack height") for nest, letter in NESTS.items()),
        *(("dot", SEAT_COLOURS[k], f"seat {k}: egg (oval), pawn (dot)") for k in range(observation["players"])),
    ])  # fmt: skip
    me = observation["seats"][seat]

    def listed(counts: dict) -> str:
        return ", ".join(f"{name} {n}" for name, n in sorted(counts.items()) if n) or "none"

    texts = [f"Your hand: {listed(me.get('hand', {}))}", f"Your cards: {listed(me['cards'])}",
             f"Guaranteed: {listed(me['guaranteed'])}", f"Free eggs {me['free_eggs']}, laid {me['laid']}"]  # fmt: skip
    texts += [f"seat {k}: {s['hand_size']} tiles in hand (hidden), laid {s['laid']}"
              for k, s in enumerate(observation["seats"]) if k != seat]  # fmt: skip
    texts.append(f"Bag: {observation['bag_size']} tiles; stacks: {listed(observation['stacks'])}")
    if "cards" in observation:
        for side, names in observation["cards"].items():
            texts.append(f"{side} cards: {', '.join(str(n) for n in names if n) or 'none'}")
    d.lines(x, y + 8, texts, 9, width=48)
