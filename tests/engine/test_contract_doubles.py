"""The contract checks catch broken engines: each double breaks one promise and one check must fail on it."""

import json
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


class DescendingLegal(Delegating):
    """legal_actions() comes out in descending order."""

    def legal_actions(self):
        return sorted(self.inner.legal_actions(), reverse=True)


class LossyJson(Delegating):
    """to_json() forgets the last card dealt."""

    def to_json(self):
        data = json.loads(self.inner.to_json())
        data["cards"] = data["cards"][:-1]
        return json.dumps(data, separators=(",", ":"))


class SwappedMoveText(Delegating):
    """action_to_string() writes Pass as Bet and Bet as Pass."""

    def action_to_string(self, action):
        return self.inner.action_to_string(1 - action)


class LastObservedAs(Delegating):
    """observed_as() gives the last move seen that way, not the first (another line than the search's is replayed)."""

    def observed_as(self, observed, seat):
        matches = [a for a in contract._options(self.inner) if self.inner.observed_action(a, seat) == observed]
        return matches[-1] if matches else None


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


def test_descending_legal_actions_fail_the_node_shape_check():
    with pytest.raises(AssertionError, match="not ascending"):
        contract.check_node_shape(DescendingLegal(dealt_kuhn()))


def test_a_json_that_forgets_a_card_fails_the_round_trip_check():
    with pytest.raises(AssertionError, match="byte-identical"):
        contract.check_json_round_trip(LossyJson(dealt_kuhn()))


def test_move_text_that_names_another_move_fails_the_round_trip_check():
    with pytest.raises(AssertionError, match="parses back to another action"):
        contract.check_action_strings_round_trip(SwappedMoveText(dealt_kuhn()))


def test_a_new_game_that_ignores_its_seed_fails_the_setup_check():
    with pytest.raises(AssertionError, match="ignores its seed"):
        contract.check_seed_decides_the_setup(lambda seed: engine_ext.new_game("survive", 4, 0), random_setup=True)


def test_a_new_game_that_is_not_reproducible_fails_the_setup_check():
    seeds = iter(range(100))
    with pytest.raises(AssertionError, match="two different set-ups"):
        contract.check_seed_decides_the_setup(lambda seed: engine_ext.new_game("survive", 4, next(seeds)), True)


def test_an_observed_as_that_takes_the_last_match_fails_its_check():
    # at Kuhn's first deal, seat 1 sees every card dealt to seat 0 the same way
    with pytest.raises(AssertionError, match="first move seen"):
        contract.check_observed_as(LastObservedAs(engine_ext.new_game("kuhn_poker", 2)))
