"""The abuse flag: the same group passing votes against the same player,
game after game. A flag only puts a case in front of a moderator sooner;
it sanctions nobody.

A passed vote V against user U is flagged when, among the passed votes
against U recorded in the WINDOW before V at OTHER tables (so other games),
there are two, at two different tables, such that at least SHARED people
voted yes in V and in both of them. The target's own ballot never counts,
and neither do bots (they have no ballot, T2). Only votes recorded before
V count, so a case's flag never changes after it is opened."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from itertools import combinations

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from ..store.models import TechBallotRecord, TechVoteRecord

WINDOW = timedelta(days=90)
SHARED = 3  # the same yes-voters, at least this many
OTHER_GAMES = 2  # passed votes against the player at this many other tables


@dataclass(frozen=True, slots=True)
class Pattern:
    votes: tuple[int, ...]  # the earlier votes that make the pattern (empty: no flag)
    group: frozenset[int]  # users who voted yes in V and in a qualifying pair


NONE = Pattern((), frozenset())


async def _yes_voters(s: AsyncSession, vote_ids: list[int]) -> dict[int, set[int]]:
    rows = await s.execute(
        select(TechBallotRecord.vote_id, TechBallotRecord.user_id).where(
            TechBallotRecord.vote_id.in_(vote_ids),
            TechBallotRecord.yes.is_(True),
            TechBallotRecord.user_id.is_not(None),
        )
    )
    out: dict[int, set[int]] = {vote_id: set() for vote_id in vote_ids}
    for vote_id, user_id in rows.tuples():
        assert user_id is not None  # the query leaves out ballots of removed accounts
        out[vote_id].add(user_id)
    return out


async def pattern(s: AsyncSession, vote: TechVoteRecord) -> Pattern:
    if not vote.passed or vote.target_id is None:
        return NONE
    earlier = (
        (
            await s.execute(
                select(TechVoteRecord.id, TechVoteRecord.table_id)
                .where(
                    TechVoteRecord.target_id == vote.target_id,
                    TechVoteRecord.passed.is_(True),
                    TechVoteRecord.table_id != vote.table_id,
                    TechVoteRecord.id < vote.id,
                    TechVoteRecord.recorded_at >= vote.recorded_at - WINDOW,
                    TechVoteRecord.recorded_at <= vote.recorded_at,
                )
                .order_by(TechVoteRecord.id)
            )
        )
        .tuples()
        .all()
    )
    if not earlier:
        return NONE
    yes = await _yes_voters(s, [vote.id, *(vote_id for vote_id, _ in earlier)])
    group = yes[vote.id] - {vote.target_id}
    shared = [(vote_id, table_id, yes[vote_id] & group) for vote_id, table_id in earlier]
    shared = [entry for entry in shared if len(entry[2]) >= SHARED]
    votes: set[int] = set()
    core: set[int] = set()
    for chosen in combinations(shared, OTHER_GAMES):
        if len({table_id for _, table_id, _ in chosen}) < OTHER_GAMES:
            continue
        together = set.intersection(*(voters for _, _, voters in chosen))
        if len(together) >= SHARED:
            votes.update(vote_id for vote_id, _, _ in chosen)
            core |= together
    return Pattern(tuple(sorted(votes)), frozenset(core)) if votes else NONE
