"""The arena's statistics against values computed independently, and the SPRT's error rates by simulation."""

import math
import random

import pytest

from search import stats


def test_wilson_matches_the_textbook_interval():
    low, high = stats.wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)  # Wilson (1927); Newcombe (1998), table I
    assert stats.wilson(0, 10)[0] == 0.0 and stats.wilson(10, 10)[1] == pytest.approx(1.0)


def test_student_t_quantiles():
    assert stats.student_t95(1) == 12.706 and stats.student_t95(30) == 2.042
    assert abs(stats.student_t95(60) - 2.000) < 0.002 and abs(stats.student_t95(120) - 1.980) < 0.002


def test_mean_interval_is_the_t_interval():
    interval = stats.mean_interval([0.0, 1.0, 0.5, 0.5])
    half = 3.182 * math.sqrt((0.25 + 0.25) / 3 / 4)
    assert (
        interval.mean == 0.5
        and interval.low == pytest.approx(0.5 - half)
        and interval.high == pytest.approx(0.5 + half)
    )


def test_elo_and_score_are_inverse_logistics():
    assert stats.elo_from_score(0.5) == 0.0
    assert stats.score_from_elo(400) == pytest.approx(10 / 11)
    for elo in (-300, -20, 0, 35, 250):
        assert stats.elo_from_score(stats.score_from_elo(elo)) == pytest.approx(elo)


def test_the_constrained_mle_keeps_the_mass_and_hits_the_mean():
    probs = [0.05, 0.2, 0.4, 0.25, 0.1]
    outcomes = [0, 0.25, 0.5, 0.75, 1.0]
    for target in (0.4, 0.5, 0.6):
        fitted = stats._mle_with_mean(probs, outcomes, target)
        assert sum(fitted) == pytest.approx(1.0, abs=1e-9)
        assert sum(p * o for p, o in zip(fitted, outcomes, strict=True)) == pytest.approx(target, abs=1e-9)


def test_the_llr_agrees_with_its_normal_approximation_on_many_pairs():
    counts = [400, 1600, 3000, 2000, 1000]
    n = sum(counts)
    outcomes = [0, 0.25, 0.5, 0.75, 1.0]
    mean = sum(c * o for c, o in zip(counts, outcomes, strict=True)) / n
    var = sum(c * (o - mean) ** 2 for c, o in zip(counts, outcomes, strict=True)) / n
    s0, s1 = stats.score_from_elo(0), stats.score_from_elo(10)
    approx = n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var)
    assert stats.pentanomial_llr(counts, 0, 10) == pytest.approx(approx, rel=0.02)


def simulated_sprt(elo: float, rng: random.Random, elo0: float = 0, elo1: float = 20) -> str:
    """An SPRT on pairs whose two games are independent and the first bot wins with the logistic score of ``elo``
    (no draws)."""
    p = stats.score_from_elo(elo)
    pairs = []
    while True:
        pairs.append(((rng.random() < p) + (rng.random() < p)) / 2)
        if len(pairs) % 20 == 0:
            verdict = stats.sprt(pairs, elo0, elo1).verdict
            if verdict != "continue":
                return verdict


def test_sprt_error_rates_stay_near_their_bounds():
    rng = random.Random(5)
    false_accepts = sum(simulated_sprt(0, rng) == "H1" for _ in range(60))
    misses = sum(simulated_sprt(20, rng) == "H0" for _ in range(60))
    assert false_accepts <= 8 and misses <= 8, (false_accepts, misses)  # 5 % each: 3 of 60 expected
    assert simulated_sprt(120, rng) == "H1" and simulated_sprt(-120, rng) == "H0"


def test_pentanomial_counts_pair_scores():
    assert stats.pentanomial([0, 0.25, 0.5, 0.5, 1.0]) == [1, 1, 2, 0, 1]
