"""Strength tournaments: bot configurations play duplicate deals, results go to a resumable JSONL file, and the
summary gives every figure with its interval (``search.stats``).

A *lineup* names the configuration at each seat (``["ismcts3k", "greedy"]``). A *deal* is one seed; a lineup's deal
group plays that seed once for every distinct seat permutation of the lineup (2 players: colours reversed; one
challenger against three copies of a field: the challenger in each seat), so seat and deal luck cancel. Every game
is played by ``search.play`` (chance from the deal's seed), and a configuration is a ``BotSettings``: exactly what a
hosted bot seat plays.

Games run through a ``concurrent.futures`` executor: a local process pool (spawn) by default, or Ray
(``RayExecutor``, optional extra ``ray``); a game's result depends only on its seeds, so both give identical results.
"""

from __future__ import annotations

import itertools
import json
import math
import multiprocessing
import os
import random
import signal
import statistics
import sys
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from pathlib import Path

import engine_ext
import search
from search import play, stats
from search.play import BotSettings, Position


# --- one game ---------------------------------------------------------------------------------------------------
def play_game(game: str, bots: Sequence[BotSettings], seed: int, options: dict | None = None) -> dict:
    """One game with ``bots[seat]`` at each seat, dealt from ``seed``; returns, scores, steps and decisions, and per
    seat its decisions and the process CPU seconds they took (``seat_decisions``, ``cpu_seconds``: what a comparison at
    equal time reads; CPU rather than wall time, so the other worker on a busy machine changes it less)."""
    started = time.perf_counter()
    position = Position(play.new_game(game, len(bots), seed, options))
    seat_decisions = [0] * len(bots)
    cpu = [0.0] * len(bots)
    mark = time.process_time()
    for step in play.play(position, seed, list(bots), allow_cheat=True):  # the arena may measure the cheat bound
        now = time.process_time()
        if step.actor >= 0:  # the step's search and its move; a chance step's draw is nobody's
            seat_decisions[step.actor] += 1
            cpu[step.actor] += now - mark
        mark = now
    state = position.state
    return {
        "returns": state.returns(),
        "scores": state.scores(),
        "steps": position.moves,
        "decisions": sum(seat_decisions),
        "seat_decisions": seat_decisions,
        "cpu_seconds": [round(c, 4) for c in cpu],
        "seconds": round(time.perf_counter() - started, 3),
    }


def resolved_settings(game: str, players: int, settings: BotSettings) -> dict:
    """Every field of ``settings`` as the game's defaults fill it in for ``players`` seats (what the bot plays; a level
    is its ladder's configuration; ``random`` is only its name), without the per-decision seed: what a game record
    keeps so a resumed run can tell whether a default changed since its first games."""
    if settings.algorithm == "random":  # nothing else changes how it plays
        return {"algorithm": "random"}
    config = settings.resolved(engine_ext.game_info(game), players)
    return {f.name: getattr(config, f.name) for f in dataclass_fields(config) if f.name != "seed"}


def _play_job(job: dict) -> dict:
    bots = [BotSettings.from_dict(job["configs"][name]) for name in job["seats"]]
    resolved = {
        name: resolved_settings(job["game"], job["players"], BotSettings.from_dict(job["configs"][name]))
        for name in job["configs"]
    }
    return {**job, "resolved": resolved, **play_game(job["game"], bots, job["seed"], job.get("options"))}


def optional(module: str, extra: str):
    """Import a module of an optional extra, or say which extra to install."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        checkout = "make bench" if extra == "bench" else f".venv/bin/pip install -e '.[{extra}]'"
        raise RuntimeError(
            f"{module} is needed for this: pip install 'atoll[{extra}]' (in a checkout: {checkout})"
        ) from None


def installed(module: str) -> bool:
    """Whether an optional extra's module can be imported."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        return False
    return True


def optional_pyplot():
    optional("matplotlib", "bench").use("Agg")
    return optional("matplotlib.pyplot", "bench")


# --- executors --------------------------------------------------------------------------------------------------
class ArenaPool(ProcessPoolExecutor):
    """The local pool, which can also end its workers mid-game (``abandon``)."""

    def abandon(self) -> None:
        """End the workers now, games in flight unfinished, and shut down: once ``run`` has stopped early (an SPRT
        verdict), a game still being played would not be recorded, so waiting for it only wastes its minutes."""
        workers = list((self._processes or {}).values())  # no public handle on the workers before Python 3.14
        for worker in workers:
            worker.kill()  # SIGKILL: the workers ignore SIGINT and SIGTERM
        for worker in workers:
            worker.join()
        self.shutdown(wait=True, cancel_futures=True)


def local_executor(workers: int) -> ArenaPool:
    """A process pool started with spawn (gRPC and OpenMP break under fork). Its workers leave when the arena's
    process is gone, however it ended (a kill -9 included), instead of playing on with nobody to record their games."""
    return ArenaPool(
        workers,
        mp_context=multiprocessing.get_context("spawn"),
        initializer=_leave_with_parent,
        initargs=(os.getpid(),),
    )


PARENT_CHECK_S = 0.5


def _leave_with_parent(parent: int) -> None:
    """Worker initializer: a daemon thread that ends the worker once its parent is no longer ``parent``. A Ctrl-C
    reaches the workers too, and so does a SIGTERM sent to the whole group (systemd stopping a unit, a cluster's
    preemption); they leave both to the arena, which ends them (``abandon``) and says how to resume."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK_S)
        os._exit(3)

    threading.Thread(target=watch, name="atoll-arena-parent-watch", daemon=True).start()


class RayExecutor(Executor):
    """``concurrent.futures`` on a Ray cluster: ``address`` as ``ray.init`` takes it ("auto", "ray://host:10001", or
    ``"local:N"`` for a local cluster of N CPUs)."""

    def __init__(self, address: str):
        """ValueError when ``address`` names no cluster this process can start or reach."""
        if address.startswith("local:"):
            cpus = address.split(":", 1)[1]
            if not cpus.isdigit() or int(cpus) < 1:
                raise ValueError(f"a local Ray cluster takes local:N with N CPUs, at least 1; got {address!r}")
        ray = optional("ray", "ray")
        self._ray = ray
        try:
            if address.startswith("local:"):
                ray.init(num_cpus=int(cpus), include_dashboard=False, ignore_reinit_error=True)
            else:
                ray.init(address=address, ignore_reinit_error=True)
        except (ConnectionError, RuntimeError, ValueError) as err:
            raise ValueError(f"no Ray cluster at {address!r}: {err}") from None
        self._remote = ray.remote(num_cpus=1)(_play_job)

    def submit(self, fn: Callable, /, *args, **kwargs) -> Future:
        if fn is not _play_job:
            raise ValueError("RayExecutor runs arena games only")
        return self._remote.remote(*args, **kwargs).future()

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        self._ray.shutdown()

    def abandon(self) -> None:
        """Games in flight are ended with the connection (``ray.shutdown``)."""
        self._ray.shutdown()


# --- the tournament ---------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Tournament:
    """What to play: the game, the configurations by name, the lineups, how many deals, and the base seed.
    ``first_deal`` plays deals ``first_deal`` .. ``first_deal + deals - 1`` of the same sequence: a match split into
    shards (one a machine, or a later stretch first) plays the games the whole match would, and their files joined
    (``cat``) are the whole match's."""

    game: str
    players: int
    configs: dict[str, BotSettings]
    lineups: list[list[str]]
    deals: int
    seed: int = 0
    options: dict | None = None
    first_deal: int = 0

    def __post_init__(self) -> None:
        engine_ext.game_info(self.game).check_players(self.players)
        if self.deals < 0 or self.seed < 0 or self.first_deal < 0:
            raise ValueError(
                f"deals, seed and first deal: expected 0 or more, got {self.deals}, {self.seed} and {self.first_deal}"
            )
        state = play.new_game(self.game, self.players, self.seed, self.options)
        for name, settings in self.configs.items():
            try:
                search.check_config(settings, state, allow_cheat=True)  # the arena may measure the cheat bound
            except ValueError as err:
                raise ValueError(f"configuration {name!r}: {err}") from None
        for lineup in self.lineups:
            if len(lineup) != self.players:
                raise ValueError(f"lineup {lineup} does not have {self.players} seats")
            for name in lineup:
                if name not in self.configs:
                    raise ValueError(f"lineup {lineup} names {name!r}, which is not a configuration")

    def jobs(self) -> Iterable[dict]:
        """Every game, deal by deal (so a partial run holds whole deal groups first)."""
        configs = {name: settings.to_dict() for name, settings in self.configs.items()}
        for deal in range(self.first_deal, self.first_deal + self.deals):
            seed = play.derive_seed(self.seed, "deal", deal)
            for lineup in self.lineups:
                for seats in seat_permutations(lineup):
                    yield {
                        "game": self.game,
                        "players": self.players,
                        "options": self.options or {},
                        "match": ",".join(lineup),
                        "deal": deal,
                        "seed": seed,
                        "seats": list(seats),
                        "configs": {name: configs[name] for name in set(lineup)},
                    }


def seat_permutations(lineup: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct orders of a lineup, in a fixed order (2 for A,B; N for one challenger against N-1 copies)."""
    return sorted(set(itertools.permutations(lineup)))


def default_lineups(names: Sequence[str], players: int) -> list[list[str]]:
    """Every ordered pair of configurations as challenger against a field of the other (2 players: each pair once)."""
    if players == 1:  # solo games: each configuration plays alone
        return [[name] for name in names]
    if players == 2:
        return [[a, b] for a, b in itertools.combinations(names, 2)]
    return [[a] + [b] * (players - 1) for a, b in itertools.permutations(names, 2)]


def job_key(job: dict) -> tuple:
    return (job["match"], job["deal"], tuple(job["seats"]), job["seed"])


# Settings added to SearchConfig after some runs were recorded, each with the value that plays as the search did
# before it existed: a record without the setting played that way, so it reads as that value.
PLAYED_AS_BEFORE = {"playout_to": "steps", "minimax_prior": 0.0, "refine": 0, "refine_screen": 3000}


# The settings the bots without a tree read (``search._greedy``, the random pick); the others are a tree search's, so
# a game's tree-search default that changes (Survive's ``minimax``) leaves its greedy and random bots the same bots.
READ_WITHOUT_A_TREE = {
    "greedy": frozenset("algorithm iterations time_ms heuristic playout_depth light_playouts playout_policy".split()),
    "random": frozenset({"algorithm"}),
}


def behaviour(resolved: dict) -> dict:
    """What a configuration's resolved settings play, for telling two records apart: a setting added since a record
    was made reads as its former behaviour, ``playout_candidates`` counts only where ``playout_to`` uses it and
    ``refine_screen`` only with ``refine``, and greedy and random keep only the settings they read."""
    read = READ_WITHOUT_A_TREE.get(resolved.get("algorithm"))
    if read is not None:
        return {key: value for key, value in resolved.items() if key in read}
    out = PLAYED_AS_BEFORE | resolved
    if out["playout_to"] == "steps":
        out.pop("playout_candidates", None)
    if not out["refine"]:
        out.pop("refine_screen", None)
    return out


class ResultsFileError(ValueError):
    """``--out`` names a file this tournament cannot continue: another game's, other configurations' or defaults',
    or not an arena results file at all. Nothing is played and the file is left as it was."""


RECORD_KEYS = frozenset({"game", "players", "configs"})


def load_results(path: Path, tournament: Tournament) -> list[dict]:
    """Finished games from ``path`` (JSONL), checked against the tournament's configurations, as given and as the
    game's defaults fill them in (a game record keeps both; a default that changed since a file's first games would
    mix two bots under one name); a record cut short by a kill (a line that starts as one and does not parse) is
    dropped. Raises ``ResultsFileError`` for a file that cannot be continued (any other line that is not a game
    record, e.g. a summary given as ``--out``, is refused rather than appended to)."""
    if not path.exists():
        return []
    results = []
    configs = {name: settings.to_dict() for name, settings in tournament.configs.items()}
    now = {
        name: resolved_settings(tournament.game, tournament.players, settings)
        for name, settings in tournament.configs.items()
    }
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as err:
        raise ResultsFileError(f"{path}: cannot be read as an arena results file (JSONL): {err}") from None
    for number, line in enumerate(text.splitlines(), 1):
        try:
            result = json.loads(line)
        except json.JSONDecodeError:
            if line.startswith('{"') or not line.strip():
                continue
            result = None
        if not isinstance(result, dict) or not RECORD_KEYS <= result.keys():
            raise ResultsFileError(
                f"{path}:{number} is not an arena game record (a JSON object a line, as --out writes them); "
                "use another file"
            )
        if result["game"] != tournament.game or result["players"] != tournament.players:
            raise ResultsFileError(
                f"{path}:{number} is a {result['game']} game with {result['players']} players; use another file"
            )
        for name, config in result["configs"].items():
            if name in configs and configs[name] != config:
                raise ResultsFileError(
                    f"{path}:{number}: configuration {name!r} was {config}, now {configs[name]}; use another file"
                )
        for name, recorded in result.get("resolved", {}).items():
            if name not in now:
                continue
            played, current = behaviour(recorded), behaviour(now[name])
            if played != current:
                changed = ", ".join(
                    f"{key} {played.get(key)!r} -> {current.get(key)!r}"
                    for key in sorted(set(played) | set(current))
                    if played.get(key) != current.get(key)
                )
                raise ResultsFileError(
                    f"{path}:{number}: configuration {name!r} was played as the defaults of the day filled it in and"
                    f" now resolves otherwise ({changed}): a default changed since; use another file"
                )
        results.append(result)
    return results


class GameFailedError(RuntimeError):
    """A game of a run raised (a bug in an engine or a bot): which game, so that it can be played again alone.
    ``job`` is its record without results (game, match, deal, seats, seed, configurations)."""

    def __init__(self, job: dict, error: BaseException):
        self.job = job
        self.error = error
        seats = ",".join(job["seats"])
        super().__init__(
            f"a game failed ({job['game']}, match {job['match']}, deal {job['deal']}, seats {seats}, seed "
            f"{job['seed']}): {type(error).__name__}: {error}. The games finished before it are kept; "
            f"search.arena.play_game({job['game']!r}, <the seats' BotSettings>, {job['seed']}) plays it again"
        )

    def __reduce__(self):
        return type(self), (self.job, self.error)


def run(
    tournament: Tournament,
    path: Path | None,
    executor: Executor,
    progress: Callable[[list[dict]], None] | None = None,
    stop: Callable[[list[dict]], bool] | None = None,
    in_flight: int = 8,
) -> list[dict]:
    """Play every game of ``tournament`` not already in ``path``, appending each finished game to it at once (an
    interrupted run loses nothing and the same call continues it). ``stop(results)`` can end the run early (SPRT):
    an executor with an ``abandon`` method (``local_executor``'s) then ends the games in flight instead of finishing
    them unrecorded, and is shut down; so does a Ctrl-C, which then reaches the caller, and a game that raises, which
    reaches it as ``GameFailedError`` naming the game."""
    results = load_results(path, tournament) if path else []
    done = {job_key(r) for r in results}
    pending = (job for job in tournament.jobs() if job_key(job) not in done)
    running: dict[Future, dict] = {}
    sink = open(path, "a") if path else None  # noqa: SIM115 - closed below, appended to as games finish
    if sink and path.stat().st_size and not path.read_bytes().endswith(b"\n"):
        sink.write("\n")  # a last line cut short by a kill stays alone: the next game must not be glued to it
    try:
        while True:
            if stop is not None and stop(results):
                abandon = getattr(executor, "abandon", None)
                if running and abandon is not None:
                    abandon()
                break
            while len(running) < in_flight:
                job = next(pending, None)
                if job is None:
                    break
                running[executor.submit(_play_job, job)] = job
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            failed = None
            for future in finished:
                job = running.pop(future)
                if future.exception() is not None:
                    failed = failed or GameFailedError(job, future.exception())
                    continue
                result = future.result()
                results.append(result)
                if sink:
                    sink.write(json.dumps(result, sort_keys=True) + "\n")
                    sink.flush()
            if failed is not None:
                abandon = getattr(executor, "abandon", None)
                if running and abandon is not None:
                    abandon()  # the games still in flight would not be recorded either
                raise failed from failed.error
            if progress:
                progress(results)
    except KeyboardInterrupt:
        abandon = getattr(executor, "abandon", None)
        if running and abandon is not None:
            abandon()  # Ctrl-C: the games in flight would not be recorded; end them before the caller hears of it
        raise
    finally:
        for future in running:
            future.cancel()
        if sink:
            sink.close()
    return results


# --- summaries --------------------------------------------------------------------------------------------------
def summarize(tournament: Tournament, results: list[dict]) -> dict:
    """Per lineup: each configuration's win share (interval over complete deal groups), Wilson interval on its win
    rate, mean score and margin; 2-player lineups add Elo with its interval; every multi-player tournament gets
    OpenSkill ratings (Plackett-Luce) over all its games."""
    summary = {"game": tournament.game, "players": tournament.players, "games": len(results), "matches": {}}
    for lineup in tournament.lineups:
        match = ",".join(lineup)
        games = [r for r in results if r["match"] == match]
        summary["matches"][match] = summarize_match(lineup, games)
    if tournament.players > 2:
        # Without the bench extra the summary says so: the win shares, Elo and SPRT above need no rating package.
        summary["openskill"] = openskill_ratings(results) if installed("openskill") else {"missing": OPENSKILL_MISSING}
    return summary


OPENSKILL_MISSING = "OpenSkill ratings need the bench extra: pip install 'atoll[bench]' (in a checkout: make bench)"


def complete_groups(lineup: Sequence[str], games: list[dict]) -> dict[int, list[dict]]:
    """Deal groups in which every seat permutation was played, each once (only those enter the intervals)."""
    orders = seat_permutations(lineup)
    groups = defaultdict(list)
    for game in games:
        groups[game["deal"]].append(game)
    return {
        deal: group
        for deal, group in sorted(groups.items())
        if sorted(tuple(game["seats"]) for game in group) == orders
    }


def summarize_match(lineup: Sequence[str], games: list[dict]) -> dict:
    groups = complete_groups(lineup, games)
    out: dict = {"games": len(games), "deal_groups": len(groups), "configs": {}}
    if 0 < len(groups) < FEW_GROUPS:
        out["note"] = (
            f"{len(groups)} deal group{'s' if len(groups) > 1 else ''}: too few to tell the bots apart (the intervals "
            f"span most of their range); a strength figure needs {FEW_GROUPS * 6} groups or more"
        )
    shares_only = bool(games) and all(returns_are_shares(g) for g in games)
    solo = len(lineup) == 1
    for name in dict.fromkeys(lineup):
        per_group, returns_per_group, wins, played, scores, margins = [], [], 0.0, 0, [], []
        won_scores = []
        cpu, decided, timed = 0.0, 0, 0  # timed: the seats whose game records their CPU (older records do not)
        for group in groups.values():
            shares, returns = [], []
            for game in group:
                for seat, occupant in enumerate(game["seats"]):
                    if occupant != name:
                        continue
                    # A solo game is won or lost on its own: its return is the share.
                    share = game["returns"][seat] if solo else win_shares(game["returns"])[seat]
                    shares.append(share)
                    returns.append(game["returns"][seat])
                    if "cpu_seconds" in game:
                        cpu += game["cpu_seconds"][seat]
                        decided += game["seat_decisions"][seat]
                        timed += 1
                    wins += share
                    played += 1
                    scores.append(game["scores"][seat])
                    if solo:
                        if share == 1.0:
                            won_scores.append(game["scores"][seat])
                        continue
                    best_other = max(s for k, s in enumerate(game["scores"]) if k != seat)
                    margins.append(game["scores"][seat] - best_other)
            per_group.append(sum(shares) / len(shares))
            returns_per_group.append(sum(returns) / len(returns))
        share = stats.mean_interval(per_group, (0.0, 1.0))
        out["configs"][name] = {
            "seats_played": played,
            "win_share": share.as_list(),
            # The game's own returns (chips in poker, where a duplicate pair splits the wins by construction).
            "mean_return": stats.mean_interval(returns_per_group, (0.0, 1.0) if shares_only else None).as_list(),
            "win_rate_wilson": [round(x, 4) for x in stats.wilson(wins, played)] if played else None,
            "mean_score": round(sum(scores) / len(scores), 3) if scores else None,
            "mean_margin": round(sum(margins) / len(margins), 3) if margins else None,
            # Process CPU a decision over the deal groups' games that record it (``cpu_seats_timed`` of the seats
            # played; a run resumed from records older than the field times its newer games only), set-up decisions
            # and cheap ones included. Every configuration of a match is timed over the same games.
            "cpu_ms_per_decision": round(1000 * cpu / decided, 3) if decided else None,
            "cpu_seats_timed": timed,
        }
        if solo:  # e.g. Islet solo: the tiles left in the bag, over the games won
            out["configs"][name]["mean_score_of_wins"] = (
                round(sum(won_scores) / len(won_scores), 3) if won_scores else None
            )
    if one_against_field(lineup) and groups and all(returns_are_shares(g) for g in games):
        first, players = lineup[0], len(lineup)
        pair_scores = [pair_score(first, group) for group in groups.values()]
        out["elo"] = {"of": first, "against": lineup[1]}
        if len(set(pair_scores)) == 1 and pair_scores[0] in (0.0, 1.0):
            # Every group won (or lost): no finite Elo fits; the Wilson interval on the win rate says how sure.
            what = f"{'won' if pair_scores[0] else 'lost'} every {'pair' if players == 2 else 'deal group'}"
            out["elo"].update(elo=None, interval=None, note=f"{first} {what}")
        else:
            elo, low, high = stats.elo_interval_of_shares(pair_scores, players)
            # An unbounded end (the shares' interval reaches 0 or 1, or one group) is null: JSON has no infinity.
            out["elo"].update(
                elo=round(elo, 1), interval=[round(x, 1) if math.isfinite(x) else None for x in (low, high)]
            )
        if players == 2:
            out["pentanomial"] = stats.pentanomial(pair_scores)
    if one_against_field(lineup) and groups:
        # Points rather than wins: in each seat of a deal, the challenger's score against the field's mean score in
        # that seat of the same deal (paired by deal and seat). A game of several seats decides a winner by a few
        # points, so this resolves a difference in fewer deal groups than the win share does.
        out["score_edge"] = {
            "of": lineup[0],
            "against": lineup[1],
            "points": stats.mean_interval([score_edge(lineup[0], group) for group in groups.values()]).as_list(),
        }
    single = [name for name in dict.fromkeys(lineup) if lineup.count(name) == 1]
    if len(lineup) > 2 and len(single) >= 2 and groups:
        # Two bots in the same games (e.g. "A,B,greedy"): each deal group plays both in every seat, so the difference
        # of their mean win shares per group is paired by deal and by game; the first against each of the others.
        out["head_to_head"] = {
            f"{single[0]} - {other}": {
                "deal_groups": len(groups),
                "difference": stats.mean_interval(
                    [pair_score(single[0], group) - pair_score(other, group) for group in groups.values()], (-1.0, 1.0)
                ).as_list(),
            }
            for other in single[1:]
        }
    return out


FEW_GROUPS = 5  # below this many deal groups a summary says the run is too small to tell the bots apart


def one_against_field(lineup: Sequence[str]) -> bool:
    """A lineup of one configuration against copies of another ("A,B" or "A,B,B,B"): what Elo and the SPRT compare."""
    return len(lineup) >= 2 and lineup[0] != lineup[1] and len(set(lineup[1:])) == 1


def returns_are_shares(game: dict) -> bool:
    """Board games return win shares (sole winner 1, ties 1/k); poker returns chips, for which Elo from shares would
    say nothing."""
    return all(0.0 <= r <= 1.0 for r in game["returns"]) and abs(sum(game["returns"]) - 1.0) < 1e-9


def win_shares(returns: Sequence[float]) -> list[float]:
    """1/k for each of the k seats with the highest return, 0 for the others (a board game's returns already are
    this; poker's chip returns become who won the hand)."""
    best = max(returns)
    winners = sum(1 for r in returns if r == best)
    return [1.0 / winners if r == best else 0.0 for r in returns]


def pair_score(name: str, group: list[dict]) -> float:
    """``name``'s mean share over a deal group (with two seats, a pair: 0, 0.25, ..., 1)."""
    shares = [win_shares(game["returns"])[game["seats"].index(name)] for game in group]
    return sum(shares) / len(shares)


def score_edge(name: str, group: list[dict]) -> float:
    """Over a complete deal group: in each seat, ``name``'s score there minus the mean score of the others who sat
    there in the group's other games, averaged over the seats (0 when ``name`` scores as its opponents would have
    in its place)."""
    seats = len(group[0]["seats"])
    edges = []
    for seat in range(seats):
        mine = [game["scores"][seat] for game in group if game["seats"][seat] == name]
        theirs = [game["scores"][seat] for game in group if game["seats"][seat] != name]
        edges.append(sum(mine) / len(mine) - sum(theirs) / len(theirs))
    return sum(edges) / seats


RATING_ORDERS = 64  # seeded random orders of the games the online ratings are averaged over


def openskill_ratings(results: list[dict], orders: int = RATING_ORDERS) -> dict:
    """Plackett-Luce ratings over every game (ties share a rank), each configuration one player; the conservative
    ordinal (mu - 3 sigma) ranks them.

    OpenSkill rates online, one game after another, and a rating's sigma shrinks as it goes, so the games rated first
    weigh the most and any one order of the games gives other ratings: over random orders of the same six Small
    Islands 4-player rows, one order's mu strayed by 1.1-1.4 (standard deviation), as much as the rows differed.
    Games between fixed bots are exchangeable, so no order is the right one: each rating is the mean over
    ``orders`` seeded random orders of the games (drawn from one canonical order, deal by deal, so the result does not
    depend on the order the games come in), with ``order_sd``, how far one order's mu strays from it."""
    model = optional("openskill.models", "bench").PlackettLuce()
    canonical = sorted(results, key=lambda r: (r["deal"], *job_key(r)))
    names = sorted({name for result in canonical for name in result["seats"]})
    mus: dict[str, list[float]] = {name: [] for name in names}
    sigmas: dict[str, list[float]] = {name: [] for name in names}
    shuffler = random.Random(0)
    for _ in range(max(1, orders)):
        order = canonical[:]
        shuffler.shuffle(order)
        for name, rating in _rate_online(model, order).items():
            mus[name].append(rating.mu)
            sigmas[name].append(rating.sigma)
    ratings = {}
    for name in names:
        mu, sigma = statistics.fmean(mus[name]), statistics.fmean(sigmas[name])
        spread = statistics.stdev(mus[name]) if len(mus[name]) > 1 else 0.0
        ratings[name] = {
            "mu": round(mu, 3),
            "sigma": round(sigma, 3),
            "ordinal": round(mu - 3 * sigma, 3),
            "order_sd": round(spread, 3),
        }
    return dict(sorted(ratings.items(), key=lambda item: -item[1]["ordinal"]))


def _rate_online(model, games: list[dict]) -> dict:
    """One pass of OpenSkill's online updates over ``games`` in the order given."""
    ratings = {}
    for result in games:
        names = result["seats"]
        for name in names:
            ratings.setdefault(name, model.rating(name=name))
        if len(set(names)) < 2:
            continue
        # One team per seat, ranked by return (ties share a rank). A configuration at several seats moves by the
        # mean of its seats' updates, so copies of a field count as one player.
        updated = model.rate([[ratings[name]] for name in names], ranks=[-r for r in result["returns"]])
        moves = defaultdict(list)
        for name, (rating,) in zip(names, updated, strict=True):
            moves[name].append(rating)
        for name, seats in moves.items():
            ratings[name] = model.rating(
                mu=sum(r.mu for r in seats) / len(seats), sigma=sum(r.sigma for r in seats) / len(seats), name=name
            )
    return ratings


def sprt_stop(match: str, first: str, elo0: float, elo1: float, lineup: Sequence[str]) -> Callable[[list[dict]], bool]:
    """A ``stop`` for ``run``: end when the SPRT on ``match``'s complete deal groups reaches a verdict (pairs with
    two seats; ``stats.group_sprt`` with more)."""

    def stop(results: list[dict]) -> bool:
        groups = complete_groups(lineup, [r for r in results if r["match"] == match])
        scores = [pair_score(first, g) for g in groups.values()]
        return stats.group_sprt(scores, elo0, elo1, len(lineup)).verdict != "continue"

    return stop


def sprt_bounds(text: str) -> tuple[float, float]:
    """``ELO0,ELO1`` with ELO0 < ELO1."""
    parts = text.split(",")
    try:
        elo0, elo1 = (float(x) for x in parts)
    except ValueError:
        raise ValueError(f"takes ELO0,ELO1 (e.g. 0,30), not {text!r}") from None
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"takes two finite Elo bounds, the lower first (e.g. 0,30), not {text!r}")
    return elo0, elo1


def sprt_report(lineup: Sequence[str], games: list[dict], elo0: float, elo1: float) -> dict:
    """The SPRT (``stats.group_sprt``, alpha = beta = 0.05) of a one-against-field lineup's first configuration on
    the complete deal groups of ``games``, as the summaries print it: LLR, its bounds, the counts and the verdict."""
    groups = complete_groups(lineup, games)
    result = stats.group_sprt([pair_score(lineup[0], g) for g in groups.values()], elo0, elo1, len(lineup))
    counted = (
        {"pentanomial": result.counts}
        if result.outcomes is None
        else {"group_scores": {f"{o:.4g}": c for o, c in zip(result.outcomes, result.counts, strict=True) if c}}
    )
    return {
        "elo0": elo0,
        "elo1": elo1,
        "alpha": 0.05,
        "beta": 0.05,
        "llr": round(result.llr, 3),
        "bounds": [round(result.lower, 3), round(result.upper, 3)],
        "pairs" if len(lineup) == 2 else "deal_groups": result.pairs,
        **counted,
        "verdict": {
            "H1": f"{lineup[0]} is stronger" if elo0 == 0 else f"{lineup[0]} is stronger than {elo0:g} Elo",
            "H0": f"{lineup[0]} is not stronger by {elo1:g} Elo",
            "continue": "no verdict yet",
        }[result.verdict],  # fmt: skip
    }


class Progress:
    """One status line on stderr: games done, the first match's estimate with its interval, the SPRT's LLR between
    its bounds when ``sprt`` (ELO0, ELO1) is given, and the time left."""

    def __init__(
        self, tournament: Tournament, total: int, stream=sys.stderr, sprt: tuple[float, float] | None = None
    ) -> None:
        self.tournament = tournament
        self.total = total
        self.stream = stream
        self.sprt = sprt
        self.started = time.monotonic()
        self.start_count: int | None = None
        self.deals = range(tournament.first_deal, tournament.first_deal + tournament.deals)

    def __call__(self, results: list[dict]) -> None:
        done = sum(r["deal"] in self.deals for r in results)  # a file may hold other shards' games too
        if self.start_count is None:
            self.start_count = done - 1
        lineup = self.tournament.lineups[0]
        games = [r for r in results if r["match"] == ",".join(lineup)]
        match = summarize_match(lineup, games)
        first = match["configs"][lineup[0]]["mean_return"]
        rate = (done - self.start_count) / max(1e-9, time.monotonic() - self.started)
        eta = (self.total - done) / rate if rate > 0 else math.inf
        width = 24
        filled = int(width * done / max(1, self.total))
        if first[0] is None:
            estimate = "-"
        elif first[1] is None:
            estimate = f"{first[0]:.3f} (one deal group: no interval yet)"
        else:
            estimate = f"{first[0]:.3f} [{first[1]:.3f}, {first[2]:.3f}]"
            if "note" in match:
                n = match["deal_groups"]
                estimate += f" ({n} deal group{'s' if n != 1 else ''}: too few to tell yet)"
        judged = ""
        if self.sprt:
            report = sprt_report(lineup, games, *self.sprt)
            judged = f" | LLR {report['llr']:.2f} [{report['bounds'][0]:.2f}, {report['bounds'][1]:.2f}]"
        self.stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} games | {lineup[0]} return {estimate}"
            f"{judged} | ETA {format_seconds(eta)}   "
        )
        self.stream.flush()


def format_seconds(seconds: float) -> str:
    if math.isinf(seconds):
        return "?"
    minutes, secs = divmod(int(seconds), 60)
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m" if hours else f"{minutes}m{secs:02d}s"


def plot_strength(summary: dict, tournament: Tournament, path: Path, against: str) -> None:
    """Strength against ``against`` by budget: one line per algorithm, iterations on a log axis, the 95 % interval
    of the mean return (the win share in games won or lost, chips in poker) as a band."""
    pyplot = optional_pyplot()
    lines: dict[str, list[tuple[int, list[float]]]] = defaultdict(list)
    for match, result in summary["matches"].items():
        names = match.split(",")
        challenger = names[0]
        if challenger == against or against not in names:
            continue
        settings = tournament.configs[challenger]
        if settings.iterations is None:
            continue
        mean, low, high = result["configs"][challenger]["mean_return"]
        if mean is None:
            continue
        # One deal group has no interval: the point is drawn without a bar.
        lines[settings.algorithm].append(
            (settings.iterations, (mean, mean if low is None else low, mean if high is None else high))
        )
    figure, axes = pyplot.subplots(figsize=(7, 4.5))
    markers = "osD^v*"  # one per algorithm, so that points at one budget stay told apart where they overlap
    for number, (algorithm, points) in enumerate(sorted(lines.items())):
        points.sort()
        xs = [p[0] for p in points]
        ys = [p[1][0] for p in points]
        (line,) = axes.plot(xs, ys, marker=markers[number % len(markers)], fillstyle="none", label=algorithm)
        axes.fill_between(xs, [p[1][1] for p in points], [p[1][2] for p in points], alpha=0.2, color=line.get_color())
        errors = [
            [y - p[1][1] for y, p in zip(ys, points, strict=True)],
            [p[1][2] - y for y, p in zip(ys, points, strict=True)],
        ]
        axes.errorbar(xs, ys, yerr=errors, fmt="none", capsize=3, color=line.get_color())
    shares = engine_ext.game_info(tournament.game).returns_are_win_shares
    axes.axhline(1 / tournament.players if shares else 0.0, color="grey", linestyle=":", label="even")
    axes.set_xscale("log")
    axes.set_xlabel("iterations per decision")
    axes.set_ylabel(f"{'win share' if shares else 'mean return'} against {against}")
    if shares:
        axes.set_ylim(-0.03, 1.03)  # a line at 0 or 1 (a bot that won or lost every game) stays visible
    axes.set_title(f"{tournament.game}, {tournament.players} players")
    axes.legend(loc="best")
    figure.tight_layout()
    figure.savefig(path, dpi=110)
    pyplot.close(figure)


def parse_config(text: str, game: str) -> tuple[str, BotSettings]:
    """``name=algorithm[,key=value...]`` (e.g. ``ismcts3k=ismcts,iterations=3000,exploration=0.05``), or
    ``name=level:N`` for strength level N of ``game``."""
    name, _, spec = text.partition("=")
    if not name or not spec:
        raise ValueError(f"{text!r}: write name=algorithm[,key=value...] or name=level:N")
    if spec.startswith("level:"):
        return name, play.level_settings(game, int(spec.split(":", 1)[1]))
    algorithm, *pairs = spec.split(",")
    fields = {"algorithm": algorithm}
    # Each setting's type from its annotation ("bool | None", "float | None", "str | None", "int | None", ...).
    known = {f.name: str(f.type) for f in dataclass_fields(BotSettings)}
    for pair in pairs:
        key, _, value = pair.partition("=")
        if key not in known:
            raise ValueError(f"{text!r}: unknown setting {key!r}; settings: {', '.join(sorted(known))}")
        kind = known[key].split("|")[0].strip()
        if kind == "bool":
            if value.lower() not in ("1", "true", "yes", "on", "0", "false", "no", "off"):
                raise ValueError(f"{text!r}: {key} is true or false, not {value!r}")
            fields[key] = value.lower() in ("1", "true", "yes", "on")
        elif kind == "str":
            fields[key] = value
        else:
            try:
                fields[key] = float(value) if kind == "float" else int(value)
            except ValueError:
                wanted = "a number" if kind == "float" else "a whole number"
                raise ValueError(f"{text!r}: {key} is {wanted}, not {value!r}") from None
    return name, BotSettings(**fields)


def run_match(
    game: str, players: int, challenger: BotSettings, field: BotSettings, deals: int, seed: int = 0, workers: int = 1
) -> dict:
    """``challenger`` against ``players - 1`` copies of ``field`` over ``deals`` duplicate deal groups (in memory)."""
    tournament = Tournament(game, players, {"challenger": challenger, "field": field},
                            [["challenger"] + ["field"] * (players - 1)], deals, seed)  # fmt: skip
    if workers > 1:
        with local_executor(workers) as executor:
            results = run(tournament, None, executor)
    else:
        results = [_play_job(job) for job in tournament.jobs()]
    return summarize(tournament, results)["matches"][",".join(tournament.lineups[0])]
