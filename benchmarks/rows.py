"""Standing-table rows from several arena runs: each row's summary, its difference from a reference row paired by
deal, OpenSkill ratings pooled over every row, and the strength-vs-budget plot.

Usage: python benchmarks/rows.py RUN.jsonl [RUN.jsonl ...] [--reference RUN.jsonl] [--plot PNG --against NAME]
    [--rename RUN.jsonl NAME NEW_NAME ...] [--sprt ELO0,ELO1]

A multi-player standing table is built one row per run (one bot in one seat against copies of a field bot, e.g.
`atoll bench strength --players 4 --bot ismcts300=ismcts,iterations=300 --bot greedy=greedy --lineup
ismcts300,greedy,greedy,greedy --out row.jsonl`), so that each row can be sized and resumed on its own. This script
reads the rows back together: every match found in the files is summarised as `atoll bench strength` would
(`search.arena.summarize_match`); with `--reference`, each row's first configuration is compared with the reference
row's first configuration deal by deal (rows run with the same `--seed` play the same deals, so the difference of
their mean win shares per deal group has a much narrower interval than either row; `score_edge_difference` pairs
the rows' score edges over the field, `search.arena.score_edge`, the same way); the ratings pool every game of
every file into one Plackett-Luce fit (the field bot, which plays in every row, ties the scale); `--plot` draws win
share against `--against` by iterations, one line per algorithm, as `atoll bench strength --plot` does for one run;
`--sprt ELO0,ELO1` adds each one-against-field row's SPRT state (LLR, bounds, verdict) as `atoll bench strength
--sprt` would judge it: how far a run in progress, or one stopped early, has got; and `decided_after`, the deal
groups after which it would have stopped a run played to a fixed size (H1 or H0 there), or null.

Configurations are identified by name across files: a name given different settings in two files is an error (rename
one run's configuration), and so is one whose settings read the same but resolved differently (the game's defaults
changed between the runs: the games record what each name resolved to; greedy and random by the settings they read
only); ``--rename FILE NAME NEW`` reads one file's
configuration under another name (e.g. a row run before and after a change of defaults). Prints one JSON object.
"""

import argparse
import json
from pathlib import Path

from search import arena, stats
from search.play import BotSettings


def renamed(result: dict, names: dict[str, str]) -> dict:
    """``result`` with its configurations renamed by ``names`` (old: new) wherever a game names them."""
    if not names:
        return result
    result = dict(result)
    result["configs"] = {names.get(k, k): v for k, v in result["configs"].items()}
    if "resolved" in result:
        result["resolved"] = {names.get(k, k): v for k, v in result["resolved"].items()}
    result["seats"] = [names.get(k, k) for k in result["seats"]]
    result["match"] = ",".join(names.get(k, k) for k in result["match"].split(","))
    return result


def load(paths: list[str], renames: dict[str, dict[str, str]] | None = None) -> list[dict]:
    """Every finished game of the files (a truncated last line, an interrupted write, is dropped), each file's
    configurations renamed by ``renames[path]``; one game and player count, and one setting per configuration name,
    across all of them."""
    results: list[dict] = []
    configs: dict[str, tuple[dict, str]] = {}
    for path in paths:
        for number, line in enumerate(Path(path).read_text().splitlines(), 1):
            try:
                result = renamed(json.loads(line), (renames or {}).get(path, {}))
            except json.JSONDecodeError:
                continue
            if results and (result["game"], result["players"]) != (results[0]["game"], results[0]["players"]):
                raise ValueError(
                    f"{path}:{number} is a {result['game']} game with {result['players']} players, the first file's "
                    f"are {results[0]['game']} with {results[0]['players']}"
                )
            for name, config in result["configs"].items():
                resolved = result.get("resolved", {}).get(name)
                seen = configs.setdefault(name, (config, f"{path}:{number}", resolved))
                if seen[0] != config:
                    raise ValueError(
                        f"configuration {name!r} is {seen[0]} at {seen[1]} and {config} at {path}:{number}; "
                        "rename one of them"
                    )
                if None not in (seen[2], resolved) and arena.behaviour(seen[2]) != arena.behaviour(resolved):
                    before, after = arena.behaviour(seen[2]), arena.behaviour(resolved)
                    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
                    raise ValueError(
                        f"configuration {name!r} resolved differently at {seen[1]} and at {path}:{number} "
                        f"(the game's defaults changed: {changed}); rename one of them"
                    )
            results.append(result)
    if not results:
        raise ValueError("no finished games in " + ", ".join(paths))
    return results


def challenger_shares(lineup: list[str], games: list[dict]) -> dict[int, float]:
    """The first configuration's mean win share in each complete deal group."""
    return {deal: arena.pair_score(lineup[0], group) for deal, group in arena.complete_groups(lineup, games).items()}


def challenger_edges(lineup: list[str], games: list[dict]) -> dict[int, float]:
    """The first configuration's score edge over the field (``search.arena.score_edge``) in each complete deal group."""
    return {deal: arena.score_edge(lineup[0], group) for deal, group in arena.complete_groups(lineup, games).items()}


def decided_after(lineup: list[str], games: list[dict], elo0: float, elo1: float) -> dict | None:
    """Where the SPRT would have stopped a fixed-size run: the first number of complete deal groups, taken in deal
    order, at which the LLR reaches a bound, with the verdict there; None if it never does. (A run under `--sprt`
    counts groups as they finish, which with one worker is deal order.)"""
    scores = [arena.pair_score(lineup[0], group) for group in arena.complete_groups(lineup, games).values()]
    for count in range(1, len(scores) + 1):
        verdict = stats.group_sprt(scores[:count], elo0, elo1, len(lineup)).verdict
        if verdict != "continue":
            return {"deal_groups": count, "verdict": verdict}
    return None


def rows(
    paths: list[str],
    reference: str | None = None,
    renames: dict[str, dict[str, str]] | None = None,
    sprt: tuple[float, float] | None = None,
) -> tuple[dict, arena.Tournament]:
    files = list(dict.fromkeys(paths + ([reference] if reference else [])))
    stray = sorted(set(renames or {}) - set(files))
    if stray:
        raise ValueError(f"--rename names files that are not read: {stray}")
    results = load(files, renames)
    matches: dict[str, list[dict]] = {}
    for result in results:
        matches.setdefault(result["match"], []).append(result)
    configs = {name: BotSettings.from_dict(config) for result in results for name, config in result["configs"].items()}
    lineups = [match.split(",") for match in matches]
    first = results[0]
    tournament = arena.Tournament(
        first["game"], first["players"], configs, lineups, 1 + max(r["deal"] for r in results), 0, first["options"]
    )
    summary: dict = {"game": first["game"], "players": first["players"], "games": len(results), "matches": {}}
    for lineup in lineups:
        match = ",".join(lineup)
        summary["matches"][match] = arena.summarize_match(lineup, matches[match])
        summary["matches"][match]["minutes"] = round(sum(g["seconds"] for g in matches[match]) / 60, 1)
        if sprt and arena.one_against_field(lineup) and all(arena.returns_are_shares(g) for g in matches[match]):
            summary["matches"][match]["sprt"] = arena.sprt_report(lineup, matches[match], *sprt)
            summary["matches"][match]["sprt"]["decided_after"] = decided_after(lineup, matches[match], *sprt)
    if reference:
        # The reference row is the reference file's first match (its games are among the results already).
        with open(reference) as lines:
            ref_match = next(renamed(json.loads(line), (renames or {}).get(reference, {}))["match"]
                             for line in lines if line.strip())  # fmt: skip
        ref_lineup = ref_match.split(",")
        base = challenger_shares(ref_lineup, matches[ref_match])
        base_edges = challenger_edges(ref_lineup, matches[ref_match])
        for lineup in lineups:
            match = ",".join(lineup)
            if lineup == ref_lineup:
                continue
            shares = challenger_shares(lineup, matches[match])
            common = sorted(set(shares) & set(base))
            if len(common) < 2:
                continue
            diff = stats.mean_interval([shares[d] - base[d] for d in common])
            edges = challenger_edges(lineup, matches[match])
            summary["matches"][match]["against_reference"] = {
                "reference": ",".join(ref_lineup),
                "deal_groups": len(common),
                "difference": diff.as_list(),
                # the same pairing in points: the row's score edge over its field minus the reference's
                "score_edge_difference": stats.mean_interval([edges[d] - base_edges[d] for d in common]).as_list(),
            }
    if first["players"] > 2:
        summary["openskill"] = arena.openskill_ratings(results)
    return summary, tournament


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+", help="arena JSONL files (atoll bench strength --out), one row each")
    parser.add_argument("--reference", help="the row the others are paired with by deal")
    parser.add_argument("--plot", help="PNG: win share against --against by iterations, one line per algorithm")
    parser.add_argument("--against", help="the field bot the plot measures against (required with --plot)")
    parser.add_argument(
        "--sprt", metavar="ELO0,ELO1",
        help="each one-against-field row's SPRT as `atoll bench strength --sprt` judges it (e.g. of a run in progress)",
    )  # fmt: skip
    parser.add_argument(
        "--rename", nargs=3, action="append", default=[], metavar=("FILE", "NAME", "NEW"),
        help="read FILE's configuration NAME as NEW",
    )  # fmt: skip
    args = parser.parse_args()
    renames: dict[str, dict[str, str]] = {}
    for path, name, new in args.rename:
        renames.setdefault(path, {})[name] = new
    if args.plot and not args.against:
        parser.error("--plot needs --against NAME (the field bot)")
    try:
        sprt = arena.sprt_bounds(args.sprt) if args.sprt else None
        summary, tournament = rows(args.paths, args.reference, renames, sprt)
    except (OSError, ValueError, KeyError) as err:
        parser.exit(2, f"rows.py: {err}\n")
    if args.plot:
        arena.plot_strength(summary, tournament, Path(args.plot), args.against)
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()
