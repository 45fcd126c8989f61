"""Boards as SVG, drawn from one seat's observation alone (what ``State.observation(seat)`` or a GetView gives):
``svg(observation, arrows=[("(1,-2)", "(2,-2)")])``. Two observations that are equal give the same bytes, so a
drawing can never show what the seat does not know."""

from __future__ import annotations

import re
from collections.abc import Sequence

CELL = re.compile(r"\(-?\d+,-?\d+\)|\b(?:NW|NE|SW|SE)\b")
GAMES = ("survive", "islet", "islet_solo", "small_islands")


def svg(observation: dict, arrows: Sequence[tuple[str, str]] = ()) -> str:
    """The board of ``observation``'s game as an SVG document; ``arrows`` from cell to cell as the move grammar
    names them (a move, or a principal line's moves)."""
    import engine_ext

    game = observation.get("game") if isinstance(observation, dict) else None
    if game not in GAMES:
        raise ValueError(f"no board drawing for {game!r}: boards are drawn for {', '.join(GAMES)}")
    engine_ext.from_observation(game, observation)  # a malformed observation is refused, naming its field
    if game == "survive":
        from engine_ext.render import survive as module
    elif game in ("islet", "islet_solo"):
        from engine_ext.render import islet as module
    else:
        from engine_ext.render import small_islands as module
    return module.draw(observation, arrows)


def arrows_of(moves: Sequence[str]) -> list[tuple[str, str]]:
    """Arrows for moves written as the grammar writes them: from each cell a move names to the next it names (a
    Survive move's from and to, a principal line's steps)."""
    arrows = []
    for text in moves:
        cells = CELL.findall(text)
        arrows += list(zip(cells, cells[1:], strict=False))
    return arrows
