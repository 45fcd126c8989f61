"""Our island games as OpenSpiel states, for OpenSpiel's own ISMCTS (``open_spiel.python.algorithms.ismcts``), and
seat-swapped pairs of games between that bot and ours (``benchmarks/openspiel_compare.py --islands GAME``).

A state is an ``engine_ext`` state behind the methods OpenSpiel's ISMCTS and its random-rollout evaluator call: its
information state is the acting seat's ``observation`` (as canonical JSON, with the seat), its resampling is
``determinize`` (a world consistent with what the seat has seen), chance is the engine's ``chance_outcomes``. The
wrapper is not registered with ``pyspiel``: OpenSpiel's C++ ``ISMCTSBot`` cannot resample a game written in Python
(its Python-game bridge does not forward ``ResampleFromInfostate``), so the bot is OpenSpiel's Python ISMCTS, which
its source calls "adapted from the C++ implementation" (UCT, random rollouts, the same final policy).
"""

from __future__ import annotations

import json
import math
import random
import statistics
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import engine_ext
import search
from search import play

OPENSPIEL_UCT_C = 2.0


class _GameType:
    dynamics = pyspiel.GameType.Dynamics.SEQUENTIAL
    information = pyspiel.GameType.Information.IMPERFECT_INFORMATION


class SpielGame:
    """The few game-level facts OpenSpiel's ISMCTS reads."""

    def __init__(self, name: str, players: int):
        self.name, self.players = name, players

    def get_type(self) -> type[_GameType]:
        return _GameType

    def num_players(self) -> int:
        return self.players


class SpielState:
    """An ``engine_ext`` state as OpenSpiel's ISMCTS sees one."""

    def __init__(self, game: SpielGame, state: engine_ext.State, rng: random.Random):
        self.game, self.state, self.rng = game, state, rng

    def get_game(self) -> SpielGame:
        return self.game

    def current_player(self) -> int:
        if self.state.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        player = self.state.current_player()
        return int(pyspiel.PlayerId.CHANCE) if player == engine_ext.CHANCE else player

    def is_terminal(self) -> bool:
        return self.state.is_terminal()

    def is_chance_node(self) -> bool:
        return not self.state.is_terminal() and self.state.current_player() == engine_ext.CHANCE

    def legal_actions(self, player: int | None = None) -> list[int]:
        return list(self.state.legal_actions())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return list(self.state.chance_outcomes())

    def apply_action(self, action: int) -> None:
        self.state.apply(int(action))

    def clone(self) -> SpielState:
        return SpielState(self.game, self.state.clone(), self.rng)

    def returns(self) -> list[float]:
        return list(self.state.returns())

    def information_state_string(self, player: int | None = None) -> str:
        player = self.state.current_player() if player is None else player
        return f"{player}:" + json.dumps(self.state.observation(player), sort_keys=True)

    observation_string = information_state_string

    def resample_from_infostate(self, player: int, sampler=None) -> SpielState:
        return SpielState(self.game, self.state.determinize(player, self.rng.getrandbits(63)), self.rng)


def openspiel_bot(game: SpielGame, simulations: int, seed: int) -> ismcts.ISMCTSBot:
    """OpenSpiel's ISMCTS as the issue's comparison has it: one random rollout per leaf, UCT constant 2."""
    evaluator = mcts.RandomRolloutEvaluator(1, np.random.RandomState(seed))
    return ismcts.ISMCTSBot(game, evaluator, OPENSPIEL_UCT_C, simulations, random_state=np.random.RandomState(seed))


def play_pair(game: str, players: int, deal: int, simulations: int, ours: dict, rng_seed: int) -> list[dict]:
    """Deal ``deal`` twice, our bot in seat 0 then in seat 1 (two seats), OpenSpiel's in the other; each game's
    result for our seat, with both bots' seconds per decision."""
    results = []
    for our_seat in range(2):
        rng = random.Random(rng_seed * 1_000_003 + deal)
        state = play.new_game(game, players, deal, {})
        spiel_game = SpielGame(game, players)
        theirs = openspiel_bot(spiel_game, simulations, rng_seed + deal)
        seconds = {"ours": 0.0, "theirs": 0.0}
        decisions = {"ours": 0, "theirs": 0}
        while not state.is_terminal():
            actor = state.current_player()
            if actor == engine_ext.CHANCE:
                actions, weights = zip(*state.chance_outcomes(), strict=True)
                action = rng.choices(actions, weights)[0]
            else:
                who = "ours" if actor == our_seat else "theirs"
                started = time.perf_counter()
                if who == "ours":  # from the seat's observation alone, as a hosted bot searches
                    result = search.suggest(state.observation(actor), actor, seed=rng.getrandbits(32), **ours)
                    action = result.best.action
                else:
                    action = int(theirs.step(SpielState(spiel_game, state.clone(), random.Random(rng.getrandbits(63)))))
                seconds[who] += time.perf_counter() - started
                decisions[who] += 1
            state.apply(action)
        results.append(
            {
                "deal": deal,
                "our_seat": our_seat,
                "ours": state.returns()[our_seat],
                "scores": list(state.scores()),
                "ours_ms_per_decision": round(1000 * seconds["ours"] / max(1, decisions["ours"]), 2),
                "theirs_ms_per_decision": round(1000 * seconds["theirs"] / max(1, decisions["theirs"]), 2),
            }
        )
    return results


def summary(games: list[dict]) -> dict:
    """Our mean result with a 95 % interval over deal pairs."""
    by_deal: dict[int, list[float]] = {}
    for g in games:
        by_deal.setdefault(g["deal"], []).append(g["ours"])
    pairs = [statistics.fmean(v) for v in by_deal.values() if len(v) == 2]
    mean = statistics.fmean(pairs) if pairs else float("nan")
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(len(pairs)) if len(pairs) > 1 else float("nan")
    ties = sum(1 for g in games if len(set(g["scores"])) == 1)
    return {
        "pairs": len(pairs),
        "ours_mean": round(mean, 3),
        "ci95": [round(max(0.0, mean - half), 3), round(min(1.0, mean + half), 3)],
        "games_tied_on_score": ties,
        "ours_ms_per_decision": round(statistics.fmean(g["ours_ms_per_decision"] for g in games), 2),
        "theirs_ms_per_decision": round(statistics.fmean(g["theirs_ms_per_decision"] for g in games), 2),
    }
