"""Server-operator commands: `omerta admin grant-moderator USER`,
`revoke-moderator`, and the same for the tournament director role
(`grant-director`, `revoke-director`). Each change is written to the audit
log with no moderator (the operator at the command line)."""

from __future__ import annotations

from typing import Literal

from sqlalchemy.ext.asyncio import AsyncSession

from ..store import Database, users
from . import NotFound, audit

#: the roles the operator grants; each a boolean column of users
Role = Literal["moderator", "director"]


async def _set(s: AsyncSession, username: str, role: Role, granted: bool) -> str:
    user = await users.user_by_name(s, username)
    if user is None:
        raise NotFound(f"no user named {username!r}")
    column = f"is_{role}"
    if getattr(user, column) == granted:
        return f"{user.username} {'already is' if granted else 'is not'} a {role}"
    setattr(user, column, granted)
    action = f"{'grant' if granted else 'revoke'}_{role}"
    await audit.append(s, None, action, "by the server operator", user_id=user.id)
    return f"{user.username} {'is now' if granted else 'is no longer'} a {role}"


async def set_role(db: Database, username: str, role: Role, granted: bool) -> str:
    """Grant or take `role` from `username`; returns a line for the operator.
    Raises omerta.moderation.NotFound (its `message` says why) for an unknown user."""
    async with db.begin() as s:
        return await _set(s, username, role, granted)


async def grant_moderator(db: Database, username: str) -> str:
    """Make `username` a moderator; as set_role."""
    return await set_role(db, username, "moderator", True)


async def revoke_moderator(db: Database, username: str) -> str:
    """Take the moderator role from `username`; as set_role."""
    return await set_role(db, username, "moderator", False)


async def grant_director(db: Database, username: str) -> str:
    """Make `username` a tournament director; as set_role."""
    return await set_role(db, username, "director", True)
