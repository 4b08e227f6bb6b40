"""Skill rating for 3-vs-7 Mafia: a Gaussian filter on team *means*.

Every player has a skill belief N(mu, sigma^2) in Elo-like points.  A game is
predicted from

    z = mean(red mu) - mean(black mu) + side

where ``side`` is a learned, league-wide red-vs-black advantage.  Means, not
sums: with 7 red and 3 black players a sum gives red +4 players' worth of skill
for free (openskill.py issue 130: all-new players, red 0.9999 to win).

The expected red score is logistic(z) on the Elo scale (400 points = 10:1),
widened by the uncertainty of z (probit approximation), so new players and a
young side estimate give cautious predictions.  A result then moves each
player's mu in proportion to their own sigma^2 and their weight in the team
mean (1/7 for red, 1/3 for black) -- assumed-density filtering, as in
Glicko/TrueSkill, with the side term treated as one more Gaussian unknown.
Draws score 0.5 for both sides.  Nothing else (roles, votes, bonuses) touches
skill.

Everything here is a pure function of immutable values: callers keep the
ratings and the SideState, pass them in and store what comes back.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Literal

Outcome = Literal["red", "black", "draw"]

# Per-player numbers for one game: (red team's, black team's), in team order.
Weights = tuple[Sequence[float], Sequence[float]]

# Expected red score for each outcome; a draw is half a win for both sides.
# Read-only, so no caller can change the model for everyone.
SCORE: Mapping[str, float] = MappingProxyType({"red": 1.0, "black": 0.0, "draw": 0.5})

# Elo's logistic scale: a 400-point edge in team mean means 10:1 odds.
ELO_SCALE = 400.0 / math.log(10.0)


@dataclass(frozen=True)
class ModelParams:
    """Tunables.  sigma0, tau and side_tau were picked once on simulated
    seasons (bench/ratings.py with seeds 1001 and 1002, not the reported
    seeds); the rest are policy choices."""

    mu0: float = 1500.0
    """Skill of a newcomer: the league average."""
    sigma0: float = 250.0
    """Uncertainty of a newcomer: about the spread of skill across players.
    Also the ceiling that drift and inactivity can raise sigma back to.
    Sigma shrinks slowly (~150 after 100 games) because one player is only
    1/7 (red) or 1/3 (black) of a team."""
    tau: float = 5.0
    """Skill drift added (in quadrature) to sigma before every game, so that
    sigma settles at a floor and ratings keep following players who improve."""
    side_sigma0: float = 100.0
    """Prior uncertainty of the red-vs-black advantage (prior mean 0)."""
    side_tau: float = 0.25
    """Drift of the side term per game.  0 fits a fixed side advantage best,
    but rules and metas change; 0.25 keeps the estimate within ~10 points
    (~1 % of win chance) while letting it follow a shift within a few
    thousand games."""
    daily_drift: float = 8.0
    """Sigma growth per day of inactivity (in quadrature): half a year idle
    takes a settled sigma of 150 back to about 185, roughly where it stood
    after 50 games, so a returning player re-converges quickly."""
    provisional_games: int = 20
    """A player with fewer ranked games than this is shown as provisional."""
    display_k: float = 2.0
    """Displayed rating is mu - display_k * sigma: a skill we are ~97.5 % sure
    the player has, so climbing requires evidence, not one lucky night."""


DEFAULT_PARAMS = ModelParams()


@dataclass(frozen=True)
class Rating:
    """One player's skill belief."""

    mu: float = DEFAULT_PARAMS.mu0
    sigma: float = DEFAULT_PARAMS.sigma0
    games: int = 0


@dataclass(frozen=True)
class SideState:
    """Belief about red's advantage over black, in rating points added to the
    red team mean (negative: black is favoured).  ``games`` counts the results
    it has learned from."""

    mu: float = 0.0
    sigma: float = DEFAULT_PARAMS.side_sigma0
    games: int = 0

    def mirrored(self) -> SideState:
        """The same belief seen with the colours swapped."""
        return replace(self, mu=-self.mu)


def new_rating(params: ModelParams = DEFAULT_PARAMS) -> Rating:
    return Rating(mu=params.mu0, sigma=params.sigma0, games=0)


def new_side(params: ModelParams = DEFAULT_PARAMS) -> SideState:
    return SideState(mu=0.0, sigma=params.side_sigma0, games=0)


def _logistic(x: float) -> float:
    # Split by sign so exp() never overflows for lopsided games.
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


def _check_teams(red: Sequence[Rating], black: Sequence[Rating]) -> None:
    if not red or not black:
        raise ValueError("both teams need at least one player")


def _z(
    red: Sequence[Rating],
    black: Sequence[Rating],
    side_mu: float,
    red_var: list[float],
    black_var: list[float],
    side_var: float,
    weights: Weights | None,
) -> tuple[float, float]:
    """Mean and variance of z = red strength - black strength + side, a
    team's strength being its players' mean skill or, given weights, their
    weighted sum."""
    if weights is None:
        nr, nb = len(red), len(black)
        m = sum(r.mu for r in red) / nr - sum(b.mu for b in black) / nb + side_mu
        v = sum(red_var) / (nr * nr) + sum(black_var) / (nb * nb) + side_var
        return m, v
    wr, wb = weights
    m = sum(w * r.mu for w, r in zip(wr, red)) - sum(w * b.mu for w, b in zip(wb, black)) + side_mu
    v = (
        sum(w * w * var for w, var in zip(wr, red_var))
        + sum(w * w * var for w, var in zip(wb, black_var))
        + side_var
    )
    return m, v


def team_weights(
    red: Sequence[Rating], black: Sequence[Rating], weights: Weights | None = None
) -> Weights:
    """How much each player's skill counts in their team's strength: the
    given weights (checked), or the team mean (1/7 each for red, 1/3 for black)."""
    if weights is None:
        return [1.0 / len(red)] * len(red), [1.0 / len(black)] * len(black)
    if len(weights[0]) != len(red) or len(weights[1]) != len(black):
        raise ValueError("one weight per player")
    return list(weights[0]), list(weights[1])


def _expected(m: float, v: float) -> tuple[float, float]:
    """Expected red score for z ~ N(m, v), and the widened logistic scale c.

    E[logistic(z / s)] is close to logistic(m / c) with c = sqrt(s^2 + pi v / 8)
    (probit approximation): uncertain ratings give more cautious predictions.
    """
    c = math.sqrt(ELO_SCALE * ELO_SCALE + math.pi * v / 8.0)
    return _logistic(m / c), c


def predict(
    red: Sequence[Rating],
    black: Sequence[Rating],
    side: SideState,
    weights: Weights | None = None,
) -> float:
    """Expected red score: P(red wins) + P(draw) / 2.  ``weights``: see
    team_weights (the model uses team means; omerta.ratings.features tries others)."""
    _check_teams(red, black)
    m, v = _z(
        red,
        black,
        side.mu,
        [r.sigma**2 for r in red],
        [b.sigma**2 for b in black],
        side.sigma**2,
        None if weights is None else team_weights(red, black, weights),
    )
    return _expected(m, v)[0]


def _drift(sigma: float, tau: float, cap: float) -> float:
    # Never above the newcomer prior: a returning player is at most as
    # uncertain as a brand-new one.
    return min(math.sqrt(sigma * sigma + tau * tau), max(sigma, cap))


def update(
    red: Sequence[Rating],
    black: Sequence[Rating],
    outcome: Outcome,
    side: SideState,
    params: ModelParams = DEFAULT_PARAMS,
    weights: Weights | None = None,
    credit: Weights | None = None,
) -> tuple[list[Rating], list[Rating], SideState]:
    """Ratings of both teams and the side belief after one finished game.

    ``weights`` as in predict; ``credit`` scales each player's share of the
    result (1: as the weights say; omerta.ratings.features tries others)."""
    _check_teams(red, black)
    wr, wb = team_weights(red, black, weights)
    cr, cb = (
        team_weights(red, black, credit)
        if credit is not None
        else ([1.0] * len(red), [1.0] * len(black))
    )
    if outcome not in SCORE:
        raise ValueError(f"outcome must be 'red', 'black' or 'draw', not {outcome!r}")
    y = SCORE[outcome]

    # Skill may have drifted since each player's last game (and the meta since
    # the last result): widen every belief before reading the new evidence.
    tau, cap = params.tau, params.sigma0
    red_var = [_drift(r.sigma, tau, cap) ** 2 for r in red]
    black_var = [_drift(b.sigma, tau, cap) ** 2 for b in black]
    side_var = _drift(side.sigma, params.side_tau, params.side_sigma0) ** 2

    m, v = _z(
        red, black, side.mu, red_var, black_var, side_var, None if weights is None else (wr, wb)
    )
    p, c = _expected(m, v)
    # First and (minus) second derivative of the log-likelihood of the result
    # in z: g pulls towards the result, h is how much information it carries.
    g = (y - p) / c
    h = p * (1.0 - p) / (c * c)

    def moved(mu: float, var: float, weight: float) -> tuple[float, float]:
        # weight is dz/dmu (1/7 for a red player, -1/3 for black, 1 for side),
        # times the player's credit.  weight^2 * var <= v and v * h < 2 / pi,
        # so the factor stays positive (credit at most 1 keeps it so).
        return mu + var * weight * g, math.sqrt(var * (1.0 - weight * weight * var * h))

    new_red = [
        Rating(*moved(r.mu, var, w * k), r.games + 1) for r, var, w, k in zip(red, red_var, wr, cr)
    ]
    new_black = [
        Rating(*moved(b.mu, var, -w * k), b.games + 1)
        for b, var, w, k in zip(black, black_var, wb, cb)
    ]
    new_side = SideState(*moved(side.mu, side_var, 1.0), side.games + 1)
    return new_red, new_black, new_side


def inflate(rating: Rating, days_inactive: float, params: ModelParams = DEFAULT_PARAMS) -> Rating:
    """Widen sigma for a player idle for ``days_inactive`` days.

    Skill changes while nobody watches, so the belief grows like a random walk
    (variance linear in time), capped at the newcomer's sigma.  Mu and games
    are untouched.  Call it with the days since the last inflation, not since
    the last game, or the same idle time is counted twice.
    """
    if days_inactive < 0:
        raise ValueError("days_inactive must be >= 0")
    sigma = _drift(rating.sigma, params.daily_drift * math.sqrt(days_inactive), params.sigma0)
    return replace(rating, sigma=sigma)


def display(rating: Rating, params: ModelParams = DEFAULT_PARAMS) -> int:
    """Leaderboard number: a conservative estimate, never below zero."""
    return max(0, round(rating.mu - params.display_k * rating.sigma))


def provisional(rating: Rating, params: ModelParams = DEFAULT_PARAMS) -> bool:
    """Too few ranked games for the number to mean much yet."""
    return rating.games < params.provisional_games
