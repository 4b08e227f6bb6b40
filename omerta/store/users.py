"""Accounts and login sessions."""

from __future__ import annotations

import hashlib
import secrets
from datetime import datetime, timedelta

from sqlalchemy import delete, func, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from .db import rowcount
from .models import AccountAddress, LoginSession, User, utcnow


class UsernameTaken(Exception):
    pass


async def add_user(s: AsyncSession, username: str, password_hash: str) -> User:
    """A new account; UsernameTaken if the name is in use, in any case."""
    if await user_by_name(s, username) is not None:
        raise UsernameTaken(username)
    user = User(username=username, password_hash=password_hash)
    s.add(user)
    try:
        await s.flush()
    except IntegrityError:  # registered by someone else since the check above
        raise UsernameTaken(username) from None
    return user


async def user_by_name(s: AsyncSession, username: str) -> User | None:
    return await s.scalar(select(User).where(func.lower(User.username) == username.lower()))


async def set_password_hash(s: AsyncSession, user_id: int, password_hash: str) -> None:
    await s.execute(update(User).where(User.id == user_id).values(password_hash=password_hash))


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


async def open_session(s: AsyncSession, user_id: int, lifetime: timedelta) -> str:
    """A new session for `user_id`; returns its token (only its hash is stored)."""
    token = secrets.token_urlsafe(32)
    s.add(LoginSession(token_hash=_digest(token), user_id=user_id, expires_at=utcnow() + lifetime))
    await s.flush()
    return token


async def session_user(s: AsyncSession, token: str) -> User | None:
    """The user signed in with `token`, unless it is unknown or expired."""
    return await s.scalar(
        select(User)
        .join(LoginSession, LoginSession.user_id == User.id)
        .where(LoginSession.token_hash == _digest(token), LoginSession.expires_at > utcnow())
    )


async def close_session(s: AsyncSession, token: str) -> None:
    await s.execute(delete(LoginSession).where(LoginSession.token_hash == _digest(token)))


async def note_address(
    s: AsyncSession, user_id: int, address: str, now: datetime | None = None
) -> None:
    """Remember that `user_id` registered or signed in from `address` now."""
    now = now or utcnow()
    insert = postgresql.insert if s.bind.dialect.name == "postgresql" else sqlite.insert
    statement = insert(AccountAddress).values(
        user_id=user_id, address=address[:64], first_seen=now, last_seen=now
    )
    await s.execute(
        statement.on_conflict_do_update(
            index_elements=["user_id", "address"], set_={"last_seen": now}
        )
    )


async def known_address(s: AsyncSession, user_id: int, address: str) -> bool:
    return (
        await s.scalar(
            select(AccountAddress.user_id).where(
                AccountAddress.user_id == user_id, AccountAddress.address == address[:64]
            )
        )
        is not None
    )


async def forget_addresses(s: AsyncSession, unused_since: datetime) -> int:
    """Forget the addresses accounts have not used since `unused_since`."""
    result = await s.execute(delete(AccountAddress).where(AccountAddress.last_seen < unused_since))
    return rowcount(result)
