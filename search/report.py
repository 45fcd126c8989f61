"""What a search answers: the ranked moves (``Move``, ``SearchResult``), their order, each move's principal line,
and the summary of what the seat believes about hidden facts."""

from __future__ import annotations

import json
import math
import random
from collections import Counter, defaultdict
from dataclasses import dataclass, field

import engine_ext
from search.config import BELIEF_TRIES, BELIEF_WORLDS, LCB_VISIT_FLOOR, SearchConfig, _thread_seed


@dataclass(frozen=True)
class Move:
    """One candidate move. ``value`` is the acting seat's mean return, ``values`` every seat's; ``win_prob`` the mean
    win share (1 for a sole win, 1/k for a k-way tie); ``pv`` the expected line as move text, this move first."""

    action: int
    text: str
    visits: int
    value: float
    values: list[float]
    win_prob: float
    pv: list[str] = field(default_factory=list)
    pv_actors: list[int] = field(default_factory=list)  # who makes each step of pv; -1: a sampled chance draw


@dataclass(frozen=True)
class SearchResult:
    """Ranked moves (best first), root statistics and what the seat believes about hidden facts."""

    moves: list[Move]
    stats: dict
    belief: dict

    @property
    def best(self) -> Move:
        return self.moves[0]


def _lower_bounds(entries: list[tuple[int, dict]], z: float) -> dict[int, float]:
    """Per action: its mean learnt value minus ``z`` standard errors (the spread from this search's samples of the
    move, at least the spread of all the root's samples)."""
    n = sum(s["samples"] for _, s in entries)
    total = sum(s["own_learnt_sum"] for _, s in entries)
    root_var = max(0.0, sum(s["learnt_sq_sum"] for _, s in entries) / n - (total / n) ** 2) if n else 0.0
    bounds = {}
    for action, s in entries:
        var = root_var
        if s["samples"] > 1:
            mean = s["own_learnt_sum"] / s["samples"]
            var = max(var, s["learnt_sq_sum"] / s["samples"] - mean**2)
        bounds[action] = s["learnt_sum"] / s["visits"] - z * math.sqrt(var / s["visits"])
    return bounds


def _order(state, pooled, config: SearchConfig) -> list[tuple[int, dict]]:
    """The legal sampled moves of ``pooled`` as ``(action, statistics)``, best first (``_rank``'s order)."""
    legal = set(state.legal_actions())
    entries = [(a, s) for a, s in pooled.items() if a in legal and s["visits"] > 0]
    if config.algorithm in ("flat", "greedy"):
        entries.sort(key=lambda e: (-e[1]["learnt_sum"] / e[1]["visits"], -e[1]["visits"], e[0]))
    elif config.halving and config.iterations is not None:
        entries.sort(key=lambda e: (-e[1]["survived"], -e[1]["learnt_sum"] / e[1]["visits"], -e[1]["visits"], e[0]))
    elif config.final_lcb:
        bound = _lower_bounds(entries, config.final_lcb)
        floor = LCB_VISIT_FLOOR * max(s["visits"] for _, s in entries) if entries else 0
        entries.sort(key=lambda e: (e[1]["visits"] < floor, -bound[e[0]], -e[1]["visits"], e[0]))
    else:
        entries.sort(key=lambda e: (-e[1]["visits"], -e[1]["learnt_sum"] / e[1]["visits"], e[0]))
    # refine: the second stage's moves come first, in its order (the sort is stable).
    entries.sort(key=lambda e: not e[1].get("refined", False))
    return entries


def _rank(state, seat, pooled, pv_ids, config: SearchConfig) -> list[Move]:
    """Best first. Tree searches: most visited, ties by the value the tree learnt (the control-variate value, which
    is what selection used), then the lower id; with ``final_lcb`` > 0, by the learnt value's lower confidence bound
    (mean minus ``final_lcb`` standard errors, each move's spread at least the root's pooled spread) among the moves
    with at least ``LCB_VISIT_FLOOR`` of the most visited one's visits (so a move seen a few times cannot win on a
    lucky sample), the others after them; with ``halving`` (and an iteration budget), by the rounds of sequential
    halving survived (summed over threads), then by that learnt value: the last survivors are compared by their means.
    Flat Monte Carlo and greedy spread visits evenly by design, so their ranking is by that learnt value. With
    ``refine``, the second stage's moves come first, in that order, then the screen's others."""
    seed, top_k = config.seed, config.top_k
    legal = set(state.legal_actions())
    moves = []
    for rank, (action, s) in enumerate(_order(state, pooled, config)[:top_k]):
        visits = s["visits"]
        # Values and win shares are this search's samples; a reused tree's prior visits count only for the ranking.
        samples = s.get("samples", visits)
        values = [v / samples for v in s["value_sums"]] if samples else [0.0] * state.num_players()
        first = rank == 0 and pv_ids and pv_ids[0] == action
        line, actors = line_and_actors(state, seat, pv_ids, seed) if first else ([], [])
        moves.append(
            Move(
                action=action,
                text=state.action_to_string(action),
                visits=visits,
                value=values[seat],
                values=values,
                win_prob=s["win_sum"] / samples if samples else 0.0,
                pv=line or [state.action_to_string(action)],
                pv_actors=actors if line else [seat],
            )
        )
    if not moves:
        # Nothing was sampled (a cancel before the first iteration): fall back to the first legal move.
        action = min(legal)
        moves.append(
            Move(
                action,
                state.action_to_string(action),
                0,
                0.0,
                [0.0] * state.num_players(),
                0.0,
                [state.action_to_string(action)],
                [seat],
            )
        )
    return moves


def principal_line(state, seat, observed_ids: list[int], seed: int) -> list[str]:
    """The tree's most visited line as move text from ``seat``'s view, replayed in one sampled world."""
    return line_and_actors(state, seat, observed_ids, seed)[0]


def line_and_actors(state, seat, observed_ids: list[int], seed: int) -> tuple[list[str], list[int]]:
    """``principal_line`` with who makes each step (``engine_ext.CHANCE``, -1: a draw sampled in that world, not a
    forecast)."""
    world = state.determinize(seat, seed)
    texts, actors = [], []
    for observed in observed_ids:
        if world.is_terminal():
            break
        match = world.observed_as(observed, seat)
        if match is None:
            break
        texts.append(world.action_to_string(observed))
        actors.append(world.current_player())
        world.apply(match)
    return texts, actors


def belief_summary(
    state, seat: int, seed: int, worlds: int = BELIEF_WORLDS, weights: dict[int, list[float]] | None = None
) -> dict:
    """What ``seat`` believes of every other seat's private facts: frequencies over sampled worlds. ``weights``
    (``TreeKeeper.beliefs``): worlds kept in proportion to their private keys' weights, as the search samples them."""
    sampled = []
    draws = 0
    accept = random.Random(seed)
    while len(sampled) < worlds:
        world = state.determinize(seat, _thread_seed(seed, 10_000 + draws))
        draws += 1
        if weights and draws <= worlds * BELIEF_TRIES:
            weight = 1.0
            for other, row in weights.items():
                key = world.private_key(other)
                weight *= row[key] if 0 <= key < len(row) else 1.0
            if accept.random() >= weight:
                continue
        sampled.append(world)
    summarise = engine_ext.game_info(state.game_name).belief_summary
    if summarise is not None:
        return summarise(sampled, seat)
    summary = {}
    for other in range(state.num_players()):
        if other == seat:
            continue
        counts: dict[str, Counter] = defaultdict(Counter)
        for world in sampled:
            for key, value in world.private_info(other).items():
                counts[key][json.dumps(value)] += 1
        if counts:
            summary[f"seat {other}"] = {
                key: {v: round(n / worlds, 4) for v, n in sorted(c.items())} for key, c in counts.items()
            }
    return summary
