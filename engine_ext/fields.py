"""Field readers shared by the board games' JSON and observation loaders (``from_json``, ``from_observation``).

Each raises ``InvalidObservation`` naming the field, so a bad state or view is refused with the path of its first bad
field and nothing is half-loaded.
"""

from __future__ import annotations

import re

from engine_ext.core import InvalidObservation

XY = re.compile(r"\((-?\d+),\s?(-?\d+)\)")


def parse_xy(text: str, what: str = "cell") -> tuple[int, int]:
    """``"(x,y)"`` as two integers; ValueError otherwise (move parsers turn it into InvalidMoveText)."""
    m = XY.fullmatch(text.strip())
    if not m:
        raise ValueError(f"expected a {what} like (1,-1), not {text[:20]!r}")
    return int(m.group(1)), int(m.group(2))


def check_int(data, key: str, lo: int, hi: int, prefix: str = "", missing_zero: bool = False) -> int:
    """``data[key]`` as an integer in ``lo..hi``. ``missing_zero``: the key may be left out for 0 (count maps write
    only nonzero entries, so an explicit 0 is refused too: it could not have been written)."""
    if not isinstance(data, dict):
        raise InvalidObservation(prefix.rstrip(".") or key, "expected an object")
    value = data.get(key, 0 if missing_zero else None)
    if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
        raise InvalidObservation(prefix + key, f"expected an integer {lo}..{hi}")
    if missing_zero and key in data and value == 0:
        raise InvalidObservation(prefix + key, "zero counts are left out")
    return value


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
