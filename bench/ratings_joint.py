"""The rating model's filter without its independence approximation, for the benchmark.

omerta.ratings.model keeps one Gaussian per player and forgets, after every
game, how the result tied the ten players' beliefs together.  JointFilter
keeps one joint Gaussian over every player's skill and the side term (a full
covariance matrix), so a later game can still revise who earned an earlier
win.  Otherwise it is the same filter: team means, the same widened logistic
prediction and the same one-step update of z.  Skill drifts after each game a
player plays, exactly as the simulated worlds draw it.

A covariance matrix over all players costs O(players^2) per game: a
reference for bench/ratings.py's real-style world, not something to rate a
server with.  Needs numpy (the ``bench`` extra).
"""

from __future__ import annotations

import math
from typing import Any, Protocol

from omerta.ratings import model as om


class Game(Protocol):
    @property
    def red(self) -> tuple[int, ...]: ...
    @property
    def black(self) -> tuple[int, ...]: ...
    @property
    def outcome(self) -> str: ...


def _expected(m: float, v: float) -> tuple[float, float]:
    # The model's widened logistic (omerta.ratings.model.predict).
    c = math.sqrt(om.ELO_SCALE**2 + math.pi * v / 8.0)
    return 1.0 / (1.0 + math.exp(-m / c)), c


class JointFilter:
    def __init__(self, players: int, params: om.ModelParams, name: str) -> None:
        import numpy as np

        self.name = name
        self.np = np
        self.n = players
        self.tau2 = params.tau**2
        self.side_tau2 = params.side_tau**2
        # Skills measured from the league average; the side is the last entry.
        self.mu = np.zeros(players + 1)
        self.cov = np.diag([params.sigma0**2] * players + [params.side_sigma0**2])

    def _z(self, g: Game) -> tuple[list[int], float, float, Any]:
        idx = [*g.red, *g.black, self.n]
        a = [1.0 / len(g.red)] * len(g.red) + [-1.0 / len(g.black)] * len(g.black) + [1.0]
        ca = self.cov[:, idx] @ self.np.array(a)  # cov(every entry, z)
        m = float(self.np.dot(a, self.mu[idx]))
        v = float(self.np.dot(a, ca[idx]))
        return idx, m, v, ca

    def predict(self, g: Game) -> float:
        _, m, v, _ = self._z(g)
        return _expected(m, v)[0]

    def update(self, g: Game) -> None:
        idx, m, v, ca = self._z(g)
        p, c = _expected(m, v)
        grad = (om.SCORE[g.outcome] - p) / c
        info = p * (1.0 - p) / (c * c)
        self.mu += grad * ca
        self.cov -= info * self.np.outer(ca, ca)
        for i in idx[:-1]:
            self.cov[i, i] += self.tau2
        self.cov[self.n, self.n] += self.side_tau2

    def rating(self, player: int) -> float:
        return 1500.0 + float(self.mu[player])
