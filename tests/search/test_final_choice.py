"""The final choice by a lower confidence bound (``final_lcb``)."""

import math

import pytest

import engine_ext
import search
from search import _lower_bounds


def entry(samples, mean, sd):
    return {
        "visits": samples,
        "samples": samples,
        "learnt_sum": samples * mean,
        "own_learnt_sum": samples * mean,
        "learnt_sq_sum": samples * (sd**2 + mean**2),
    }


def test_the_bound_counts_each_moves_spread_and_samples():
    entries = [(1, entry(1, 0.9, 0.0)), (2, entry(400, 0.6, 0.1)), (3, entry(100, 0.6, 0.1)), (4, entry(100, 0.5, 0.3))]
    bounds = _lower_bounds(entries, 2.0)
    # The root's pooled spread stands in for a single sample's own (none).
    assert bounds[1] == pytest.approx(0.9 - 2.0 * math.sqrt(_pooled_var(entries)))
    assert bounds[2] > bounds[3]  # same mean, more samples
    assert bounds[4] == pytest.approx(0.5 - 2.0 * 0.3 / 10)  # its own spread, wider than the root's
    assert bounds[2] == pytest.approx(0.6 - 2.0 * math.sqrt(max(0.1**2, _pooled_var(entries)) / 400))
    # With no standard errors the bound is the mean.
    assert _lower_bounds(entries, 0.0) == pytest.approx({1: 0.9, 2: 0.6, 3: 0.6, 4: 0.5})


def _pooled_var(entries):
    n = sum(s["samples"] for _, s in entries)
    total = sum(s["own_learnt_sum"] for _, s in entries)
    return sum(s["learnt_sq_sum"] for _, s in entries) / n - (total / n) ** 2


def test_the_search_plays_the_highest_bound_among_the_well_visited_moves():
    state = engine_ext.new_game("survive", 2, seed=4)
    every = 10_000
    result = search.suggest(state, 0, iterations=2000, seed=1, final_lcb=2.0, setup_algorithm="same", top_k=every)
    plain = search.suggest(state, 0, iterations=2000, seed=1, setup_algorithm="same", top_k=every)
    # The same search (equal visits and values), ranked by the bound instead of the visits.
    assert sorted((m.action, m.visits, m.value) for m in result.moves) == sorted(
        (m.action, m.visits, m.value) for m in plain.moves
    )
    assert [m.action for m in result.moves] != [m.action for m in plain.moves]
    floor = search.LCB_VISIT_FLOOR * plain.moves[0].visits
    well = [m for m in result.moves if m.visits >= floor]
    assert result.moves[: len(well)] == well  # the rarely visited moves come last


def test_a_negative_bound_is_refused():
    state = engine_ext.new_game("kuhn_poker", 2)
    state.apply(0)
    state.apply(2)
    with pytest.raises(ValueError, match="final_lcb"):
        search.suggest(state, 0, iterations=10, final_lcb=-1.0)
