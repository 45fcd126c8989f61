"""The contract checks catch broken engines: each double breaks one promise and one check must fail on it."""

import random

import pytest

import contract
import engine_ext


class Delegating:
    """A state wrapper that forwards everything to a real state; subclasses break one behaviour."""

    def __init__(self, inner):
        self.inner = inner

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def wrap(self, inner):
        return type(self)(inner)

    def clone(self):
        return self.wrap(self.inner.clone())

    def determinize(self, seat, seed):
        return self.wrap(self.inner.determinize(seat, seed))


class SharedClone(Delegating):
    """clone() hands back a view of the same memory."""

    def clone(self):
        return self.wrap(self.inner)


class HalfApply(Delegating):
    """An illegal action is rejected only after part of it was applied."""

    def apply(self, action):
        options = contract._options(self.inner)
        if action not in options and not self.inner.is_terminal():
            self.inner.apply(options[0])
        self.inner.apply(action)


class LeakyObservation(Delegating):
    """The observation shows every seat's private card."""

    def observation(self, seat):
        obs = dict(self.inner.observation(seat))
        obs["all_private"] = [self.inner.private_info(s) for s in range(self.inner.num_players())]
        return obs


class NeverResamples(Delegating):
    """determinize returns the true state: a bot built on it would cheat."""

    def determinize(self, seat, seed):
        return self.wrap(self.inner.clone())


def dealt_kuhn():
    state = engine_ext.new_game("kuhn_poker", 2)
    state.apply(2)
    state.apply(0)
    return state


def test_a_clone_sharing_memory_fails_the_independence_check():
    with pytest.raises(AssertionError, match="changed the original"):
        contract.check_clone_is_independent(SharedClone(dealt_kuhn()))


def test_a_half_applied_illegal_action_fails_the_unchanged_check():
    with pytest.raises(AssertionError, match="changed the state"):
        contract.check_illegal_actions_leave_state_unchanged(HalfApply(dealt_kuhn()), random.Random(0))


def test_an_observation_leaking_a_card_fails_the_observation_check():
    with pytest.raises(AssertionError, match="leaks"):
        contract.check_observations(LeakyObservation(dealt_kuhn()))


def test_a_determinize_that_keeps_the_true_cards_fails_the_resampling_check():
    with pytest.raises(AssertionError, match="never resamples"):
        contract.check_hidden_facts_vary(NeverResamples(dealt_kuhn()))


def test_the_real_states_pass_the_same_checks():
    state = dealt_kuhn()
    contract.check_all(state, random.Random(0))
