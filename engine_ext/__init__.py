"""Atoll's game engines: Cython state cores behind one interface (see DESIGN.md, "Engine core").

``GAMES`` lists the registered games; ``new_game(name, players, seed, **options)`` starts one,
``from_json`` restores any state ``State.to_json`` wrote, and ``from_observation(name, obs)`` builds a determinizable
state from one seat's view.
"""

import json
from types import ModuleType

from engine_ext import kuhn_poker, leduc_poker, survive
from engine_ext.core import CHANCE, TERMINAL, IllegalAction, InvalidObservation, State

_MODULES: dict[str, ModuleType] = {
    "kuhn_poker": kuhn_poker,
    "leduc_poker": leduc_poker,
    "survive": survive,
}

GAMES: tuple[str, ...] = tuple(_MODULES)

__all__ = [
    "CHANCE",
    "GAMES",
    "TERMINAL",
    "IllegalAction",
    "InvalidObservation",
    "State",
    "from_json",
    "from_observation",
    "game_module",
    "new_game",
]


def game_module(name: str) -> ModuleType:
    """The module implementing game ``name``; ``KeyError`` lists the registered names."""
    try:
        return _MODULES[name]
    except KeyError:
        raise KeyError(f"unknown game {name!r}; registered games: {', '.join(GAMES)}") from None


def new_game(name: str, players: int, seed: int = 0, **options) -> State:
    """A new game of ``name`` for ``players`` seats; ``seed`` fixes any random set-up not modelled as chance."""
    return game_module(name).new_game(players, seed, **options)


def from_json(text: str) -> State:
    """The state that ``State.to_json`` wrote, for any registered game."""
    name = json.loads(text).get("game")
    return game_module(name).from_json(text)


def from_observation(name: str, observation: dict) -> State:
    """A state consistent with one seat's observation, ready for ``determinize(seat, seed)``.

    Facts hidden from that seat get arbitrary consistent values; determinize resamples them. Raises
    ``InvalidObservation`` (with ``.field``) when no state of the game could produce ``observation``.
    """
    if not isinstance(observation, dict):
        raise InvalidObservation("observation", "expected a JSON object")
    if observation.get("game") != name:
        raise InvalidObservation("game", f"expected {name!r}, got {observation.get('game')!r}")
    return game_module(name).from_observation(observation)
