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


def test_an_interval_stays_within_what_the_values_can_be_and_one_value_has_none():
    # Two deal groups of a 2-player match: t with one degree of freedom spans far beyond [0, 1] unclipped.
    wide = stats.mean_interval([0.25, 1.0])
    assert wide.low < -1 and wide.high > 2
    clipped = stats.mean_interval([0.25, 1.0], (0.0, 1.0))
    assert clipped.as_list() == [0.625, 0.0, 1.0]
    assert stats.mean_interval([0.5]).as_list() == [0.5, None, None]  # JSON has no infinity: no interval at all
    assert stats.mean_interval([0.5], (0.0, 1.0)).as_list() == [0.5, 0.0, 1.0]


def test_an_elo_interval_whose_shares_reach_0_or_1_is_unbounded_not_2400():
    elo, low, high = stats.elo_interval([0.5, 1.0])
    assert elo == pytest.approx(stats.elo_from_score(0.75)) and low == -math.inf and high == math.inf
    elo, low, high = stats.elo_interval([0.5, 0.75] * 20)
    assert math.isfinite(low) and math.isfinite(high) and low < elo < high


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


def simulated_sprt(
    elo: float, rng: random.Random, elo0: float = 0, elo1: float = 20, players: int = 2, every: int = 20
) -> str:
    """An SPRT on deal groups of ``players`` independent games (with two, pairs) that the first bot wins with the share
    of ``elo`` (no draws), tested every ``every`` groups."""
    p = stats.share_from_elo(elo, players)
    groups = []
    while True:
        groups.append(sum(rng.random() < p for _ in range(players)) / players)
        if len(groups) % every == 0:
            verdict = stats.group_sprt(groups, elo0, elo1, players).verdict
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


def test_elo_with_more_seats_is_the_logistic_with_two_and_inverts():
    for elo in (-200, 0, 35, 400):
        assert stats.share_from_elo(elo, 2) == pytest.approx(stats.score_from_elo(elo))
        for players in (2, 3, 4, 5):
            assert stats.elo_from_share(stats.share_from_elo(elo, players), players) == pytest.approx(elo)
    assert stats.share_from_elo(0, 4) == pytest.approx(0.25)  # equal strength: the equal share


def test_the_multi_player_sprt_error_rates_stay_near_their_bounds():
    rng = random.Random(1)
    four = {"players": 4, "elo1": 50, "every": 10}
    false_accepts = sum(simulated_sprt(0, rng, **four) == "H1" for _ in range(60))
    misses = sum(simulated_sprt(50, rng, **four) == "H0" for _ in range(60))
    assert false_accepts <= 8 and misses <= 8, (false_accepts, misses)  # 5 % each: 3 of 60 expected
    assert simulated_sprt(250, rng, **four) == "H1" and simulated_sprt(-150, rng, **four) == "H0"
    assert simulated_sprt(250, rng, players=3, elo1=50, every=10) == "H1"


def test_the_multi_player_sprt_counts_every_group_score_and_agrees_with_its_normal_approximation():
    rng = random.Random(2)
    # Ties make many distinct group scores (a share of 1/2 or 1/3 in some games).
    shares = [1.0] * 21 + [0.5] * 8 + [1 / 3] * 4 + [0.0] * 67  # a mean share near the hypotheses' (0.25, 0.27)
    groups = [sum(rng.choice(shares) for _ in range(4)) / 4 for _ in range(20000)]
    result = stats.group_sprt(groups, 0, 20, 4)
    assert sum(result.counts) == 20000 and len(result.outcomes) > 5 and result.outcomes[0] == 0.0
    n, mean = len(groups), sum(groups) / len(groups)
    var = sum((g - mean) ** 2 for g in groups) / n
    s0, s1 = stats.share_from_elo(0, 4), stats.share_from_elo(20, 4)
    # Skewed scores (mostly 0) leave the second-order approximation some way off; a wrong sign or scale is not.
    assert result.llr == pytest.approx(n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), rel=0.2)
    for target in (s0, s1):
        fitted = stats._mle_with_mean([c / n for c in result.counts], result.outcomes, target)
        assert sum(p * o for p, o in zip(fitted, result.outcomes, strict=True)) == pytest.approx(target, abs=1e-9)
    # One value seen so far (every group won) still fits both hypotheses, and says H1 soon.
    assert stats.group_sprt([1.0] * 3, 0, 50, 4).verdict == "continue"
    assert stats.group_sprt([1.0] * 20, 0, 50, 4).verdict == "H1"
    assert stats.group_sprt([0.5, 0.25], 0, 30, 2).counts == stats.sprt([0.5, 0.25], 0, 30).counts
