"""Coins and experience (issue 5), as pure rules."""

from omerta.ratings.awards import award, team_result


def test_a_win_earns_coins_and_more_experience_than_a_loss():
    assert award("win", False).coins > award("draw", False).coins > award("loss", False).coins == 0
    assert (
        award("win", False).experience
        > award("draw", False).experience
        > award("loss", False).experience
        > 0
    )


def test_T3_T4_a_removed_player_or_the_defeat_offender_earns_nothing():
    """Who forfeits is the engine's `State.forfeits` (tests/table/test_technical.py)."""
    assert award("win", True).coins == award("win", True).experience == 0


def test_results_follow_the_winner_and_the_team():
    assert [team_result("red", t) for t in ("red", "black")] == ["win", "loss"]
    assert team_result("draw", "black") == "draw"
