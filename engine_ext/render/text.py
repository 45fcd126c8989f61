"""Boards as text for a terminal, from one seat's observation: Survive's hexes with their coordinates under every
cell, pieces by colour, a legend, and the seat's own Adventurers in words (the others' values stay unknown)."""

from __future__ import annotations

from collections import Counter, defaultdict

from engine_ext import survive_board as board

WIDTH = 8  # characters a hex takes in a row
COLOUR_LETTERS = "RBGYP"  # red, blue, green, yellow, purple
CREATURE_LETTERS = {"serpent": "S", "shark": "H", "kaiju": "K"}


def seat_of_colour(observation: dict, colour: int) -> int:
    return colour // 2 if observation["players"] == 2 else colour


def survive(observation: dict) -> str:
    """The island row by row (``r``), each hex its terrain and pieces, the ``q`` of each hex under it: the cell a
    move writes ``(q,r)``."""
    content: dict[tuple[int, int], str] = {}
    pieces: dict[str, Counter] = defaultdict(Counter)
    for kind, letter in CREATURE_LETTERS.items():
        for cell in observation["creatures"][kind]:
            pieces[cell][letter] += 1
    for cell in observation["rafts"]:
        pieces[cell]["="] += 1
    for colour, adventurers in enumerate(observation["adventurers"]):
        for piece in adventurers:
            if piece["status"] == "board" and piece["cell"]:
                pieces[piece["cell"]][COLOUR_LETTERS[colour]] += 1
    for (q, r), terrain in zip(board.CELLS, observation["terrain"], strict=True):
        shown = "".join(letter + (str(n) if n > 1 else "") for letter, n in sorted(pieces[f"({q},{r})"].items()))
        content[(q, r)] = (terrain + shown)[: WIDTH - 1]
    rescue = {tuple(c): name for name, cells in board.BOARD_DATA["rescue_islands"].items() for c in cells}
    every = [*content, *rescue]
    low = min(2 * q + r for q, r in every)
    lines = []
    for r in range(min(r for _, r in every), max(r for _, r in every) + 1):
        row, under = [" "] * 200, [" "] * 200
        for q, _ in sorted(c for c in every if c[1] == r):
            at = (2 * q + r - low) * WIDTH // 2
            text = content.get((q, r), rescue.get((q, r), ""))
            label = f"q{q}" if (q, r) in content else ""
            row[at : at + len(text)] = text
            under[at : at + len(label)] = label
        lines.append(f"r={r:>2}  " + "".join(row).rstrip())
        lines.append("      " + "".join(under).rstrip())
    lines.append(
        "cell (q,r): find the row r, then q under the hex | terrain ~ sea, b beach, f forest, m mountain, V volcano | "
        "S serpent, H shark, K kaiju, = raft | Adventurers by colour: R red, B blue, G green, Y yellow, P purple "
        "(a digit: how many)"
    )
    return "\n".join(lines)


def survive_own(observation: dict) -> str:
    """The seat's own Adventurers in words: where each stands and its treasure value (the seat knows its own)."""
    seat = observation["seat"]
    names = ("red", "blue", "green", "yellow", "purple")
    lines = []
    for colour, adventurers in enumerate(observation["adventurers"]):
        if seat_of_colour(observation, colour) != seat:
            continue
        by_status = defaultdict(list)
        for piece in adventurers:
            where = piece["cell"] or ""
            extra = " on a raft" if piece.get("aboard") else " swimming" if piece.get("swum") else ""
            by_status[piece["status"]].append(f"{where} worth {piece['value']}{extra}".strip())
        parts = [f"{status}: {', '.join(sorted(entries))}" for status, entries in by_status.items()]
        lines.append(f"your {names[colour]} Adventurers ({COLOUR_LETTERS[colour]}): " + "; ".join(parts))
    held = observation["held"][seat]
    abilities = [f"{land} {name}" for land, kinds in held.items() for name, n in kinds.items() for _ in range(n)]
    lines.append(f"your abilities: {', '.join(abilities) or 'none'}")
    return "\n".join(lines)
