"""Survive The Island's board as SVG, from one seat's observation: every hex with its coordinate as moves write it
(``(q,r)``, Rescue Islands by name), terrain, Rafts, creatures, Adventurers by colour, the seat's own treasure values
(the others' are hidden and drawn as ``?``), and a side panel in words."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Sequence

from engine_ext import survive_board as board
from engine_ext.render.drawing import SEAT_COLOURS, SEAT_NAMES, Drawing, panel_header

SIZE = 21.0  # hex radius in pixels
TERRAIN = {"~": ("#a9d6e5", "sea"), "b": ("#f2dca0", "beach"), "f": ("#7fb069", "forest"), "m": ("#9e9e9e", "mountain"),
           "V": ("#c1440e", "volcano")}  # fmt: skip
RESCUE = "#d8c8a8"
CREATURE_GLYPHS = {"serpent": ("S", "#264653"), "shark": ("H", "#3a86ff"), "kaiju": ("K", "#6a040f")}
PANEL = 250.0


def _pixel(q: int, r: int) -> tuple[float, float]:
    return SIZE * math.sqrt(3) * (q + r / 2), SIZE * 1.5 * r


def _hexagon(cx: float, cy: float, radius: float) -> list[tuple[float, float]]:
    return [(cx + radius * math.cos(math.radians(60 * k - 30)), cy + radius * math.sin(math.radians(60 * k - 30)))
            for k in range(6)]  # fmt: skip


def seat_of_colour(observation: dict, colour: int) -> int:
    """With 2 players each seat plays two colours that score as one (colours 0-1 and 2-3)."""
    return colour // 2 if observation["players"] == 2 else colour


def draw(observation: dict, arrows: Sequence[tuple[str, str]] = ()) -> str:
    rescue_cells = {name: [tuple(c) for c in cells] for name, cells in board.BOARD_DATA["rescue_islands"].items()}
    every = [*board.CELLS, *(c for cells in rescue_cells.values() for c in cells)]
    xs = [_pixel(q, r)[0] for q, r in every]
    ys = [_pixel(q, r)[1] for q, r in every]
    left, top = min(xs) - SIZE * 1.5, min(ys) - SIZE * 1.5
    width, height = max(xs) - left + SIZE * 1.5, max(ys) - top + SIZE * 1.5

    def at(cell: str) -> tuple[float, float]:
        if cell in rescue_cells:
            points = [_pixel(q, r) for q, r in rescue_cells[cell]]
            return sum(p[0] for p in points) / len(points) - left, sum(p[1] for p in points) / len(points) - top
        q, r = (int(v) for v in cell.strip("()").split(","))
        x, y = _pixel(q, r)
        return x - left, y - top

    seat = observation["seat"]
    mine = ", ".join(
        SEAT_NAMES[c] for c in range(len(observation["adventurers"])) if seat_of_colour(observation, c) == seat
    )
    d = Drawing(width + PANEL, max(height, 560.0), f"Survive The Island, seat {seat} ({mine})")
    d.rect(0, 0, width, height, TERRAIN["~"][0])
    for name, cells in rescue_cells.items():
        for q, r in cells:
            x, y = _pixel(q, r)
            d.polygon(_hexagon(x - left, y - top, SIZE), RESCUE, "#8a7a5a", data_cell=name)
        cx, cy = at(name)
        d.label(cx, cy, name, 11, font_weight="bold")
    for (q, r), letter in zip(board.CELLS, observation["terrain"], strict=True):
        x, y = _pixel(q, r)
        d.polygon(
            _hexagon(x - left, y - top, SIZE), TERRAIN[letter][0], "#5c7c8a", stroke_width="0.6", data_cell=f"({q},{r})"
        )
        d.label(x - left, y - top + SIZE * 0.62, f"({q},{r})", 5.2, fill="#34495e")
    for cell in observation["rafts"]:
        x, y = at(cell)
        d.rect(x - SIZE * 0.55, y - SIZE * 0.55, SIZE * 1.1, SIZE * 0.5, "#8b5a2b", "#4a2f14", rx="3")
    occupants: dict[str, list[tuple[str, str, str]]] = defaultdict(list)  # cell -> (fill, text, text colour)
    for kind in ("serpent", "shark", "kaiju"):
        glyph, colour = CREATURE_GLYPHS[kind]
        for cell in observation["creatures"][kind]:
            occupants[cell].append((colour, glyph, "#fff"))
    for colour, pieces in enumerate(observation["adventurers"]):
        for piece in pieces:
            if piece["status"] == "board" and piece["cell"]:
                shown = str(piece["value"]) if "value" in piece else "?"
                occupants[piece["cell"]].append((SEAT_COLOURS[colour], shown, "#fff" if colour != 3 else "#000"))
    for cell, pieces in sorted(occupants.items()):
        cx, cy = at(cell)
        for k, (fill, text, ink) in enumerate(pieces):
            angle = math.radians(360 * k / max(1, len(pieces)) - 90)
            spread = 0 if len(pieces) == 1 else SIZE * 0.42
            x, y = cx + spread * math.cos(angle), cy - SIZE * 0.08 + spread * math.sin(angle)
            d.circle(x, y, SIZE * 0.27, fill, "#111", stroke_width="0.8")
            d.label(x, y, text, 7, fill=ink, font_weight="bold")
    for start, end in arrows:
        d.arrow(at(start), at(end))
    _panel(d, observation, width + 12)
    return d.text()


def _panel(d: Drawing, observation: dict, x: float) -> None:
    seat, control = observation["seat"], observation["control"]
    colours = range(len(observation["adventurers"]))
    own = [c for c in colours if seat_of_colour(observation, c) == seat]
    progress = f"Turn {control['turn']}, phase {control['phase'].replace('_', ' ')}"
    y = panel_header(d, x, observation, " and ".join(SEAT_NAMES[c] for c in own), progress)
    y = d.legend(x, y + 6, [
        *(("box", colour, name) for colour, name in TERRAIN.values()),
        ("box", RESCUE, "Rescue Island (NW, NE, SW, SE)"),
        ("box", "#8b5a2b", "Raft"),
        *(("dot", colour, f"{glyph}: {kind}") for kind, (glyph, colour) in CREATURE_GLYPHS.items()),
        *(("dot", SEAT_COLOURS[c], f"{SEAT_NAMES[c]} Adventurer (seat {seat_of_colour(observation, c)})")
          for c in colours),
    ])  # fmt: skip
    words = []
    for status in ("board", "unplaced", "rescued", "eliminated"):
        values = sorted(p["value"] for c in own for p in observation["adventurers"][c] if p["status"] == status)
        if values:
            words.append(f"{status}: {', '.join(map(str, values))}")
    held = observation["held"][seat]
    abilities = [f"{land} {name}" for land, kinds in held.items() for name, n in kinds.items() for _ in range(n)]
    y = d.lines(x, y + 8, ["Your Adventurers (treasure values):", *(f"  {w}" for w in words),
                           f"Your abilities: {', '.join(abilities) or 'none'}",
                           "Others' values are hidden: ?"], 9)  # fmt: skip
    others = []
    for k in range(observation["players"]):
        if k != seat:
            pieces = [p for c in colours if seat_of_colour(observation, c) == k for p in observation["adventurers"][c]]
            held_k = observation["held"][k]
            tiles = sum(held_k.values()) if all(isinstance(v, int) for v in held_k.values()) else "?"
            rescued, on_board = (sum(p["status"] == status for p in pieces) for status in ("rescued", "board"))
            others.append(f"seat {k}: {rescued} rescued, {on_board} on the board, {tiles} ability tiles")
    d.lines(x, y + 6, others, 9)
