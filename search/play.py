"""The one game loop and the one seed derivation: hosted games, PlayGame and the arena all play through ``play``.

Seeds. A game has one seed (a hosted game's is secret: drawn from ``secrets`` unless the client chose one). Every
random number of the game is derived from it by ``derive_seed(seed, stream, *indices)`` (BLAKE2b of the seed, a stream
name and indices, taken as a 64-bit integer), in three streams:

- ``"setup"``: the seed ``new_game`` gets (Survive's island layout);
- ``"chance"``, ``k``: the ``k``-th chance event of the game (0, 1, ...), drawn with ``engine_ext.core.sample_chance``.
  Chance is indexed by how many chance events came before, not by the move number, so the same deal replayed with the
  seats permuted (the arena's duplicate deals) draws the same outcomes for as long as the games stay alike;
- ``"bot"``, ``n``, ``s``: the search seed of a bot deciding move ``n`` whose settings carry seed ``s``.

Nothing a seat receives depends on the seed but through outcomes it is allowed to see, and BLAKE2b makes the streams
unpredictable without the seed; a client that chooses the seed makes its game predictable (replays, tests).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field, replace

import engine_ext
import search
from engine_ext import core

SEED_BITS = 63  # seeds handed to new_game and the search fit a signed 64-bit integer


def derive_seed(seed: int, stream: str, *indices: int) -> int:
    """A 63-bit seed for ``stream`` at ``indices``, derived from the game's ``seed`` (any non-negative integer)."""
    if seed < 0:
        raise ValueError("seed: expected a non-negative integer")
    text = f"{seed}/{stream}/" + "/".join(str(i) for i in indices)
    digest = hashlib.blake2b(text.encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") >> (64 - SEED_BITS)


def new_game(game: str, players: int, seed: int, options: dict | None = None) -> engine_ext.State:
    """A game set up from its seed's ``"setup"`` stream."""
    return engine_ext.new_game(game, players, derive_seed(seed, "setup", 0), **(options or {}))


# How a bot seat plays is a search configuration: one value, the same in the arena, a hosted game and the CLI.
# ``None`` fields take the game's search defaults; its ``seed`` varies the bot's searches between otherwise equal
# games (each decision's search seed is derived from it and the game's seed).
BotSettings = search.SearchConfig


# Strength levels: 1 (weakest) to 5, each a configuration whose strength docs/benchmarks.md states per game, each
# level stronger than the one below by an arena match. A game's record may replace the ladder
# (``GameInfo.bot_levels``) where its own measurements call for other steps.
LEVELS: dict[int, BotSettings] = {
    1: BotSettings("random"),
    2: BotSettings("greedy"),
    3: BotSettings("ismcts", iterations=300),
    4: BotSettings("ismcts", iterations=3_000),
    5: BotSettings("ismcts", iterations=30_000),
}


def level_settings(game: str, level: int) -> BotSettings:
    """The configuration of strength ``level`` (1-5) for ``game``."""
    if level not in LEVELS:
        raise ValueError(f"level: expected 1..{len(LEVELS)}, got {level}")
    override = engine_ext.game_info(game).bot_levels
    return BotSettings.from_dict(override[level - 1]) if override else LEVELS[level]


def bot_search(
    state: engine_ext.State,
    seat: int,
    settings: BotSettings,
    game_seed: int,
    move_number: int,
    control: search.Control | None = None,
    allow_cheat: bool = False,
    keeper: search.TreeKeeper | None = None,
) -> search.SearchResult:
    """The search a bot seat runs for move ``move_number`` (seeded from the game's ``"bot"`` stream); ``keeper``: the
    seat's kept trees, for settings with ``reuse``. The seat plays the move, so no belief summary is made."""
    config = replace(settings, seed=search_seed(settings, game_seed, move_number))
    return search.suggest(state, seat, config, control=control, allow_cheat=allow_cheat, keeper=keeper, summary=False)


def search_seed(settings: BotSettings, game_seed: int, move_number: int) -> int:
    """The seed of a bot seat's search for move ``move_number`` (from the game's ``"bot"`` stream)."""
    return derive_seed(game_seed, "bot", move_number, settings.seed)


@dataclass(frozen=True)
class Step:
    """One move of the loop: its number, who took it (a seat or ``engine_ext.CHANCE``) and the action id."""

    number: int
    actor: int
    action: int


@dataclass
class Position:
    """Where a game is: the state, how many moves and how many chance events were played to reach it."""

    state: engine_ext.State
    moves: int = 0
    chance_events: int = 0
    # Per bot seat, its kept search trees (``search.TreeKeeper``, for settings with ``reuse``); every move applied
    # here is shown to each as its seat observes it.
    keepers: dict[int, search.TreeKeeper] = field(default_factory=dict)

    def apply(self, action: int) -> Step:
        step = Step(self.moves, self.state.current_player(), action)
        for keeper in self.keepers.values():
            keeper.observe(self.state, action)
        self.state.apply(action)
        self.moves += 1
        if step.actor == engine_ext.CHANCE:
            self.chance_events += 1
        return step


def chance_action(position: Position, game_seed: int) -> int:
    """The outcome of the chance event at ``position``: the ``"chance"`` stream's draw for its index."""
    return core.sample_chance(position.state, derive_seed(game_seed, "chance", position.chance_events))


def play(
    position: Position,
    game_seed: int,
    bots: Sequence[BotSettings | None],
    *,
    control: search.Control | None = None,
    allow_cheat: bool = False,
    choose: Callable[[engine_ext.State, int, BotSettings, int], int] | None = None,
) -> Iterator[Step]:
    """Play chance and bot moves on ``position`` (in place), yielding each move after it is applied, until a seat
    without a bot (``None``) is to act, the game ends, or ``control`` is cancelled.

    Chance outcome ``k`` comes from the ``"chance"`` stream; a bot's move from ``bot_search`` (or ``choose(state,
    seat, settings, move_number)`` when given). A search cut short by ``control`` is not played: the loop stops first.
    """
    state = position.state
    while not state.is_terminal():
        if control is not None and control.cancelled:
            return
        actor = state.current_player()
        if actor == engine_ext.CHANCE:
            action = chance_action(position, game_seed)
        else:
            settings = bots[actor]
            if settings is None:
                return
            if choose is not None:
                action = choose(state, actor, settings, position.moves)
            else:
                keeper = position.keepers.get(actor)
                if keeper is None:
                    keeper = position.keepers[actor] = search.TreeKeeper(actor)
                result = bot_search(state, actor, settings, game_seed, position.moves, control, allow_cheat, keeper)
                if control is not None and control.cancelled:
                    return
                action = result.best.action
        yield position.apply(action)
