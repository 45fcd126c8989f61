"""The generic state contract (DESIGN.md, "Engine core"), as checks any game must pass after every step.

Each check takes the object under test through its public API only, so the deliberately broken test doubles in
``tests/engine/test_contract_doubles.py`` can show that every check is able to fail.
"""

import json
import random

import engine_ext
from search.bench import random_step

DETERMINIZE_SEEDS = (1, 2, 3, 5, 8, 13, 21, 34)


def check_clone_is_independent(state) -> None:
    before = state.to_json()
    copy = state.clone()
    assert copy.to_json() == before, "clone() differs from the original"
    if not copy.is_terminal():
        copy.apply(_any_legal(copy))
        assert state.to_json() == before, "playing on a clone changed the original"


def check_json_round_trip(state) -> None:
    """to_json captures the whole state: what from_json restores behaves the same, and writes the same text."""
    text = state.to_json()
    json.loads(text)
    restored = engine_ext.from_json(text)
    assert restored.to_json() == text, "to_json -> from_json -> to_json is not byte-identical"
    assert (restored.current_player(), restored.legal_actions(), restored.chance_outcomes()) == (
        state.current_player(),
        state.legal_actions(),
        state.chance_outcomes(),
    ), "the state restored from to_json is not byte-identical in behaviour (player, moves, chance)"
    for seat in range(state.num_players()):
        assert restored.private_info(seat) == state.private_info(seat), "to_json loses a seat's private facts"
        assert restored.observation(seat) == state.observation(seat), "to_json loses what a seat observes"


def check_illegal_actions_leave_state_unchanged(state, rng: random.Random) -> None:
    before = state.to_json()
    legal = _legal_set(state)
    candidates = [-7, -1, max(legal, default=0) + 1, 10**6] + [rng.randrange(-5, 5000) for _ in range(4)]
    for action in candidates:
        if action in legal:
            continue
        try:
            state.apply(action)
        except engine_ext.IllegalAction:
            pass
        else:
            raise AssertionError(f"illegal action {action} was accepted")
        assert state.to_json() == before, f"rejected action {action} changed the state"


def check_node_shape(state) -> None:
    player = state.current_player()
    n = state.num_players()
    assert player in (engine_ext.CHANCE, engine_ext.TERMINAL) or 0 <= player < n, f"current_player {player}"
    assert state.is_terminal() == (player == engine_ext.TERMINAL)
    assert len(state.returns()) == n and len(state.scores()) == n
    if player == engine_ext.CHANCE:
        outcomes = state.chance_outcomes()
        assert outcomes, "a chance node without outcomes"
        assert all(p > 0 for _, p in outcomes), "a chance outcome with probability <= 0"
        assert abs(sum(p for _, p in outcomes) - 1.0) < 1e-9, "chance probabilities do not sum to 1"
        assert len({a for a, _ in outcomes}) == len(outcomes), "repeated chance outcome"
        assert state.legal_actions() == []
    elif player >= 0:
        legal = state.legal_actions()
        assert legal, "a decision node without legal actions"
        assert legal == sorted(set(legal)), "legal actions are not ascending and unique"
    else:
        assert state.legal_actions() == [] and state.chance_outcomes() == []


def check_action_strings_round_trip(state) -> None:
    for action in _options(state):
        text = state.action_to_string(action)
        assert state.string_to_action(text) == action, f"{text!r} parses back to another action"


def check_observations(state) -> None:
    """Observations are JSON, survive determinization, and determinization depends on them alone."""
    name = state.game_name
    for seat in range(state.num_players()):
        obs = state.observation(seat)
        assert json.loads(json.dumps(obs)) == obs, "observation is not plain JSON"
        own = state.private_info(seat)
        for seed in DETERMINIZE_SEEDS[:3]:
            world = state.determinize(seat, seed)
            assert world.observation(seat) == obs, "determinize changed what the seat observes (or the view leaks)"
            assert world.private_info(seat) == own, "determinize changed the seat's own private facts"
        rebuilt = engine_ext.from_observation(name, json.loads(json.dumps(obs)))
        assert rebuilt.observation(seat) == obs, "from_observation does not reproduce the observation"
        for seed in DETERMINIZE_SEEDS[:3]:
            world = state.determinize(seat, seed)
            same = world.determinize(seat, seed + 100).to_json()
            assert same == state.determinize(seat, seed + 100).to_json(), (
                "two states with equal observations give different worlds for one seed"
            )
            assert rebuilt.determinize(seat, seed).to_json() == world.to_json(), (
                "a state rebuilt from the observation determinizes differently"
            )
        if player_acts(state, seat):
            world = state.determinize(seat, 99)
            assert world.legal_actions() == state.legal_actions(), (
                "the acting seat's legal actions depend on hidden facts"
            )


def check_observed_as(state) -> None:
    """``observed_as(o, seat)`` is the first move (in the listed order) that ``seat`` observes as ``o``, and None for
    what no move here looks like, or when the game is over."""
    options = [] if state.is_terminal() else _options(state)
    for seat in range(state.num_players()):
        first: dict[int, int] = {}
        for action in options:
            first.setdefault(state.observed_action(action, seat), action)
        for observed, action in first.items():
            assert state.observed_as(observed, seat) == action, "observed_as is not the first move seen that way"
        unseen = max([*first, *options, 0]) + 1
        assert state.observed_as(unseen, seat) is None, "observed_as matched a move that no move here looks like"
    for seat in (-1, state.num_players()):
        try:
            state.observed_as(0, seat)
        except ValueError as err:
            assert "does not exist" in str(err)
        else:
            raise AssertionError(f"observed_as took seat {seat}")


def check_seed_decides_the_setup(new_game, random_setup: bool) -> None:
    """``new_game(seed)`` is reproducible; a game with a random set-up varies with the seed, one without ignores it."""
    first = new_game(11).to_json()
    assert new_game(11).to_json() == first, "the same seed gave two different set-ups"
    setups = {new_game(seed).to_json() for seed in range(8)}
    if random_setup:
        assert len(setups) > 1, "new_game ignores its seed although the game's set-up is random"
    else:
        assert setups == {first}, "the seed changes the set-up of a game whose randomness is all chance nodes"


def check_hidden_facts_vary(state) -> None:
    """Facts hidden from a seat do get resampled: some other seat's private facts differ across seeds (unless the
    state says its observation leaves only one possibility, as when an empty bag fixes the one other hand)."""
    fixed = getattr(state, "hidden_facts_fixed", None)
    for seat in range(state.num_players()):
        others = [o for o in range(state.num_players()) if o != seat and state.private_info(o)]
        if not others or (fixed is not None and fixed(seat)):
            continue
        seen = {
            json.dumps([state.determinize(seat, seed).private_info(o) for o in others], sort_keys=True)
            for seed in DETERMINIZE_SEEDS
        }
        assert len(seen) > 1, f"determinize({seat}, seed) never resamples the other seats' hidden facts"


def player_acts(state, seat: int) -> bool:
    return state.current_player() == seat


def check_all(state, rng: random.Random) -> None:
    check_node_shape(state)
    check_clone_is_independent(state)
    check_json_round_trip(state)
    check_illegal_actions_leave_state_unchanged(state, rng)
    check_action_strings_round_trip(state)
    check_observations(state)
    check_observed_as(state)
    check_hidden_facts_vary(state)


def play_checked_game(state, rng: random.Random, max_steps: int = 100_000) -> int:
    """Play a random game to its end, checking the whole contract before every step; return the steps taken."""
    steps = 0
    while not state.is_terminal():
        check_all(state, rng)
        random_step(state, rng)
        steps += 1
        assert steps < max_steps, "game did not end"
    check_all(state, rng)
    return steps


def _options(state) -> list[int]:
    if state.current_player() == engine_ext.CHANCE:
        return [a for a, _ in state.chance_outcomes()]
    return state.legal_actions()


def _legal_set(state) -> set[int]:
    return set(_options(state))


def _any_legal(state) -> int:
    return _options(state)[0]
