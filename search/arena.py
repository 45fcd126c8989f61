"""Matches between bots: seats rotate, every game is played by ``search.play`` from its seed, games run in a process
pool (spawn, never fork)."""

from __future__ import annotations

import math
import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict

from search import play
from search.play import BotSettings, Position


def play_game(game: str, bots: list[BotSettings], seed: int) -> dict:
    """One game with ``bots[seat]`` at each seat, dealt from ``seed``; returns, scores and the number of steps."""
    position = Position(play.new_game(game, len(bots), seed))
    for _ in play.play(position, seed, bots):
        pass
    return {"returns": position.state.returns(), "scores": position.state.scores(), "steps": position.moves}


def _play(args: tuple) -> dict:
    game, bots, seed = args
    return play_game(game, [BotSettings(**b) for b in bots], seed)


def run_match(
    game: str, players: int, challenger: BotSettings, field: BotSettings, games: int, seed: int = 0, workers: int = 1
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
