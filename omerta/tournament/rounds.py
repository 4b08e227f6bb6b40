"""A tournament's life in the store (docs/tournaments.md): the schedule
from `seating`, swaps and replacements before a round, a round's tables
started together, absentees, the end of its games, and the standings from
the stored games (`outcome`, `scoring`).

Every function runs inside the caller's transaction; the tournament is
locked by the caller (`store.tournaments.get(..., lock=True)`). Refusals
are `Refused` with a status and a one-line reason for the client."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy.ext.asyncio import AsyncSession

from .. import rulesets
from ..store import tables
from ..store import tournaments as store
from ..store.models import (
    Game,
    Tournament,
    TournamentPlayer,
    TournamentRound,
    TournamentTable,
    utcnow,
)
from . import seating
from .outcome import outcome
from .scoring import GameOutcome, Scoring, Standing, standings

#: most players a tournament takes; most rounds and tables a round
MAX_PLAYERS = 200
MAX_ROUNDS = 30
MAX_TABLES = 40
#: tournament tables are ranked classic tables (A1)
RULESET = "classic"
#: table seeds stay exact as JSON numbers (as the lobby's)
SEED_LIMIT = 2**53


class Refused(Exception):
    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status
        self.message = message


def schedule_of(t: Tournament) -> seating.Schedule:
    if t.schedule is None:
        raise Refused(409, f"tournament {t.id} has no schedule yet: generate it first")
    raw = t.schedule
    return seating.Schedule(
        raw["players"],
        raw["tables"],
        raw["seed"],
        tuple(tuple(tuple(table) for table in rnd) for rnd in raw["rounds"]),
    )


async def generate(s: AsyncSession, t: Tournament) -> seating.Schedule:
    """Number the registered players in the order they joined and seat them
    by `seating.schedule` from the tournament's seed."""
    if t.status not in ("registration", "scheduled"):
        raise Refused(409, f"tournament {t.id} is {t.status}: its schedule is fixed")
    entrants = await store.players(s, t.id)
    if len(entrants) < t.tables_per_round * seating.SEATS:
        raise Refused(
            409,
            f"{t.tables_per_round} tables a round need at least"
            f" {t.tables_per_round * seating.SEATS} players; {len(entrants)} registered",
        )
    # The optimiser takes about a second for 100 players: not on the event loop.
    sched = await asyncio.to_thread(
        seating.schedule, len(entrants), t.tables_per_round, t.rounds, t.seed
    )
    by_number = [e.user_id for e in entrants]
    for e in entrants:
        row = await store.entrant(s, t.id, e.user_id)
        assert row is not None
        row.number = None
    await s.flush()  # numbers are unique: clear them all before giving new ones
    for number, e in enumerate(entrants):
        row = await store.entrant(s, t.id, e.user_id)
        assert row is not None
        row.number = number
    for old in await store.round_tables(s, t.id):
        await s.delete(old)
    await s.flush()
    for r, rnd in enumerate(sched.rounds, start=1):
        for n, table in enumerate(rnd, start=1):
            s.add(
                TournamentTable(
                    tournament_id=t.id,
                    round=r,
                    number=n,
                    seats=[by_number[p] for p in table],
                    absent=[],
                )
            )
    t.schedule = sched.to_json()
    t.status = "scheduled"
    return sched


async def admit(s: AsyncSession, t: Tournament, user_id: int, invited_by: int | None) -> None:
    """Register a player (invited by the director, or on their own) while
    registration is open; a player already registered stays as they are."""
    if t.status != "registration":
        raise Refused(409, f"tournament {t.id} is {t.status}: registration is closed")
    if await store.entrant(s, t.id, user_id) is not None:
        return
    if len(await store.players(s, t.id)) >= MAX_PLAYERS:
        raise Refused(409, f"tournament {t.id} is full ({MAX_PLAYERS} players)")
    s.add(TournamentPlayer(tournament_id=t.id, user_id=user_id, invited_by=invited_by))
    await s.flush()


async def _unstarted_round(s: AsyncSession, t: Tournament, round: int) -> TournamentRound:
    found = await s.get(TournamentRound, (t.id, round))
    if found is None:
        raise Refused(404, f"tournament {t.id} has no round {round}")
    if found.started_at is not None:
        raise Refused(409, f"round {round} has started: its seats are fixed")
    return found


async def _number(s: AsyncSession, t: Tournament, user_id: int) -> int:
    row = await store.entrant(s, t.id, user_id)
    if row is None or row.number is None:
        raise Refused(404, f"user {user_id} is not a player of tournament {t.id}")
    return row.number


async def swap(
    s: AsyncSession, t: Tournament, round: int, a: int, b: int, apply: bool
) -> dict[str, object]:
    """What exchanging players a and b (user ids) in one round costs, as
    `seating.swap_cost` measures it; with `apply`, also do it."""
    sched = schedule_of(t)
    await _unstarted_round(s, t, round)
    if a == b:
        raise Refused(400, "a swap needs two different players")
    na, nb = await _number(s, t, a), await _number(s, t, b)
    cost = seating.swap_cost(sched, round - 1, na, nb)
    if apply:
        t.schedule = seating.swap(sched, round - 1, na, nb).to_json()
        for row in await store.round_tables(s, t.id, round):
            row.seats = [b if u == a else a if u == b else u for u in row.seats]
    return cost


async def replace(
    s: AsyncSession, t: Tournament, round: int, user_id: int, by: int | None
) -> TournamentTable:
    """Before a round: `by` (a user id, or None for a bot) plays the seat of
    `user_id` in that round. The replaced player neither scores nor loses."""
    await _unstarted_round(s, t, round)
    rows = await store.round_tables(s, t.id, round)
    if by is not None and any(by in row.seats for row in rows):
        raise Refused(409, f"user {by} already has a seat in round {round}")
    for row in rows:
        if user_id in row.seats:
            row.seats = [by if u == user_id else u for u in row.seats]
            return row
    raise Refused(404, f"user {user_id} has no seat in round {round}")


async def check_in(s: AsyncSession, t: Tournament, user_id: int) -> None:
    if t.status == "finished":
        raise Refused(409, f"tournament {t.id} is over")
    row = await store.entrant(s, t.id, user_id)
    if row is None:
        raise Refused(409, f"you are not a player of tournament {t.id}: register first")
    row.checked_in_at = row.checked_in_at or utcnow()


async def start_round(
    s: AsyncSession, t: Tournament, round: int, rng: random.Random, now: datetime
) -> list[int]:
    """Start every table of the round at once; returns their table ids for
    the runtime (after the commit). A registered player who has not checked
    in, or anyone who sits at another live table, is absent: a bot plays the
    seat."""
    r = await _unstarted_round(s, t, round)
    entrants = await store.players(s, t.id)
    # A substitute from outside the tournament was named by the director or a
    # moderator just now: only registered players must have checked in.
    unconfirmed = {e.user_id for e in entrants if not e.checked_in}
    rows = await store.round_tables(s, t.id, round)
    busy = await store.seated_anywhere(s, [u for row in rows for u in row.seats if u is not None])
    started = []
    for row in rows:
        absent = [
            seat
            for seat, user_id in enumerate(row.seats, start=1)
            if user_id is not None and (user_id in unconfirmed or user_id in busy)
        ]
        table_id = await tables.create_table(
            s, t.director_id, t.ruleset, t.settings, rng.randrange(SEED_LIMIT)
        )
        await store.start_seated(
            s,
            table_id,
            [None if seat in absent else u for seat, u in enumerate(row.seats, 1)],
            stand_ins=absent,
        )
        row.table_id, row.absent = table_id, absent
        started.append(table_id)
    r.started_at = now
    t.status = "running"
    return started


async def game_ended(s: AsyncSession, game_id: int) -> None:
    """A runtime game-end hook: the tournament is finished when its last
    table ends. (Whether the game is ranked the engine has decided: bots
    that stood in for absentees leave it ranked, A1.)"""
    game = await s.get(Game, game_id)
    if game is None:
        return
    row = await store.of_table(s, game.table_id)
    if row is None:
        return
    await finish_if_over(s, row.tournament_id, ended=game.table_id)


async def finish_if_over(s: AsyncSession, tournament_id: int, ended: int | None = None) -> bool:
    t = await store.get(s, tournament_id, lock=True)
    if t is None or t.status != "running":
        return False
    rows = await store.round_tables(s, tournament_id)
    if any(row.table_id is None for row in rows):
        return False
    statuses = await store.table_statuses(s, [row.table_id for row in rows if row.table_id])
    if any(status in ("open", "playing") and tid != ended for tid, status in statuses.items()):
        return False
    t.status = "finished"
    return True


@dataclass(frozen=True)
class Results:
    games: list[tuple[TournamentTable, Game, GameOutcome]]
    standings: list[Standing]
    by_round: list[list[Standing]]


#: outcomes of finished games by table id (a finished record never
#: changes), the most recent OUTCOMES_KEPT of them
_OUTCOMES: dict[int, GameOutcome] = {}
OUTCOMES_KEPT = 10_000


async def results(s: AsyncSession, t: Tournament) -> Results:
    """The finished games, their outcomes and the standings after each round,
    all from the stored records."""
    scoring = Scoring.parse(t.scoring)
    entrants = [e.user_id for e in await store.players(s, t.id)]
    registered = set(entrants)
    rows = [row for row in await store.round_tables(s, t.id) if row.table_id is not None]
    games = await store.games_of_tables(s, [row.table_id for row in rows if row.table_id])
    played = []
    for row in rows:
        game = games.get(row.table_id or 0)
        if game is None:
            continue
        known = _OUTCOMES.get(game.table_id)
        if known is None:
            players = [u if u in registered else None for u in row.seats]
            record = await tables.read_record(s, game.table_id)
            known = outcome(record, players, row.absent, row.round)
            if len(_OUTCOMES) >= OUTCOMES_KEPT:
                _OUTCOMES.pop(next(iter(_OUTCOMES)))
            _OUTCOMES[game.table_id] = known
        played.append((row, game, known))
    outcomes = [o for _, _, o in played]
    rounds_done = sorted({row.round for row, _, _ in played})
    return Results(
        played,
        standings(outcomes, scoring, entrants, t.seed),
        [standings(outcomes, scoring, entrants, t.seed, after_round=r) for r in rounds_done],
    )


def settings_for(raw: object) -> dict[str, Any]:
    """The tables' classic settings as the engine parses them (it raises
    BadSettings), best move on unless the director turns it off (B1)."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise Refused(400, "field 'settings' must be a JSON object")
    return rulesets.get(RULESET).parse_settings({"best_move": True, **raw}).to_dict()
