"""One record per registered game, as OpenSpiel's ``GameType`` + registration.

A game module builds its ``GameInfo`` (name, seats, typed options, drawing and belief hooks, search defaults) and
lists it in ``GAME_INFOS``; ``engine_ext`` registers those records. ListGames, the CLI, the codecs and the search read
the record, so no code outside a game's own modules branches on a game's name, and adding a game means registering
one record.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from engine_ext.core import InvalidObservation


class InvalidOption(ValueError):  # noqa: N818 - named as IllegalAction and InvalidObservation are
    """A game option that does not exist or has a value outside its range; ``option`` names it."""

    def __init__(self, option: str, message: str):
        super().__init__(message)
        self.option = option

    def __reduce__(self):  # whole across processes (an arena worker's error reaches the parent pickled)
        return type(self), (self.option, self.args[0])


@dataclass(frozen=True)
class GameOption:
    """One option of ``new_game``: its type (``int`` or ``str``), default, allowed values or range, and help text."""

    name: str
    type: type
    default: Any
    help: str
    choices: tuple = ()
    low: int | None = None
    high: int | None = None
    required_length: int | None = None  # strings: the exact length, when there is one

    def parse(self, value: Any) -> Any:
        """The typed value of ``value`` (a wire string or an already typed value; ``None``: the default);
        ``InvalidOption`` when invalid."""
        if value is None:
            return self.default
        if self.type is int:
            if isinstance(value, bool) or not isinstance(value, int | str):
                raise InvalidOption(self.name, f"option {self.name!r} takes an integer")
            try:
                number = int(value)
            except ValueError:
                raise InvalidOption(
                    self.name, f"option {self.name!r} takes an integer, not {_short(value)!r}"
                ) from None
            if self.choices and number not in self.choices:
                raise InvalidOption(
                    self.name, f"option {self.name!r} must be one of {', '.join(map(str, self.choices))}, not {number}"
                )
            if (self.low is not None and number < self.low) or (self.high is not None and number > self.high):
                raise InvalidOption(self.name, f"option {self.name!r} must be {self.low}..{self.high}, not {number}")
            return number
        if not isinstance(value, str):
            raise InvalidOption(self.name, f"option {self.name!r} takes a string")
        if self.choices and value not in self.choices:
            raise InvalidOption(
                self.name, f"option {self.name!r} must be one of {', '.join(self.choices)}, not {_short(value)!r}"
            )
        if self.required_length is not None and len(value) != self.required_length:
            raise InvalidOption(
                self.name, f"option {self.name!r} takes {self.required_length} characters, not {len(value)}"
            )
        return value

    def describe(self) -> str:
        """The help text with the allowed values, as ListGames and the CLI show it."""
        if self.choices:
            return f"{self.help} (one of {', '.join(map(str, self.choices))})"
        if self.low is not None or self.high is not None:
            return f"{self.help} ({self.low}..{self.high})"
        return self.help


@dataclass(frozen=True)
class BudgetDefaults:
    """Defaults for large budgets: a search of ``players`` seats (None: any count) whose iteration budget is at least
    ``iterations`` takes ``settings`` (field name -> value). A budget in time only (no ``iterations``) never does: how
    many iterations a time buys depends on the machine, and a setting chosen by the arena is chosen in iterations."""

    iterations: int
    settings: Mapping[str, Any]
    players: int | None = None

    def applies(self, players: int | None, iterations: int | None) -> bool:
        return (
            iterations is not None
            and iterations >= self.iterations
            and (self.players is None or self.players == players)
        )


@dataclass(frozen=True)
class SearchDefaults:
    """What ``search.suggest`` uses for a game unless told otherwise, each chosen by an arena match.

    ``exploration``: the UCB constant for rewards in [0, 1], or with ``scaled_exploration`` in units of the spread of
    the acting seat's rewards at the node. ``playout_depth``: playout steps before the heuristic
    scores the position (-1: play to the end). ``light_playouts``: use the game's light playout policy, or with
    ``playout_policy`` the one of the game's policies of that name (``GameInfo.playout_policies``). ``baseline``:
    learn values relative to the root's heuristic value in each sampled world (games with a heuristic only).
    """

    exploration: float = 0.7
    scaled_exploration: bool = False
    heuristic: str | None = None  # a name from GameInfo.heuristics; None: the first (the game's default)
    candidates: int = 1  # untried moves drawn per new child, the heuristic's best one ply on is taken (1: random)
    widening: float = 0.0  # progressive widening factor (0: off)
    minimax: float = 0.0  # implicit minimax weight in selection (0: off)
    minimax_prior: float = 0.0  # minimax: the node's mean counted as this many visits in each child's line (0: off)
    final_lcb: float = 0.0  # the final choice by a lower confidence bound, this many standard errors (0: most visited)
    halving: bool = False  # tree searches with an iteration budget: sequential halving over the root moves
    refine: int = 0  # tree searches with an iteration budget: a second stage over the screen's best moves (0: off)
    refine_screen: int = 3000  # refine: the first stage's iterations (see SearchConfig)
    canonical_order: bool = False  # tree search: consecutive own moves that commute are searched in one order only
    open_loop: bool = False  # ISMCTS: the searching seat's tree follows its own moves only (see SearchConfig)
    private_roots: bool = False  # ISMCTS: other seats' trees branch first on their own hidden facts (see SearchConfig)
    beliefs: bool = False  # ISMCTS in a game loop: worlds weighted by the others' moves (see SearchConfig)
    reuse: bool = False  # ISMCTS in a game loop: a bot seat's next search starts from its kept subtree
    setup_algorithm: str = "same"  # what a search plays at set-up decisions (GameInfo.in_setup): "same" or "greedy"
    playout_depth: int = -1
    playout_to: str = "steps"  # tree searches: "steps", "turn", "own_turn" or "chance" (see SearchConfig)
    playout_candidates: int | None = None  # the moves' draws where ``playout_to`` plays on (None: ``candidates``)
    light_playouts: bool = True
    playout_policy: str | None = None  # a name from GameInfo.playout_policies; None: the first (the light policy)
    baseline: bool = True
    # The greedy bot's own evaluation and playout depth where they differ from the search's (None: the same): one ply
    # scored at once by an evaluation that sees the game's goals, where the search plays to the end.
    greedy_heuristic: str | None = None
    greedy_playout_depth: int | None = None
    # Defaults that differ with the seat count, by count (e.g. {2: {"playout_depth": 40, "heuristic": "missions"}}):
    # each replaces the field of that name for games of that many seats; None: the same for every count.
    by_players: Mapping[int, Mapping[str, Any]] | None = None
    # Defaults that differ with the budget (``BudgetDefaults``): each whose seat count and iteration floor a search
    # meets replaces the fields it names, after ``by_players``; empty: the same for every budget.
    by_budget: tuple[BudgetDefaults, ...] = ()


@dataclass(frozen=True)
class GameInfo:
    """Everything the rest of Atoll needs to know about one registered game."""

    name: str
    title: str
    description: str
    min_players: int
    max_players: int
    module: ModuleType
    draw: Callable[[dict], str]  # the board as one seat sees it, from its observation only
    options: tuple[GameOption, ...] = ()
    fixed_options: Mapping[str, Any] = field(default_factory=dict)  # passed to the module's new_game, not settable
    belief_summary: Callable[[list, int], dict] | None = None  # (sampled worlds, seat) -> summary; None: generic
    random_setup: bool = False  # new_game's seed decides part of the set-up (Survive's island); else only chance does
    returns_are_win_shares: bool = True  # board games; poker returns chips
    benchmark_players: int = 2  # the seat count the speed benchmarks and standing tables use first
    # Strength levels 1-5 as search settings (search.play.BotSettings fields), when the game's arena matches call for
    # other steps than search.play.LEVELS.
    bot_levels: tuple[dict, ...] | None = None
    # Names of the game's evaluation functions (the table's ``heuristic`` first, then ``other_heuristics``); empty
    # for a game without one. ``SearchConfig.heuristic`` picks one by name.
    heuristics: tuple[str, ...] = ()
    # Names of the game's playout policies (the table's ``playout_action`` first, then ``other_playout_actions``);
    # empty for a game whose playouts are uniform. ``SearchConfig.playout_policy`` picks one by name.
    playout_policies: tuple[str, ...] = ()
    search_defaults: SearchDefaults = SearchDefaults()
    # Whether a seat's private key (GameVTable.private_key) stays the same through a game (a dealt card does), so
    # beliefs about it may carry from search to search (SearchConfig.beliefs); a key that changes (Survive's, where
    # the best Adventurer stands; Small Islands', the round's Objective) may only branch trees (private_roots).
    private_key_fixed: bool = False
    # Beliefs from what the moves show, for a key that changes (SearchConfig.beliefs without private_key_fixed):
    # ``evidence_move(observed action)`` says whether a move renews its mover's key ("renew"), may hint at it
    # ("weigh") or neither (None); ``key_evidence(view, mover, action)`` gives the move's likelihood under each key
    # (``view``: the position before it as the observing seat sees it) or None; ``weigh_keys(state, rows)`` is a copy
    # of ``state`` whose determinization deals each seat's key in proportion to its row.
    evidence_move: Callable[[int], str | None] | None = None
    key_evidence: Callable[[Any, int, int], list[float] | None] | None = None
    weigh_keys: Callable[[Any, list], Any] | None = None
    # Beliefs from what the moves show, about hidden facts no key names (Survive's treasure values): a filter over
    # whole worlds. ``belief_filter(state, seat, seed)`` starts one for ``seat`` at ``state`` (reading only what the
    # seat sees); its ``observe(state, action)`` takes every move as the seat observes it, ``weigh(state)`` returns a
    # copy of ``state`` whose determinization deals the worlds by what it has learnt.
    belief_filter: Callable[[Any, int, int], Any] | None = None
    # Whether a state is at a set-up decision (SearchConfig.setup_algorithm); None: the game has no set-up decisions.
    in_setup: Callable[[Any], bool] | None = None

    def option(self, name: str) -> GameOption:
        for option in self.options:
            if option.name == name:
                return option
        valid = ", ".join(o.name for o in self.options) or "none"
        raise InvalidOption(name, f"{self.name} has no option {_short(name)!r}; its options: {valid}")

    def parse_options(self, raw: Mapping[str, Any]) -> dict:
        """Typed, validated options (defaults filled in); ``InvalidOption`` names the first bad one."""
        typed = {o.name: o.default for o in self.options}
        for name, value in raw.items():
            typed[name] = self.option(name).parse(value)
        return typed

    def check_players(self, players: int) -> None:
        if not self.min_players <= players <= self.max_players:
            raise ValueError(f"{self.name} takes {self.min_players}..{self.max_players} players, not {players}")

    def new_game(self, players: int, seed: int = 0, **options):
        self.check_players(players)
        return self.module.new_game(players, seed, **self.fixed_options, **self.parse_options(options))

    def from_observation(self, observation: dict):
        if not isinstance(observation, dict):
            raise InvalidObservation("observation", "expected a JSON object")
        if observation.get("game") != self.name:
            raise InvalidObservation("game", f"expected {self.name!r}, got {_short(observation.get('game'))!r}")
        return self.module.from_observation(observation)


def _short(value: Any, limit: int = 40) -> str:
    """User input quoted in an error, cut to ``limit`` characters so errors never echo unbounded input."""
    text = str(value)
    return text if len(text) <= limit else text[:limit] + "..."


def draw_fields(observation: dict) -> str:
    """A one-line drawing for games without a board: every field of the observation but the game's name."""
    return " | ".join(f"{k} {v}" for k, v in observation.items() if k not in ("game", "players"))
