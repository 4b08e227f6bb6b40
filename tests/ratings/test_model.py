"""Behaviour of the pure rating model (omerta.ratings.model)."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from omerta.ratings import (
    DEFAULT_PARAMS,
    ModelParams,
    Rating,
    SideState,
    display,
    inflate,
    new_rating,
    new_side,
    predict,
    provisional,
    update,
)

MIRROR = {"red": "black", "black": "red", "draw": "draw"}

ratings = st.builds(
    Rating,
    mu=st.floats(500.0, 2500.0),
    sigma=st.floats(20.0, DEFAULT_PARAMS.sigma0),
    games=st.integers(0, 500),
)
teams = st.lists(ratings, min_size=1, max_size=8)
sides = st.builds(
    SideState, mu=st.floats(-150.0, 150.0), sigma=st.floats(1.0, 100.0), games=st.integers(0, 10**5)
)
outcomes = st.sampled_from(["red", "black", "draw"])


def newcomers(n: int) -> list[Rating]:
    return [new_rating() for _ in range(n)]


def approx_ratings(rs: list[Rating]) -> list[tuple[object, object, int]]:
    return [(pytest.approx(r.mu, abs=1e-9), pytest.approx(r.sigma, abs=1e-9), r.games) for r in rs]


# --- no summing of teams -------------------------------------------------------


def test_seven_newcomers_against_three_newcomers_is_a_coin_flip_without_a_side_term():
    # A model that summed team skills would give red ~1.0 here (openskill.py #130).
    assert predict(newcomers(7), newcomers(3), SideState(mu=0.0)) == pytest.approx(0.5)


def test_a_team_with_more_players_of_the_same_skill_is_not_stronger():
    strong, weak = Rating(mu=1700.0, sigma=100.0), Rating(mu=1400.0, sigma=100.0)
    side = SideState(mu=0.0)
    assert predict([strong] * 7, [weak] * 3, side) == pytest.approx(
        predict([strong] * 3, [weak] * 7, side)
    )


# --- symmetry ------------------------------------------------------------------


@settings(deadline=None)  # on a loaded shared machine one case can take 300 ms
@given(teams, teams, sides)
def test_swapping_the_colours_and_mirroring_the_side_term_mirrors_the_prediction(red, black, side):
    assert predict(black, red, side.mirrored()) == pytest.approx(
        1.0 - predict(red, black, side), abs=1e-12
    )


@settings(deadline=None)
@given(teams, teams, sides, outcomes)
def test_swapping_the_colours_and_mirroring_the_side_term_mirrors_the_update(
    red, black, side, outcome
):
    new_red, new_black, new_side = update(red, black, outcome, side)
    m_black, m_red, m_side = update(black, red, MIRROR[outcome], side.mirrored())
    assert approx_ratings(m_red) == approx_ratings(new_red)
    assert approx_ratings(m_black) == approx_ratings(new_black)
    assert m_side.mu == pytest.approx(-new_side.mu, abs=1e-9)
    assert m_side.sigma == pytest.approx(new_side.sigma, abs=1e-12)


# --- draws ---------------------------------------------------------------------


def test_a_draw_between_equal_teams_with_no_side_advantage_leaves_every_mean_unchanged():
    red = [Rating(mu=1500.0, sigma=120.0, games=40)] * 7
    black = [Rating(mu=1500.0, sigma=200.0, games=12)] * 3
    side = SideState(mu=0.0, sigma=30.0)
    new_red, new_black, new_side = update(red, black, "draw", side)
    assert [r.mu for r in new_red + new_black] == pytest.approx([1500.0] * 10, abs=1e-9)
    assert new_side.mu == pytest.approx(0.0, abs=1e-9)


def test_a_draw_moves_the_favourite_down_and_the_underdog_up():
    red = [Rating(mu=1700.0, sigma=150.0)] * 7
    black = [Rating(mu=1450.0, sigma=150.0)] * 3
    new_red, new_black, _ = update(red, black, "draw", SideState(mu=0.0))
    assert all(n.mu < o.mu for n, o in zip(new_red, red))
    assert all(n.mu > o.mu for n, o in zip(new_black, black))


@settings(deadline=None)
@given(teams, teams, sides)
def test_a_draw_moves_the_side_term_towards_even(red, black, side):
    p = predict(red, black, side)
    new_side = update(red, black, "draw", side)[2]
    if p > 0.5:
        assert new_side.mu <= side.mu
    else:
        assert new_side.mu >= side.mu


# --- monotonicity --------------------------------------------------------------


@settings(deadline=None)
@given(teams, teams, sides, outcomes)
def test_winners_never_lose_mu_and_losers_never_gain_it(red, black, side, outcome):
    new_red, new_black, _ = update(red, black, outcome, side)
    if outcome == "red":
        winners, losers = zip(red, new_red), zip(black, new_black)
    elif outcome == "black":
        winners, losers = zip(black, new_black), zip(red, new_red)
    else:
        return
    assert all(new.mu >= old.mu for old, new in winners)
    assert all(new.mu <= old.mu for old, new in losers)


@settings(deadline=None)
@given(st.floats(0.0, 400.0), st.floats(1.0, 400.0))
def test_a_bigger_upset_moves_the_winners_more(gap, extra):
    red = [Rating(mu=1500.0, sigma=150.0)] * 7
    side = SideState(mu=0.0, sigma=20.0)
    small = update(red, [Rating(mu=1500.0 + gap, sigma=150.0)] * 3, "red", side)[0]
    big = update(red, [Rating(mu=1500.0 + gap + extra, sigma=150.0)] * 3, "red", side)[0]
    assert big[0].mu - 1500.0 > small[0].mu - 1500.0


def test_an_expected_win_moves_less_than_an_upset():
    strong, weak = [Rating(mu=1700.0, sigma=150.0)] * 7, [Rating(mu=1450.0, sigma=150.0)] * 3
    side = SideState(mu=0.0)
    favourite_gain = update(strong, weak, "red", side)[0][0].mu - 1700.0
    underdog_gain = update(weak, strong, "red", side)[0][0].mu - 1450.0
    assert 0.0 < favourite_gain < underdog_gain


def test_a_newcomer_moves_faster_than_a_settled_player_in_the_same_game():
    settled = Rating(mu=1500.0, sigma=100.0, games=200)
    red = [new_rating()] + [settled] * 6
    new_red, _, _ = update(red, newcomers(3), "red", new_side())
    assert new_red[0].mu - 1500.0 > new_red[1].mu - 1500.0 > 0.0


mus = st.lists(st.floats(500.0, 2500.0), min_size=1, max_size=8)


@settings(deadline=None)
@given(mus, mus, sides, outcomes)
def test_the_side_advantage_does_not_inflate_player_ratings_when_sigmas_are_equal(
    red_mu, black_mu, side, outcome
):
    red = [Rating(mu=m, sigma=180.0) for m in red_mu]
    black = [Rating(mu=m, sigma=180.0) for m in black_mu]
    new_red, new_black, _ = update(red, black, outcome, side)
    assert sum(r.mu for r in new_red + new_black) == pytest.approx(
        sum(red_mu) + sum(black_mu), abs=1e-6
    )


# --- uncertainty ---------------------------------------------------------------


@settings(deadline=None)
@given(teams, teams, sides, outcomes)
def test_without_drift_a_game_never_increases_anyones_sigma(red, black, side, outcome):
    params = ModelParams(tau=0.0, side_tau=0.0)
    new_red, new_black, new_side = update(red, black, outcome, side, params)
    assert all(n.sigma < o.sigma for n, o in zip(new_red + new_black, red + black))
    assert new_side.sigma < side.sigma


def test_a_regular_players_sigma_shrinks_game_after_game():
    rng = random.Random(7)
    me, side = new_rating(), new_side()
    sigmas = [me.sigma]
    for _ in range(100):
        others = [Rating(mu=rng.gauss(1500.0, 150.0), sigma=150.0) for _ in range(9)]
        outcome = rng.choice(["red", "black", "draw"])
        if rng.random() < 0.3:
            _, new_black, side = update(others[:7], [me] + others[7:], outcome, side)
            me = new_black[0]
        else:
            new_red, _, side = update([me] + others[:6], others[6:], outcome, side)
            me = new_red[0]
        sigmas.append(me.sigma)
    assert all(later < earlier for earlier, later in zip(sigmas, sigmas[1:]))
    assert me.sigma < 0.7 * DEFAULT_PARAMS.sigma0
    assert me.games == 100


@settings(deadline=None)
@given(st.floats(20.0, DEFAULT_PARAMS.sigma0 - 1.0), st.floats(1.0, 100.0), st.floats(1.0, 100.0))
def test_sigma_grows_with_inactivity_and_longer_breaks_grow_it_more(sigma, days, more_days):
    r = Rating(mu=1620.0, sigma=sigma, games=80)
    short, long = inflate(r, days), inflate(r, days + more_days)
    assert r.sigma < short.sigma <= long.sigma <= DEFAULT_PARAMS.sigma0
    assert (short.mu, short.games) == (r.mu, r.games)


def test_a_very_long_break_makes_a_player_no_more_uncertain_than_a_newcomer():
    r = Rating(mu=1800.0, sigma=90.0, games=300)
    assert inflate(r, 10_000).sigma == pytest.approx(DEFAULT_PARAMS.sigma0)


def test_inflating_for_zero_days_changes_nothing_and_negative_days_are_rejected():
    r = Rating(mu=1620.0, sigma=140.0, games=80)
    assert inflate(r, 0) == r
    with pytest.raises(ValueError):
        inflate(r, -1)


def test_more_uncertain_ratings_give_more_cautious_predictions():
    side = SideState(mu=0.0, sigma=0.0)
    sure = predict([Rating(mu=1700.0, sigma=50.0)] * 7, [Rating(mu=1500.0, sigma=50.0)] * 3, side)
    unsure = predict(
        [Rating(mu=1700.0, sigma=250.0)] * 7, [Rating(mu=1500.0, sigma=250.0)] * 3, side
    )
    assert 0.5 < unsure < sure


# --- the side term is learned ----------------------------------------------------


@pytest.mark.parametrize("red_score", [0.65, 0.35])
def test_the_side_term_learns_the_red_score_between_equal_newcomer_teams(red_score):
    rng = random.Random(2024)
    side = new_side()
    for _ in range(5000):
        u = rng.random()
        # 5 % draws; wins split so that red's expected score is red_score.
        outcome = "draw" if u < 0.05 else ("red" if u < 0.05 + red_score - 0.025 else "black")
        side = update(newcomers(7), newcomers(3), outcome, side)[2]
    assert predict(newcomers(7), newcomers(3), side) == pytest.approx(red_score, abs=0.03)
    assert side.games == 5000


def test_the_side_term_is_learned_while_the_players_are_rated_too():
    rng = random.Random(99)
    pool = {i: new_rating() for i in range(30)}
    side = new_side()
    for _ in range(6000):
        ids = rng.sample(range(30), 10)
        outcome = "red" if rng.random() < 0.65 else "black"  # everyone equally skilled
        new_red, new_black, side = update(
            [pool[i] for i in ids[:7]], [pool[i] for i in ids[7:]], outcome, side
        )
        pool.update(zip(ids, new_red + new_black))
    splits = [rng.sample(range(30), 10) for _ in range(500)]
    mean_p = sum(
        predict([pool[i] for i in s[:7]], [pool[i] for i in s[7:]], side) for s in splits
    ) / len(splits)
    assert mean_p == pytest.approx(0.65, abs=0.03)


# --- display and provisional status -----------------------------------------------


def test_a_newcomer_is_shown_well_below_average_and_as_provisional():
    r = new_rating()
    assert display(r) == round(
        DEFAULT_PARAMS.mu0 - DEFAULT_PARAMS.display_k * DEFAULT_PARAMS.sigma0
    )
    assert display(r) < DEFAULT_PARAMS.mu0
    assert provisional(r)


@settings(deadline=None)
@given(ratings, st.floats(1.0, 200.0))
def test_the_displayed_number_rises_with_mu_and_falls_with_sigma(r, delta):
    assert display(Rating(r.mu + delta, r.sigma, r.games)) >= display(r)
    assert display(Rating(r.mu, r.sigma + delta, r.games)) <= display(r)
    assert 0 <= display(r) <= r.mu


def test_a_player_stops_being_provisional_at_the_configured_number_of_games():
    n = DEFAULT_PARAMS.provisional_games
    assert provisional(Rating(games=n - 1))
    assert not provisional(Rating(games=n))
    assert not provisional(Rating(games=n - 1), ModelParams(provisional_games=n - 1))


# --- purity and input checks ------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(teams, teams, sides, outcomes)
def test_the_same_inputs_always_give_the_same_outputs(red, black, side, outcome):
    first = update(red, black, outcome, side)
    update(black, red, "red", side)  # unrelated call in between: no hidden state
    assert update(red, black, outcome, side) == first


def test_an_empty_team_or_an_unknown_outcome_is_rejected():
    with pytest.raises(ValueError):
        predict([], newcomers(3), new_side())
    with pytest.raises(ValueError):
        update(newcomers(7), [], "red", new_side())
    with pytest.raises(ValueError):
        update(newcomers(7), newcomers(3), "mafia", new_side())
