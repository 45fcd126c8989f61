"""Kuhn and Leduc poker follow OpenSpiel's rules, numbering and returns exactly."""

import pytest

import engine_ext


def play(name, actions, players=2, **options):
    state = engine_ext.new_game(name, players, **options)
    for a in actions:
        state.apply(a if isinstance(a, int) else state.string_to_action(a))
    return state


@pytest.mark.parametrize(
    ("cards", "bets", "returns"),
    [
        ((2, 0), "Pass Pass", [1, -1]),
        ((0, 2), "Pass Pass", [-1, 1]),
        ((0, 2), "Bet Pass", [1, -1]),
        ((0, 2), "Bet Bet", [-2, 2]),
        ((2, 1), "Pass Bet Pass", [-1, 1]),
        ((2, 1), "Pass Bet Bet", [2, -2]),
    ],
)
def test_kuhn_two_player_payoffs_match_openspiel(cards, bets, returns):
    state = play("kuhn_poker", list(cards) + bets.split())
    assert state.is_terminal()
    assert state.returns() == returns
    assert state.scores() == returns


def test_kuhn_three_players_nobody_bets_highest_card_takes_the_antes():
    state = play("kuhn_poker", [0, 1, 2, "Pass", "Pass", "Pass"], players=3)
    assert state.returns() == [-1, -1, 2]


def test_kuhn_three_players_a_bet_is_answered_once_by_every_other_seat():
    state = play("kuhn_poker", [0, 1, 2, "Bet", "Pass"], players=3)
    assert not state.is_terminal()
    state.apply_string("Bet")
    assert state.returns() == [-2, -1, 3]


def test_kuhn_three_players_seats_before_the_first_bettor_answer_in_a_second_round():
    state = play("kuhn_poker", [0, 1, 2, "Pass", "Bet", "Pass"], players=3)
    assert state.current_player() == 0
    state.apply_string("Bet")
    assert state.returns() == [-2, 3, -1]


def test_kuhn_chance_deals_each_remaining_card_uniformly():
    state = play("kuhn_poker", [1])
    assert state.chance_outcomes() == [(0, 0.5), (2, 0.5)]
    assert state.action_to_string(2) == "Deal:2"


def test_kuhn_other_seats_see_a_dealt_card_as_hidden():
    state = play("kuhn_poker", [1])
    hidden = state.observed_action(2, 0)
    assert state.action_to_string(hidden) == "Deal:?"
    assert state.observed_action(2, 1) == 2
    assert state.public_action(2) == hidden


def test_kuhn_betting_actions_are_public():
    state = play("kuhn_poker", [1, 2])
    assert state.public_action(1) == 1


def test_leduc_fold_is_legal_only_when_facing_a_bet():
    state = play("leduc_poker", [0, 2])
    assert state.legal_actions() == [1, 2]
    state.apply_string("Raise")
    assert state.legal_actions() == [0, 1, 2]
    state.apply_string("Raise")
    assert state.legal_actions() == [0, 1], "at most two raises per round"


def test_leduc_raise_then_fold_wins_the_antes():
    state = play("leduc_poker", [0, 2, "Raise", "Fold"])
    assert state.returns() == [1, -1]


def test_leduc_pair_with_the_public_card_beats_a_higher_card():
    state = play("leduc_poker", [0, 4, "Call", "Call", 1, "Call", "Call"])
    assert state.returns() == [1, -1]


def test_leduc_second_round_raises_are_four_chips():
    state = play("leduc_poker", [0, 4, "Call", "Call", 2, "Raise", "Call"])
    assert state.returns() == [-5, 5]


def test_leduc_first_round_raises_are_two_chips_and_re_raises_match_first():
    state = play("leduc_poker", [0, 4, "Raise", "Raise", "Call", 2, "Call", "Call"])
    assert state.returns() == [-5, 5]


def test_leduc_equal_ranks_split_the_pot():
    state = play("leduc_poker", [4, 5, "Call", "Call", 0, "Call", "Call"])
    assert state.returns() == [0, 0]


def test_leduc_three_way_split_pays_fractions():
    state = play("leduc_poker", [0, 2, 3, "Call", "Call", "Raise", "Fold", "Call", 6, "Call", "Call"], players=3)
    # Seat 0 folded after putting in 1; seats 1 and 2 (both queens) split 1 + 3 + 3.
    assert state.returns() == [-1, 0.5, 0.5]


def test_leduc_starting_player_opens_both_rounds():
    state = play("leduc_poker", [0, 2, 4], players=3, starting_player=2)
    assert state.current_player() == 2
    for _ in range(3):
        state.apply_string("Call")
    state.apply(1)
    assert state.current_player() == 2


def test_leduc_private_deal_is_hidden_public_card_is_public():
    state = play("leduc_poker", [3])
    assert state.action_to_string(state.public_action(0)) == "Chance outcome:?"
    state = play("leduc_poker", [3, 5, "Call", "Call"])
    assert state.public_action(0) == 0


def test_illegal_action_message_lists_the_legal_moves():
    state = play("leduc_poker", [0, 2])
    with pytest.raises(engine_ext.IllegalAction, match="legal: Call, Raise"):
        state.apply(0)


def test_moves_after_the_end_are_rejected():
    state = play("kuhn_poker", [0, 1, "Pass", "Pass"])
    with pytest.raises(engine_ext.IllegalAction, match="game is over"):
        state.apply(0)


def test_inconsistent_observation_names_the_field():
    obs = play("kuhn_poker", [0, 1]).observation(0)
    obs["private_card"] = 7
    with pytest.raises(engine_ext.InvalidObservation) as err:
        engine_ext.from_observation("kuhn_poker", obs)
    assert err.value.field == "private_card"


def test_observation_with_a_wrong_pot_is_rejected():
    obs = play("leduc_poker", [0, 1, "Raise"]).observation(1)
    obs["pot"] = 99
    with pytest.raises(engine_ext.InvalidObservation):
        engine_ext.from_observation("leduc_poker", obs)


def test_unparseable_move_text_is_its_own_error_naming_the_move_number_and_the_legal_moves():
    state = play("kuhn_poker", [0, 1])
    with pytest.raises(engine_ext.InvalidMoveText, match="'Pass' and 'Bet'.*at move 2; legal here: Pass, Bet") as err:
        state.string_to_action("check")
    assert not isinstance(err.value, engine_ext.IllegalAction)
    assert err.value.move_number == 2 and err.value.legal == ["Pass", "Bet"]


def test_an_illegal_action_names_the_move_number_and_lists_the_legal_moves():
    state = play("leduc_poker", [0, 2])
    with pytest.raises(engine_ext.IllegalAction, match="at move 2") as err:
        state.apply(0)  # Fold with nothing to call
    assert err.value.move_number == 2 and err.value.legal == ["Call", "Raise"]


def test_players_out_of_range_are_rejected():
    with pytest.raises(ValueError, match="2..10"):
        engine_ext.new_game("kuhn_poker", 11)
