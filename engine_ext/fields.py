"""Field readers shared by the board games' JSON and observation loaders (``from_json``, ``from_observation``): a cell
name as coordinates, and the path of the first field where a loaded view and the one written back differ. The counts
are read by ``engine_ext.core.check_int``, which raises ``InvalidObservation`` naming the field, so a bad state or view
is refused with the path of its first bad field and nothing is half-loaded.
"""

from __future__ import annotations

import re

XY = re.compile(r"\((-?\d+),\s?(-?\d+)\)")


def parse_xy(text: str, what: str = "cell") -> tuple[int, int]:
    """``"(x,y)"`` as two integers; ValueError otherwise (move parsers turn it into InvalidMoveText)."""
    m = XY.fullmatch(text.strip())
    if not m:
        raise ValueError(f"expected a {what} like (1,-1), not {text[:20]!r}")
    return int(m.group(1)), int(m.group(2))


def first_difference(a, b, path: str = "") -> str:
    """The dotted path of the first field where two JSON values differ (what a loader reports)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if a.get(key) != b.get(key):
                return first_difference(a.get(key), b.get(key), f"{path}.{key}" if path else key)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for k, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return first_difference(x, y, f"{path}[{k}]")
    return path or "state"
