"""Kuhn and Leduc poker play move for move like OpenSpiel's games of the same names."""

import random

import pytest

import engine_ext

pyspiel = pytest.importorskip("pyspiel")


@pytest.mark.parametrize(
    ("name", "players"), [("kuhn_poker", 2), ("kuhn_poker", 3), ("leduc_poker", 2), ("leduc_poker", 3)]
)
def test_random_games_match_openspiel_step_by_step(name, players):
    game = pyspiel.load_game(name, {"players": players})
    rng = random.Random(f"{name}{players}")
    for _ in range(300):
        theirs = game.new_initial_state()
        ours = engine_ext.new_game(name, players)
        while not theirs.is_terminal():
            assert not ours.is_terminal()
            if theirs.is_chance_node():
                assert ours.current_player() == engine_ext.CHANCE
                expected = theirs.chance_outcomes()
                assert [a for a, _ in ours.chance_outcomes()] == [a for a, _ in expected]
                assert [p for _, p in ours.chance_outcomes()] == pytest.approx([p for _, p in expected])
                action = rng.choices(*zip(*theirs.chance_outcomes(), strict=True))[0]
            else:
                assert ours.current_player() == theirs.current_player()
                assert ours.legal_actions() == theirs.legal_actions()
                action = rng.choice(theirs.legal_actions())
                assert ours.action_to_string(action) == theirs.action_to_string(theirs.current_player(), action)
            theirs.apply_action(action)
            ours.apply(action)
        assert ours.is_terminal()
        assert ours.returns() == pytest.approx(theirs.returns())
