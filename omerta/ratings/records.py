"""A record of finished games as the rating tools read it: one JSON object
per line, in the order the games were played (docs/ratings.md):

    {"red": ["ann", "bob", ...], "black": ["cy", ...], "winner": "red",
     "date": "2026-11-30", "roles": {"cy": "don", "bob": "sheriff"},
     "first_killed": "ann", "days": {"ann": 0, "bob": 3, ...}}

``red`` and ``black`` are non-empty lists of distinct player ids (strings or
integers; ``1`` and ``"1"`` are the same player); ``winner`` is "red",
"black" or "draw".  Optional: ``date``; ``roles``, each listed player's role
(a list, as older records have, is accepted and ignored); ``first_killed``,
a player of the game; ``days``, the days each listed player survived.  The
model uses none of them; omerta.ratings.features tests whether they would
help.  Blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass

from omerta.ratings.model import Outcome

WINNERS: tuple[Outcome, ...] = ("red", "black", "draw")


class RecordError(ValueError):
    """A line of a game record that is not a game; the message names the line."""


@dataclass(frozen=True)
class GameRecord:
    red: tuple[str, ...]
    black: tuple[str, ...]
    winner: Outcome
    date: str | None = None
    roles: tuple[tuple[str, str], ...] = ()
    """(player, role) pairs, roles lower-case ("don", "sheriff", ...)."""
    first_killed: str | None = None
    days: tuple[tuple[str, int], ...] = ()
    """(player, days survived) pairs."""


def _team(obj: dict[str, object], key: str) -> tuple[str, ...]:
    value = obj.get(key)
    if not isinstance(value, list) or not value:
        raise ValueError(f"{key!r} must be a non-empty list of player ids")
    ids: list[str] = []
    for p in value:
        # bool is an int to Python, but never a player id.
        if isinstance(p, bool) or not isinstance(p, (str, int)) or p == "":
            raise ValueError(
                f"{key!r} holds {json.dumps(p)}, not a player id (a string or an integer)"
            )
        ids.append(str(p))
    return tuple(ids)


def parse_line(text: str) -> GameRecord:
    try:
        obj = json.loads(text)
    except json.JSONDecodeError as e:
        raise ValueError(f"not JSON ({e.msg})") from None
    if not isinstance(obj, dict):
        raise ValueError("a game must be a JSON object")
    red, black = _team(obj, "red"), _team(obj, "black")
    if len(set(red + black)) != len(red) + len(black):
        raise ValueError("a player appears twice in one game")
    winner = obj.get("winner")
    outcome = next((w for w in WINNERS if w == winner), None)
    if outcome is None:
        raise ValueError(f'\'winner\' must be "red", "black" or "draw", not {json.dumps(winner)}')
    date = obj.get("date")
    if date is not None and not isinstance(date, str):
        raise ValueError("'date' must be a string")
    seated = set(red + black)
    return GameRecord(
        red,
        black,
        outcome,
        date,
        _roles(obj.get("roles"), seated),
        _first_killed(obj.get("first_killed"), seated),
        _days(obj.get("days"), seated),
    )


def _player(p: object, key: str, seated: set[str]) -> str:
    if isinstance(p, bool) or not isinstance(p, (str, int)) or str(p) not in seated:
        raise ValueError(f"{key!r} names {json.dumps(p)}, not a player of this game")
    return str(p)


def _roles(value: object, seated: set[str]) -> tuple[tuple[str, str], ...]:
    if value is None or isinstance(value, list):
        return ()
    if not isinstance(value, dict):
        raise ValueError("'roles' must be an object (player: role) or a list")
    roles = []
    for p, role in value.items():
        if not isinstance(role, str):
            raise ValueError(f"'roles' gives {json.dumps(role)}, not a role name")
        roles.append((_player(p, "roles", seated), role.lower()))
    return tuple(roles)


def _first_killed(value: object, seated: set[str]) -> str | None:
    return None if value is None else _player(value, "first_killed", seated)


def _days(value: object, seated: set[str]) -> tuple[tuple[str, int], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise ValueError("'days' must be an object (player: days survived)")
    days = []
    for p, n in value.items():
        if isinstance(n, bool) or not isinstance(n, int) or n < 0:
            raise ValueError(f"'days' gives {json.dumps(n)}, not a number of days")
        days.append((_player(p, "days", seated), n))
    return tuple(days)


def parse_lines(lines: Iterable[str | bytes], name: str = "games") -> list[GameRecord]:
    """Every game of a record, or RecordError naming the first bad line."""
    games: list[GameRecord] = []
    for number, raw in enumerate(lines, 1):
        try:
            text = raw.decode("utf-8") if isinstance(raw, bytes) else raw
            if not text.strip():
                continue
            games.append(parse_line(text))
        except UnicodeDecodeError:
            raise RecordError(f"{name}:{number}: not UTF-8 text") from None
        except ValueError as e:
            raise RecordError(f"{name}:{number}: {e}") from None
    return games
