"""Building what moderators review: signed-in players, tables with their
seats and records, technical votes, finished ranked games."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import update

from omerta import league
from omerta.moderation.admin import grant_moderator
from omerta.moderation.records import attach_game, record_tech_vote
from omerta.ratings.awards import team_result
from omerta.script import Player, parse
from omerta.store import tables, users
from omerta.store.games import PlayerResult, record_game
from omerta.store.models import GameTable, TableStatus

ROLES = ["don", "mafia", "mafia", "sheriff"] + ["civilian"] * 6
DEAL = {str(seat): role for seat, role in enumerate(ROLES, 1)}


async def people(h, prefix: str, n: int = 10, signed_in: int | None = None):
    """n players named prefix1, prefix2, ...: clients of the first `signed_in`
    (all by default), and every player's user id."""
    signed_in = n if signed_in is None else signed_in
    clients = [await h.player(f"{prefix}{i}") for i in range(1, signed_in + 1)]
    ids = [(await c.get("/api/me")).body["user"]["id"] for c in clients]
    async with h.db.begin() as s:
        for i in range(signed_in + 1, n + 1):
            ids.append((await users.add_user(s, f"{prefix}{i}", "!")).id)
    return clients, ids


async def accounts(h, prefix: str, n: int = 10) -> list[int]:
    """n players who never sign in (no HTTP round trips): their user ids."""
    return (await people(h, prefix, n, signed_in=0))[1]


async def moderator(h, name: str = "moddy"):
    client = await h.player(name)
    await grant_moderator(h.db, name)
    return client


async def seat_table(
    s, user_ids, status: TableStatus = "finished", ruleset: str = "classic"
) -> int:
    """A table with user_ids[i] in seat i + 1 (None: a bot)."""
    creator = next(u for u in user_ids if u is not None)
    table_id = await tables.create_table(s, creator, ruleset, {}, 1)
    table = await tables.get_table(s, table_id, lock=True)
    assert table is not None
    await tables.add_seats(s, table, list(user_ids))
    if status == "finished" or status == "abandoned":
        await tables.end_table(s, table_id, status)
    else:
        await s.execute(update(GameTable).where(GameTable.id == table_id).values(status=status))
    return table_id


def tech_event(
    kind: str, by: int, target: int, yes, seats=range(1, 11), passed=None, day: int = 1
) -> dict:
    """A tech_record event as the engine's to_dict() gives it (T2: non-voters no)."""
    ballots = {str(seat): seat in set(yes) for seat in seats}
    passed = 2 * len(set(yes)) > len(list(seats)) if passed is None else passed
    return {
        "event": "tech_record",
        "t": 90,
        "kind": kind,
        "by": by,
        "target": target,
        "ballots": ballots,
        "passed": passed,
        "phase": "day",
        "day": day,
        "called_at": 60.0,
    }


async def finish(
    s, table_id: int, user_ids, winner: str = "red", forfeit=(), when: datetime | None = None
) -> int:
    """Store the table's finished game (standard deal), rate it, link its votes."""
    teams = ["black" if role in ("don", "mafia") else "red" for role in ROLES]
    players = [
        PlayerResult(seat, uid, role, team_result(winner, team), team, seat in forfeit)
        for seat, (uid, role, team) in enumerate(zip(user_ids, ROLES, teams), 1)
    ]
    game_id = await record_game(s, table_id, winner, "test", True, players, ended_at=when)
    await league.apply_game(s, game_id, when)
    await attach_game(s, table_id, game_id)
    await tables.end_table(s, table_id, "finished", when)
    return game_id


@dataclass
class Played:
    table_id: int
    game_id: int | None
    votes: list[int]  # in the order they ended
    vote_lines: list[int]


async def play_record(s, user_ids, lines: list[dict], header: dict | None = None) -> Played:
    """What the live runtime does, line by line: store the record (header at
    line 0), record each technical vote at the line whose step ended it, and
    store and rate the game when it ends."""
    header = header or {"ruleset": "classic", "seed": 9, "deal": DEAL}
    texts = [json.dumps(header)] + [json.dumps(line) for line in lines]
    table_id = await seat_table(s, user_ids, status="playing")
    script = parse("\n".join(texts))
    produced: list = []
    player = Player(script.header)
    for step in script.lines:
        before = len(player.events)
        player.play(step)
        produced += [(step.number - 1, e) for e in player.events[before:]]
    await tables.append_records(
        s, table_id, [tables.RecordLine(n, text) for n, text in enumerate(texts)]
    )
    votes, vote_lines = [], []
    for line, event in produced:
        if event.event == "tech_record":
            votes.append(await record_tech_vote(s, table_id, line, event.to_dict()))
            vote_lines.append(line)
    game_id = None
    if player.state.over:
        out = player.state.forfeits
        assert player.state.winner is not None  # a game that is over has one
        game_id = await finish(s, table_id, user_ids, player.state.winner, forfeit=out)
    return Played(table_id, game_id, votes, vote_lines)
