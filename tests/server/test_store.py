"""Repository functions the HTTP routes do not reach yet (records, expiry)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import update
from sqlalchemy.exc import IntegrityError

from omerta.store import Database, tables, users
from omerta.store.models import LoginSession, Seat, utcnow


@pytest.fixture
async def db(database_url):
    db = Database.connect(database_url)
    yield db
    await db.close()


async def new_table(db: Database) -> int:
    async with db.begin() as s:
        creator = await users.add_user(s, "alice", "!")
        return await tables.create_table(s, creator.id, "classic", {}, seed=7)


async def test_a_table_record_reads_back_in_order_and_a_line_is_never_rewritten(db):
    table_id = await new_table(db)
    lines = [
        '{"ruleset": "classic", "seed": 7}',
        '{"seat": 1, "do": "pick", "card": 3, "t": 1.5}',
        '{"do": "timeout", "t": 15}',
    ]
    async with db.begin() as s:
        for number, text in reversed(list(enumerate(lines))):
            await tables.append_record(s, table_id, number, text)
    async with db.begin() as s:
        assert await tables.read_record(s, table_id) == lines
    with pytest.raises(IntegrityError):
        async with db.begin() as s:
            await tables.append_record(s, table_id, 1, '{"do": "wait"}')
    async with db.begin() as s:
        assert await tables.read_record(s, table_id) == lines


async def test_an_expired_session_signs_nobody_in(db):
    async with db.begin() as s:
        user = await users.add_user(s, "alice", "!")
        token = await users.open_session(s, user.id, timedelta(minutes=5))
    async with db.begin() as s:
        assert (await users.session_user(s, token)).id == user.id
        await s.execute(update(LoginSession).values(expires_at=utcnow() - timedelta(seconds=1)))
    async with db.begin() as s:
        assert await users.session_user(s, token) is None


async def test_a_seat_holds_a_user_or_a_bot_never_both_or_neither(db):
    table_id = await new_table(db)
    for user_id, is_bot in ((1, True), (None, False)):
        with pytest.raises(IntegrityError):
            async with db.begin() as s:
                s.add(Seat(table_id=table_id, seat=1, user_id=user_id, is_bot=is_bot))


async def test_addresses_an_account_has_not_used_for_long_are_forgotten(db):
    async with db.begin() as s:
        alice = await users.add_user(s, "alice", "!")
        await users.note_address(s, alice.id, "203.0.113.1", utcnow() - timedelta(days=200))
        await users.note_address(s, alice.id, "198.51.100.1", utcnow() - timedelta(days=10))
    async with db.begin() as s:
        assert await users.forget_addresses(s, utcnow() - timedelta(days=180)) == 1
        assert not await users.known_address(s, alice.id, "203.0.113.1")
        assert await users.known_address(s, alice.id, "198.51.100.1")
