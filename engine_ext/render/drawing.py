"""SVG text from plain Python: the few shapes the boards need, a legend, arrows, escaping. No dependency: a board is
a string a browser, an editor or ``atoll render`` writes to a file."""

from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from xml.sax.saxutils import escape, quoteattr

SEAT_COLOURS = ("#d62828", "#1d4ed8", "#2a9d3a", "#e9c400", "#7b2cbf")  # red, blue, green, yellow, purple
SEAT_NAMES = ("red", "blue", "green", "yellow", "purple")


def number(x: float) -> str:
    """A coordinate as short, stable text (the same board gives the same bytes)."""
    text = f"{x:.1f}"
    return text[:-2] if text.endswith(".0") else text


class Drawing:
    """Elements in drawing order; ``text()`` is the SVG document."""

    def __init__(self, width: float, height: float, title: str) -> None:
        self.width, self.height, self.title = width, height, title
        self.items: list[str] = []

    def add(self, element: str) -> None:
        self.items.append(element)

    def polygon(self, points: Sequence[tuple[float, float]], fill: str, stroke: str = "#333", **attrs: str) -> None:
        coords = " ".join(f"{number(x)},{number(y)}" for x, y in points)
        self.add(f'<polygon points="{coords}" fill="{fill}" stroke="{stroke}"{_attrs(attrs)}/>')

    def rect(self, x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", **attrs: str) -> None:
        self.add(
            f'<rect x="{number(x)}" y="{number(y)}" width="{number(w)}" height="{number(h)}" fill="{fill}" '
            f'stroke="{stroke}"{_attrs(attrs)}/>'
        )

    def circle(self, cx: float, cy: float, r: float, fill: str, stroke: str = "#222", **attrs: str) -> None:
        self.add(
            f'<circle cx="{number(cx)}" cy="{number(cy)}" r="{number(r)}" fill="{fill}" stroke="{stroke}"'
            f"{_attrs(attrs)}/>"
        )

    def label(self, x: float, y: float, text: str, size: float = 8, fill: str = "#111", **attrs: str) -> None:
        self.add(
            f'<text x="{number(x)}" y="{number(y)}" font-size="{number(size)}" fill="{fill}" text-anchor="middle" '
            f'dominant-baseline="central"{_attrs(attrs)}>{escape(text)}</text>'
        )

    def arrow(
        self, start: tuple[float, float], end: tuple[float, float], colour: str = "#c2185b", **attrs: str
    ) -> None:
        """A line with an arrow head, shortened at both ends so that the pieces under it stay visible."""
        (x1, y1), (x2, y2) = start, end
        length = math.hypot(x2 - x1, y2 - y1) or 1.0
        trim = min(6.0, length / 4)
        dx, dy = (x2 - x1) / length * trim, (y2 - y1) / length * trim
        self.add(
            f'<line x1="{number(x1 + dx)}" y1="{number(y1 + dy)}" x2="{number(x2 - dx)}" y2="{number(y2 - dy)}" '
            f'stroke="{colour}" stroke-width="2.5" marker-end="url(#head)" opacity="0.85"{_attrs(attrs)}/>'
        )

    def legend(self, x: float, y: float, entries: Sequence[tuple[str, str, str]], size: float = 9) -> float:
        """Entries (shape: ``box``, ``dot`` or ``text``; colour or glyph; meaning) in a column; returns its bottom."""
        for shape, look, meaning in entries:
            if shape == "box":
                self.rect(x, y - 5, 10, 10, look, "#333")
            elif shape == "dot":
                self.circle(x + 5, y, 5, look)
            else:
                self.label(x + 5, y, look, size, font_weight="bold")
            self.add(
                f'<text x="{number(x + 15)}" y="{number(y)}" font-size="{number(size)}" dominant-baseline="central">'
                f"{escape(meaning)}</text>"
            )
            y += size + 5
        return y

    def lines(self, x: float, y: float, texts: Sequence[str], size: float = 9, width: int = 58) -> float:
        """Left-aligned lines of text, each wrapped at ``width`` characters; returns the bottom."""
        wrapped = [part for text in texts for part in (textwrap.wrap(text, width, subsequent_indent="  ") or [""])]
        for line in wrapped:
            self.add(
                f'<text x="{number(x)}" y="{number(y)}" font-size="{number(size)}" dominant-baseline="central">'
                f"{escape(line)}</text>"
            )
            y += size + 4
        return y

    def text(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{number(self.width)}" height="{number(self.height)}" '
            f'viewBox="0 0 {number(self.width)} {number(self.height)}" font-family="sans-serif">'
        )
        defs = (
            '<defs><marker id="head" markerWidth="8" markerHeight="8" refX="6" refY="4" orient="auto">'
            '<path d="M0,0 L8,4 L0,8 z" fill="#c2185b"/></marker></defs>'
        )
        title = f"<title>{escape(self.title)}</title>"
        return "\n".join([head, title, defs, *self.items, "</svg>"]) + "\n"


def _attrs(attrs: dict[str, str]) -> str:
    return "".join(f" {key.replace('_', '-')}={quoteattr(str(value))}" for key, value in attrs.items())


def panel_header(d: Drawing, x: float, observation: dict, you: str, progress: str) -> float:
    """The side panel's first lines: whose board it is, where the game stands, who acts; returns the bottom."""
    to_act = observation["current_player"]
    return d.lines(x, 18, [f"You: seat {observation['seat']}, {you}", progress,
                           f"To act: seat {to_act}" if to_act >= 0 else "To act: chance"], 10)  # fmt: skip
