"""Level 5's head to head at equal time in four-seat Survive, all of it in deal order: one seat at 21,000 iterations
scoring leaves after the rivals' replies (``playout_to=own_turn,playout_candidates=1``) against three at 30,000
scoring at the leaf (docs/experiments/survive.md, "The head to head at level 5's time", commits 77ff94b to 7bfb1be).

Deal groups 0-46 were played on an earlier machine whose results file was lost with it; their group scores and score
edge are those docs/benchmarks.md gave for them (commit 8efd659). An SPRT's LLR depends only on how many groups
took each score (``stats.group_sprt``), so they enter exactly; the score edge's spread over them is read back from its
interval. Groups 47 on are the games of ``--first-deal 47`` in FILE (default: the record beside this script). Replaying
deals 0-46 (``--first-deal 0 --deals 47``, about four hours of two workers) would give the same games on a checkout
of ``d5dcb02`` or earlier: since ``001aebe`` the light policy's Action-phase moves are drawn without a list, with the
same chances but another use of the random stream, so the 21,000-iteration seat plays other games from the same seeds.

Usage: python benchmarks/records/level5_equal_time.py [FILE]
Prints JSON: groups, win share, Elo, LLR and bounds, the first verdict in deal order (if any), the score edge pooled.
"""

import json
import math
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from search import arena, stats  # noqa: E402 - after the path

LINEUP = ["o21k", "d30k", "d30k", "d30k"]
FIRST_GROUPS = {0.0: 13, 0.125: 5, 0.25: 14, 0.375: 5, 0.5: 5, 7 / 12: 1, 0.625: 1, 0.75: 3}  # deals 0-46
FIRST_EDGE = (0.31, -0.18, 0.80)  # their score edge, points a game, with its 95 % (Student's t) interval
FIRST_DEAL = sum(FIRST_GROUPS.values())
ELO0, ELO1 = 0.0, 30.0


def main() -> None:
    path = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).with_name("s4z-own-eq21k-from47.jsonl")
    games = [json.loads(line) for line in path.read_text().splitlines() if line.strip().endswith("}")]
    groups = arena.complete_groups(LINEUP, games)
    deals = sorted(groups)
    if deals != list(range(FIRST_DEAL, FIRST_DEAL + len(deals))):
        raise SystemExit(f"{path}: expected the complete deal groups {FIRST_DEAL} on, in a row; got {deals}")
    first = [score for score, count in FIRST_GROUPS.items() for _ in range(count)]
    later = [arena.pair_score(LINEUP[0], groups[deal]) for deal in deals]
    verdict = None
    for n in range(1, len(later) + 1):
        step = stats.group_sprt(first + later[:n], ELO0, ELO1, len(LINEUP))
        if not step.lower < step.llr < step.upper:
            verdict = {"after_groups": FIRST_DEAL + n, "llr": round(step.llr, 3), "H1": step.llr >= step.upper}
            break
    shares = first + later
    sprt = stats.group_sprt(shares, ELO0, ELO1, len(LINEUP))
    elo = stats.elo_interval_of_shares(shares, len(LINEUP))
    # The score edge over every group: the first groups' mean and variance (from their interval) pooled with the
    # later groups' values.
    edges = [arena.score_edge(LINEUP[0], groups[deal]) for deal in deals]
    m1, n1 = FIRST_EDGE[0], FIRST_DEAL
    var1 = ((FIRST_EDGE[0] - FIRST_EDGE[1]) / stats.student_t95(n1 - 1)) ** 2 * n1
    n = n1 + len(edges)
    mean = (n1 * m1 + sum(edges)) / n
    m2 = sum(edges) / len(edges) if edges else 0.0
    squares = (n1 - 1) * var1 + sum((e - m2) ** 2 for e in edges) + n1 * len(edges) / n * (m1 - m2) ** 2
    half = stats.student_t95(n - 1) * math.sqrt(squares / (n - 1) / n)
    cpu = arena.summarize_match(LINEUP, [g for g in games if g["deal"] in groups])["configs"]
    print(
        json.dumps(
            {
                "deal_groups": len(shares),
                "later_groups": len(later),
                "win_share": round(sum(shares) / len(shares), 4),
                "elo": [round(x, 1) for x in elo],
                "llr": round(sprt.llr, 3),
                "bounds": [round(sprt.lower, 3), round(sprt.upper, 3)],
                "first_verdict": verdict,
                "score_edge": [round(mean, 3), round(mean - half, 3), round(mean + half, 3)],
                "later_groups_alone": {
                    "win_share": stats.mean_interval(later).as_list(3),
                    "score_edge": stats.mean_interval(edges).as_list(3),
                    "group_scores": {f"{s:.4g}": later.count(s) for s in sorted(set(later))},
                    "cpu_ms_per_decision": {k: v.get("cpu_ms_per_decision") for k, v in cpu.items()},
                },
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
