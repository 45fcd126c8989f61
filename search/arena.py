"""Matches between bots: seats rotate, chance is seeded, games run in a process pool (spawn, never fork)."""

from __future__ import annotations

import math
import multiprocessing
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass

import engine_ext
import search
from engine_ext import core


@dataclass(frozen=True)
class Bot:
    """A search configuration: what ``search.suggest`` gets for every decision of the seat."""

    algorithm: str = "ismcts"
    iterations: int | None = None
    time_ms: float | None = None
    playout_depth: int | None = None
    exploration: float | None = None  # None: the per-game default of search.suggest

    def choose(self, state: engine_ext.State, seat: int, seed: int) -> int:
        return search.suggest(
            state,
            seat,
            algorithm=self.algorithm,
            iterations=self.iterations,
            time_ms=self.time_ms,
            playout_depth=self.playout_depth,
            exploration=self.exploration,
            seed=seed,
            top_k=1,
        ).best.action


def play_game(game: str, bots: list[Bot], seed: int) -> dict:
    """One game with ``bots[seat]`` at each seat; returns, scores and the number of steps."""
    rng = random.Random(seed)
    state = engine_ext.new_game(game, len(bots), seed=seed)
    steps = 0
    while not state.is_terminal():
        seat = state.current_player()
        if seat == engine_ext.CHANCE:
            action = core.sample_chance(state, rng.getrandbits(63))
        else:
            action = bots[seat].choose(state, seat, rng.getrandbits(32))
        state.apply(action)
        steps += 1
    return {"returns": state.returns(), "scores": state.scores(), "steps": steps}


def _play(args: tuple) -> dict:
    game, bots, seed = args
    return play_game(game, [Bot(**b) for b in bots], seed)


def run_match(
    game: str, players: int, challenger: Bot, field: Bot, games: int, seed: int = 0, workers: int = 1
) -> dict:
    """``challenger`` against ``players - 1`` copies of ``field``; the challenger's seat rotates every game."""
    jobs = []
    for g in range(games):
        seat = g % players
        bots = [asdict(challenger if s == seat else field) for s in range(players)]
        jobs.append((game, bots, seed * 100_003 + g))
    if workers > 1:
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            results = list(pool.map(_play, jobs))
    else:
        results = [_play(job) for job in jobs]
    shares = [r["returns"][g % players] for g, r in enumerate(results)]
    wins = sum(1 for s in shares if s == 1.0)
    losses = sum(1 for s in shares if s == 0.0)
    mean = sum(shares) / games
    spread = math.sqrt(sum((s - mean) ** 2 for s in shares) / max(1, games - 1))
    half = 1.96 * spread / math.sqrt(games)
    return {
        "game": game,
        "players": players,
        "games": games,
        "challenger": asdict(challenger),
        "field": asdict(field),
        "wins": wins,
        "ties": games - wins - losses,
        "losses": losses,
        "mean_win_share": round(mean, 4),
        "ci95": [round(mean - half, 4), round(mean + half, 4)],
        "challenger_mean_score": round(sum(r["scores"][g % players] for g, r in enumerate(results)) / games, 2),
        "field_mean_score": round(
            sum(sum(r["scores"]) - r["scores"][g % players] for g, r in enumerate(results)) / games / (players - 1), 2
        ),
        "mean_steps": round(sum(r["steps"] for r in results) / games, 1),
    }
