"""Atoll's game engines: Cython state cores behind one interface (see docs/architecture.md).

Every game registers one record (``game_info(name)``: seats, options, drawing, belief summary, search defaults);
``GAMES`` lists the registered names; ``new_game(name, players, seed, **options)`` starts one, ``from_json`` restores
any state ``State.to_json`` wrote, and ``from_observation(name, obs)`` builds a determinizable state from one seat's
view.
"""

import json

from engine_ext import islet, kuhn_poker, leduc_poker, small_islands, survive
from engine_ext.core import CHANCE, TERMINAL, IllegalAction, InvalidMoveText, InvalidObservation, State
from engine_ext.registry import BudgetDefaults, GameInfo, GameOption, InvalidOption, SearchDefaults

_RECORDS: dict[str, GameInfo] = {
    info.name: info for module in (kuhn_poker, leduc_poker, survive, islet, small_islands) for info in module.GAME_INFOS
}

GAMES: tuple[str, ...] = tuple(_RECORDS)

__all__ = [
    "CHANCE",
    "BudgetDefaults",
    "GAMES",
    "TERMINAL",
    "GameInfo",
    "GameOption",
    "IllegalAction",
    "InvalidMoveText",
    "InvalidObservation",
    "InvalidOption",
    "SearchDefaults",
    "State",
    "from_json",
    "from_observation",
    "game_info",
    "new_game",
]


def game_info(name: str) -> GameInfo:
    """The record of game ``name``; ``KeyError`` lists the registered names."""
    try:
        return _RECORDS[name]
    except (KeyError, TypeError):
        shown = str(name) if len(str(name)) <= 40 else str(name)[:40] + "..."
        raise KeyError(f"unknown game {shown!r}; registered games: {', '.join(GAMES)}") from None


def new_game(name: str, players: int, seed: int = 0, **options) -> State:
    """A new game of ``name`` for ``players`` seats; ``seed`` fixes any random set-up not modelled as chance.

    Raises ``KeyError`` for an unknown game, ``InvalidOption`` for an unknown or out-of-range option and
    ``ValueError`` for a player count outside the game's range."""
    return game_info(name).new_game(players, seed, **options)


def from_json(text: str) -> State:
    """The state that ``State.to_json`` wrote, for any registered game."""
    name = json.loads(text).get("game")
    return game_info(name).module.from_json(text)


def from_observation(name: str, observation: dict) -> State:
    """A state consistent with one seat's observation, ready for ``determinize(seat, seed)``.

    Facts hidden from that seat get arbitrary consistent values; determinize resamples them. Raises
    ``InvalidObservation`` (with ``.field``) when no state of the game could produce ``observation``.
    """
    return game_info(name).from_observation(observation)
