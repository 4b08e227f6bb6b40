"""Tournament scoring and standings (docs/tournaments.md). Pure: games in,
points and a ranking out; no I/O and no clock.

A game reaches this module as a `GameOutcome`: who sat where, which team
won, who was removed, who took the technical defeat, who did not come (a
bot played the seat), who was killed first at night and what they named
as their best move (B1). `omerta.tournament.outcome` builds it from a
stored game record, never from anything a client sent.

Points per game, each configurable by the director (`Scoring`):

- `win`: every player of the winning team (a draw wins nobody anything);
- `best_move_two` / `best_move_three`: the first player killed at night
  named two / three black players as their best move;
- `removal` (negative): the table removed the player (T3);
- `technical_defeat` (negative): the player took the technical defeat
  (T4), or did not come and a bot played the seat;
- `first_killed`: a red player killed first at night, when red lost.

Standings order players by total points, then wins, then best-move
points, then a draw by the tournament's seed (the same seed gives the
same order, and nobody can choose their place by registering early)."""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields
from typing import Any

#: a player: a user id (None in a seat is a bot, who is never scored)
Player = int

#: the most a director may give or take for one thing in one game
LIMIT = 10.0


class BadScoring(ValueError):
    """The director's scoring settings are not valid; the text says why."""


@dataclass(frozen=True)
class Scoring:
    win: float = 1.0
    best_move_two: float = 0.25
    best_move_three: float = 0.5
    removal: float = -0.5
    technical_defeat: float = -1.0
    first_killed: float = 0.25

    def to_dict(self) -> dict[str, float]:
        return asdict(self)

    @classmethod
    def parse(cls, raw: object) -> Scoring:
        """Settings as a director sends them: any of the fields, each a number
        within ±LIMIT; missing ones take the defaults."""
        if raw is None:
            return cls()
        if not isinstance(raw, Mapping):
            raise BadScoring("scoring must be a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(str(k) for k in raw if k not in known)
        if unknown:
            raise BadScoring(f"unknown scoring field {unknown[0]!r}; known: {', '.join(known)}")
        values: dict[str, float] = {}
        for name, value in raw.items():
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise BadScoring(f"scoring field {name!r} must be a number")
            if not -LIMIT <= value <= LIMIT:
                raise BadScoring(f"scoring field {name!r} must be between -{LIMIT:g} and {LIMIT:g}")
            values[name] = float(value)
        return cls(**values)


@dataclass(frozen=True)
class SeatOutcome:
    """One seat of one game. `player` None: a bot's own seat (not scored)."""

    seat: int
    player: Player | None
    team: str  # red / black (the ruleset's teams)
    removed: bool = False
    technical_defeat: bool = False
    #: the scheduled player did not come; a bot played the seat
    absent: bool = False


@dataclass(frozen=True)
class GameOutcome:
    winner: str  # red / black / draw
    seats: Sequence[SeatOutcome]
    #: the seats killed at the first night that killed anyone
    first_killed: frozenset[int] = frozenset()
    #: B1: seat -> the seats it named
    best_moves: Mapping[int, Sequence[int]] = field(default_factory=dict)
    #: which round the game belongs to (1-based), for standings by round
    round: int = 1

    def black_seats(self) -> set[int]:
        return {s.seat for s in self.seats if s.team == "black"}


@dataclass(frozen=True)
class GamePoints:
    """What one game gave one player, by part; `total` is their sum."""

    player: Player
    seat: int
    win: float = 0.0
    best_move: float = 0.0
    removal: float = 0.0
    technical_defeat: float = 0.0
    first_killed: float = 0.0
    won: bool = False

    @property
    def total(self) -> float:
        return self.win + self.best_move + self.removal + self.technical_defeat + self.first_killed

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "total": self.total}


def best_move_points(named: Sequence[int], blacks: set[int], scoring: Scoring) -> float:
    hits = sum(1 for seat in named if seat in blacks)
    if hits >= 3:
        return scoring.best_move_three
    if hits == 2:
        return scoring.best_move_two
    return 0.0


def game_points(game: GameOutcome, scoring: Scoring) -> list[GamePoints]:
    """Every scheduled player's points for one game, in seat order. An
    absent player gets the technical defeat and nothing else: the bot's
    play is not theirs."""
    blacks = game.black_seats()
    out = []
    for s in game.seats:
        if s.player is None:
            continue
        if s.absent:
            out.append(GamePoints(s.player, s.seat, technical_defeat=scoring.technical_defeat))
            continue
        won = game.winner == s.team
        first = s.seat in game.first_killed
        out.append(
            GamePoints(
                s.player,
                s.seat,
                win=scoring.win if won else 0.0,
                best_move=best_move_points(game.best_moves.get(s.seat, ()), blacks, scoring)
                if first
                else 0.0,
                removal=scoring.removal if s.removed else 0.0,
                technical_defeat=scoring.technical_defeat if s.technical_defeat else 0.0,
                first_killed=scoring.first_killed
                if first and s.team == "red" and game.winner == "black"
                else 0.0,
                won=won,
            )
        )
    return out


@dataclass(frozen=True)
class Standing:
    place: int  # 1-based
    player: Player
    total: float
    games: int
    wins: int
    best_move: float
    penalties: float  # removals and technical defeats (zero or negative)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def standings(
    games: Iterable[GameOutcome],
    scoring: Scoring,
    players: Iterable[Player],
    seed: int,
    after_round: int | None = None,
) -> list[Standing]:
    """Every registered player's place after `after_round` (all games when
    None), ordered by total, then wins, then best-move points, then a draw
    from `seed`. Players without a game yet stand with zero."""
    tally: dict[Player, _Tally] = {p: _Tally() for p in players}
    for game in games:
        if after_round is not None and game.round > after_round:
            continue
        for points in game_points(game, scoring):
            row = tally.setdefault(points.player, _Tally())
            row.total += points.total
            row.games += 1
            row.wins += points.won
            row.best_move += points.best_move
            row.penalties += points.removal + points.technical_defeat
    # The draw: a fixed random order of the players, from the seed alone.
    order = sorted(tally)
    random.Random(f"standings/{seed}").shuffle(order)
    draw = {p: i for i, p in enumerate(order)}

    def key(player: Player) -> tuple[float, int, float, int]:
        row = tally[player]  # rounded so that 0.1 + 0.2 ties with 0.3
        return (-round(row.total, 6), -row.wins, -round(row.best_move, 6), draw[player])

    return [
        Standing(
            place,
            player,
            round(tally[player].total, 6),
            tally[player].games,
            tally[player].wins,
            round(tally[player].best_move, 6),
            round(tally[player].penalties, 6),
        )
        for place, player in enumerate(sorted(tally, key=key), start=1)
    ]


@dataclass
class _Tally:
    total: float = 0.0
    games: int = 0
    wins: int = 0
    best_move: float = 0.0
    penalties: float = 0.0
