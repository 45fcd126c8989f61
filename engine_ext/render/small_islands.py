"""Small Islands' board as SVG, from one seat's observation: the square grid with every square's coordinate as moves
write it (``(x,y)``), land and sea on each tile's edges, its icons, Houses and ships by seat colour, the squares a tile
may go to, and a side panel in words (the seat's own hand and Objectives; the others' known tiles only)."""

from __future__ import annotations

from collections.abc import Sequence

from engine_ext import small_islands as rules
from engine_ext.render.drawing import SEAT_COLOURS, SEAT_NAMES, Drawing, panel_header

SQUARE = 64.0
SEA, LAND = "#9fd3e6", "#b7d48b"
GLYPHS = {"flower": "f", "fruit": "r", "leaf": "l", "temple": "t", "house": "h", "port": "p"}
PANEL = 320.0


def _xy(text: str) -> tuple[int, int]:
    x, y = text.strip("()").split(",")
    return int(x), int(y)


def draw(observation: dict, arrows: Sequence[tuple[str, str]] = ()) -> str:
    seat = observation["seat"]
    placed = {_xy(where): (name, turn, regions) for name, turn, where, regions in observation["board"]}
    xs = [x for x, _ in placed] or [0]
    ys = [y for _, y in placed] or [0]
    x0, x1, y0, y1 = min(xs) - 1, max(xs) + 1, min(ys) - 1, max(ys) + 1
    width, height = (x1 - x0 + 1) * SQUARE + 20, (y1 - y0 + 1) * SQUARE + 20
    d = Drawing(width + PANEL, max(height, 460.0), f"Small Islands, seat {seat} ({SEAT_NAMES[seat]})")
    d.rect(0, 0, width, height, "#eef7fb")

    def corner(x: int, y: int) -> tuple[float, float]:
        return 10 + (x - x0) * SQUARE, 10 + (y - y0) * SQUARE

    where = {}
    for y in range(y0, y1 + 1):
        for x in range(x0, x1 + 1):
            left, top = corner(x, y)
            name = f"({x},{y})"
            where[name] = (left + SQUARE / 2, top + SQUARE / 2)
            if (x, y) not in placed:
                d.rect(
                    left + 1,
                    top + 1,
                    SQUARE - 2,
                    SQUARE - 2,
                    "#eef7fb",
                    "#b8d8e6",
                    stroke_dasharray="3,2",
                    data_cell=name,
                )
                d.label(left + SQUARE / 2, top + SQUARE / 2, name, 8, fill="#6b8fa3")
                continue
            _tile(d, left, top, *placed[(x, y)])
            d.rect(left, top, SQUARE, SQUARE, "none", "none", data_cell=name, pointer_events="all")
            d.label(left + SQUARE / 2, top + SQUARE - 7, name, 7.5, fill="#1f3b4d")
    for start, end in arrows:
        if start in where and end in where:
            d.arrow(where[start], where[end])
    _panel(d, observation, width + 12)
    return d.text()


def _tile(d: Drawing, left: float, top: float, name: str, turn: int, regions: list) -> None:
    d.rect(left, top, SQUARE, SQUARE, SEA, "#5d8aa8")
    if name.startswith("ship"):
        colour = name.split()[1]
        fill = SEAT_COLOURS[SEAT_NAMES.index(colour)] if colour in SEAT_NAMES else "#555"
        d.polygon([(left + 16, top + 30), (left + 48, top + 30), (left + 40, top + 42), (left + 24, top + 42)], fill)
        d.polygon([(left + 32, top + 12), (left + 32, top + 29), (left + 44, top + 28)], "#fff", "#333")
        d.label(left + SQUARE / 2, top + 51, f"{colour} ship", 7)
        return
    edges = rules._land_edges(name, turn)
    inset = SQUARE * 0.22
    d.rect(left + inset, top + inset, SQUARE - 2 * inset, SQUARE - 2 * inset, LAND)
    side = SQUARE - 2 * inset
    arms = {
        1: (inset, 0, side, inset),
        2: (SQUARE - inset, inset, inset, side),
        4: (inset, SQUARE - inset, side, inset),
        8: (0, inset, inset, side),
    }  # N, E, S, W: the land that reaches an edge
    for bit, (x, y, w, h) in arms.items():
        if edges & bit:
            d.rect(left + x, top + y, w, h, LAND)
    icons = "".join(GLYPHS[k] * n for region in regions for k, n in region["icons"].items() if k in GLYPHS)
    d.label(left + SQUARE / 2, top + SQUARE / 2 - 6, icons, 10, font_weight="bold")
    d.label(left + SQUARE / 2, top + 9, name, 7, fill="#333")
    houses = [owner for region in regions for owner, n in enumerate(region.get("houses", [])) for _ in range(n)]
    for k, owner in enumerate(houses):
        d.rect(left + SQUARE / 2 - 12 + 9 * k, top + SQUARE / 2 + 3, 7, 7, SEAT_COLOURS[owner], "#111")


def _panel(d: Drawing, observation: dict, x: float) -> None:
    seat, control = observation["seat"], observation["control"]
    progress = f"Round {control['round']}, phase {control['phase'].replace('_', ' ')}"
    y = panel_header(d, x, observation, SEAT_NAMES[seat], progress)
    y = d.legend(x, y + 6, [
        ("box", LAND, "land"), ("box", SEA, "sea"),
        *(("text", glyph, icon) for icon, glyph in GLYPHS.items()),
        *(("box", SEAT_COLOURS[k], f"seat {k}: House, ship") for k in range(observation["players"])),
    ])  # fmt: skip

    def tile(name: str) -> str:
        return f"{name} ({rules.describe_tile(rules.tile_of(name))})"

    me = observation["seats"][seat]
    texts = ["Display: " + ("; ".join(tile(n) if n else "empty" for n in observation["display"]) or "empty"),
             "Your hand: " + ("; ".join(tile(n) for n in me.get("hand", [])) or "empty"),
             f"Your Objective: {me.get('objective') or 'none'}; next: {me.get('next_objective') or 'none'}",
             f"Houses: {me['houses_hand']} in hand, {me['houses_stock']} in stock, {me['houses_placed']} placed; "
             f"{me['pp']} PP; tokens: {', '.join(me['tokens']) or 'none'}"]  # fmt: skip
    for k, other in enumerate(observation["seats"]):
        if k != seat:
            known = ", ".join(other["known_hand"]) or "none known"
            texts.append(f"seat {k}: {other['hand_size']} tiles in hand ({known}), {other['pp']} PP, "
                         f"Objective {other['revealed'] or 'hidden'}")  # fmt: skip
    d.lines(x, y + 8, texts, 9, width=66)
