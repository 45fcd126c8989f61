"""The statistics every strength claim is judged with: intervals on win rates and shares, Elo with error bars, and
the sequential probability ratio test on pairs of duplicate games (as fishtest runs it).

Conventions. A game's *win share* for a seat is its return in a board game (1 for a sole win, 1/k in a k-way tie, 0
otherwise). A *deal group* is one deal (one seed) replayed with the seats permuted; its games are not independent of
each other, so intervals on shares are taken over deal groups, never over single games. A *pair* is the deal group of
a 2-player match: the same deal with colours reversed, scoring 0, 0.5, 1, 1.5 or 2 for the first bot (pentanomial).

Elo with more than two seats. One configuration X Elo stronger than each of its N - 1 equal opponents wins a game of N
with probability r / (r + N - 1), r = 10^(X / 400) (the Bradley-Terry / Luce choice model behind Elo and Plackett-Luce
ratings); with two seats this is the usual logistic Elo. The SPRT and the Elo intervals of a lineup "A, B, ..., B"
use this mapping, over A's mean share per deal group.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.959963984540054  # two-sided 95 % normal quantile
# Two-sided 95 % quantiles of Student's t for 1..30 degrees of freedom.
T95 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
    2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def wilson(successes: float, n: int, z: float = Z95) -> tuple[float, float]:
    """Wilson score interval for a proportion (ties may count one half)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return (max(0.0, centre - half), min(1.0, centre + half))


def student_t95(df: int) -> float:
    """Two-sided 95 % quantile of Student's t (exact table to 30 degrees of freedom, then a close approximation)."""
    table = T95
    if df < 1:
        return math.inf
    if df <= len(table):
        return table[df - 1]
    return Z95 + (Z95**3 + Z95) / (4 * df)  # Cornish-Fisher, within 0.001 above 30


@dataclass(frozen=True)
class MeanInterval:
    mean: float
    low: float
    high: float
    n: int

    def as_list(self, digits: int = 4) -> list[float | None]:
        """``[mean, low, high]`` for JSON: an end that is not finite (one value: no interval) is ``None``."""
        return [round(x, digits) if math.isfinite(x) else None for x in (self.mean, self.low, self.high)]


def mean_interval(values: Sequence[float], bounds: tuple[float, float] | None = None) -> MeanInterval:
    """Mean and its 95 % interval (Student's t) over independent values, e.g. one value per deal group. With
    ``bounds`` (a win share's [0, 1]) the interval is clipped to what the values can be; one value has no interval
    (infinite ends, or the bounds)."""
    n = len(values)
    if n == 0:
        return MeanInterval(math.nan, math.nan, math.nan, 0)
    mean = sum(values) / n
    if n == 1:
        low, high = -math.inf, math.inf
    else:
        variance = sum((v - mean) ** 2 for v in values) / (n - 1)
        half = student_t95(n - 1) * math.sqrt(variance / n)
        low, high = mean - half, mean + half
    if bounds is not None:
        low, high = max(low, bounds[0]), min(high, bounds[1])
    return MeanInterval(mean, low, high, n)


def elo_from_score(score: float) -> float:
    """Elo difference whose logistic expected score is ``score`` (clamped away from 0 and 1)."""
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def share_from_elo(elo: float, players: int) -> float:
    """The win share of one seat ``elo`` stronger than each of its ``players - 1`` equal opponents."""
    ratio = 10.0 ** (elo / 400.0)
    return ratio / (ratio + players - 1)


def elo_from_share(share: float, players: int) -> float:
    """The Elo advantage over each of ``players - 1`` equal opponents whose win share is ``share`` (clamped away from
    0 and 1); ``elo_from_score`` with two seats."""
    share = min(max(share, 1e-6), 1 - 1e-6)
    return 400.0 * math.log10(share * (players - 1) / (1.0 - share))


def elo_interval_of_shares(group_shares: Sequence[float], players: int) -> tuple[float, float, float]:
    """Elo of the first configuration with a 95 % interval, from its mean share per deal group against ``players -
    1`` copies of one opponent; ``elo_interval`` with two seats."""
    interval = mean_interval(group_shares, (0.0, 1.0))
    if interval.n < 2:
        return (elo_from_share(interval.mean, players), -math.inf, math.inf)
    # An end of the shares' interval at 0 or 1 is an unbounded Elo, not the ±2,400 of a clamped share.
    low = -math.inf if interval.low <= 0.0 else elo_from_share(interval.low, players)
    high = math.inf if interval.high >= 1.0 else elo_from_share(interval.high, players)
    return (elo_from_share(interval.mean, players), low, high)


def elo_interval(pair_scores: Sequence[float]) -> tuple[float, float, float]:
    """Elo difference of the first bot with a 95 % interval, from per-pair mean scores in [0, 1] (each pair's score
    over its two games divided by 2); the interval of the mean score is mapped through the logistic."""
    return elo_interval_of_shares(pair_scores, 2)


PAIR_OUTCOMES = (0.0, 0.5, 1.0, 1.5, 2.0)


def pentanomial(pair_scores: Sequence[float]) -> list[int]:
    """Counts of pairs in which the first bot scored 0, 0.5, 1, 1.5 and 2 points, from its mean score per pair
    (0, 0.25, 0.5, 0.75, 1)."""
    counts = [0] * 5
    for score in pair_scores:
        counts[min(4, max(0, round(score * 4)))] += 1
    return counts


def _mle_with_mean(probs: Sequence[float], outcomes: Sequence[float], target: float) -> list[float]:
    """The distribution closest to ``probs`` (maximum likelihood) whose mean is ``target``: p_i / (1 + x (o_i - t)),
    with x found by bisection so that the probabilities sum to one (Van den Bergh's method, as fishtest uses)."""
    shifted = [o - target for o in outcomes]
    low_bound = max((-1.0 / s for s, p in zip(shifted, probs, strict=True) if s > 0 and p > 0), default=-1e9)
    high_bound = min((-1.0 / s for s, p in zip(shifted, probs, strict=True) if s < 0 and p > 0), default=1e9)
    lo, hi = low_bound + 1e-12, high_bound - 1e-12

    def excess(x: float) -> float:
        return sum(p * s / (1 + x * s) for p, s in zip(probs, shifted, strict=True))

    for _ in range(200):
        mid = (lo + hi) / 2
        if excess(mid) > 0:
            lo = mid
        else:
            hi = mid
    x = (lo + hi) / 2
    return [p / (1 + x * s) for p, s in zip(probs, shifted, strict=True)]


def pentanomial_llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """Log-likelihood ratio of "Elo = elo1" against "Elo = elo0" for pentanomial pair counts (logistic Elo)."""
    return _llr(counts, [o / 2 for o in PAIR_OUTCOMES], score_from_elo(elo0), score_from_elo(elo1))


def _llr(counts: Sequence[int], outcomes: Sequence[float], mean0: float, mean1: float) -> float:
    """Log-likelihood ratio of "mean score = mean1" against "= mean0" for counts of each outcome: the observed
    distribution fitted to each mean by maximum likelihood (``_mle_with_mean``)."""
    if sum(counts) == 0:
        return 0.0
    # A small prior keeps empty cells from making the MLE degenerate (fishtest adds one half pair per cell too).
    smoothed = [c + 1e-3 for c in counts]
    total = sum(smoothed)
    probs = [c / total for c in smoothed]
    p0 = _mle_with_mean(probs, outcomes, mean0)
    p1 = _mle_with_mean(probs, outcomes, mean1)
    return sum(c * math.log(a / b) for c, a, b in zip(counts, p1, p0, strict=True) if c)


@dataclass(frozen=True)
class SprtResult:
    llr: float
    lower: float  # accept H0 (not stronger by elo1) at or below
    upper: float  # accept H1 (stronger by elo1) at or above
    pairs: int  # pairs, or deal groups with more than two seats
    counts: list[int]  # pentanomial counts, or with more than two seats the groups per value of ``outcomes``
    outcomes: list[float] | None = None  # the distinct group scores counted (more than two seats)

    @property
    def verdict(self) -> str:
        if self.llr >= self.upper:
            return "H1"  # the first bot is stronger (Elo >= elo1 more likely than <= elo0)
        if self.llr <= self.lower:
            return "H0"
        return "continue"


def sprt(pair_scores: Sequence[float], elo0: float, elo1: float, alpha: float = 0.05, beta: float = 0.05) -> SprtResult:
    """Wald's SPRT on pairs of duplicate games: H0 Elo = elo0 against H1 Elo = elo1, error rates alpha and beta."""
    counts = pentanomial(pair_scores)
    return SprtResult(
        llr=pentanomial_llr(counts, elo0, elo1),
        lower=math.log(beta / (1 - alpha)),
        upper=math.log((1 - beta) / alpha),
        pairs=len(pair_scores),
        counts=counts,
    )


def group_sprt(
    group_shares: Sequence[float], elo0: float, elo1: float, players: int, alpha: float = 0.05, beta: float = 0.05
) -> SprtResult:
    """Wald's SPRT for one configuration against ``players - 1`` copies of another, on its mean share per deal group:
    H0 Elo = elo0 against H1 Elo = elo1 in the sense of ``share_from_elo``. With two seats this is ``sprt``
    (pentanomial). With more, the groups' scores take many values (ties share a win), so the likelihood is that of
    their observed distribution, fitted to each hypothesis's mean by maximum likelihood as the pentanomial is
    (``_llr``); 0 and 1 always enter as possible values, with a tiny prior, so a run that has only
    seen one value still has a fit."""
    if players == 2:
        return sprt(group_shares, elo0, elo1, alpha, beta)
    if players < 2:
        raise ValueError("an SPRT needs at least two seats")
    tally: dict[float, int] = {0.0: 0, 1.0: 0}
    for share in group_shares:
        key = round(share, 9)
        tally[key] = tally.get(key, 0) + 1
    outcomes = sorted(tally)
    counts = [tally[o] for o in outcomes]
    return SprtResult(
        llr=_llr(counts, outcomes, share_from_elo(elo0, players), share_from_elo(elo1, players)),
        lower=math.log(beta / (1 - alpha)),
        upper=math.log((1 - beta) / alpha),
        pairs=len(group_shares),
        counts=counts,
        outcomes=outcomes,
    )
