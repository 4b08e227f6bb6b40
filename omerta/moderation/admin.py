"""Server-operator commands: `omerta admin grant-moderator USER` and
`omerta admin revoke-moderator USER`. Each change is written to the audit
log with no moderator (the operator at the command line)."""
from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncSession

from ..store import Database, users
from . import NotFound, audit


async def _set(s: AsyncSession, username: str, moderator: bool) -> str:
    user = await users.user_by_name(s, username)
    if user is None:
        raise NotFound(f"no user named {username!r}")
    if user.is_moderator == moderator:
        return f"{user.username} {'already is' if moderator else 'is not'} a moderator"
    user.is_moderator = moderator
    action = "grant_moderator" if moderator else "revoke_moderator"
    await audit.append(s, None, action, "by the server operator", user_id=user.id)
    return f"{user.username} {'is now' if moderator else 'is no longer'} a moderator"


async def grant_moderator(db: Database, username: str) -> str:
    """Make `username` a moderator; returns a line for the operator.
    Raises omerta.moderation.NotFound (its `message` says why) for an unknown user."""
    async with db.begin() as s:
        return await _set(s, username, True)


async def revoke_moderator(db: Database, username: str) -> str:
    """Take the moderator role from `username`; as grant_moderator."""
    async with db.begin() as s:
        return await _set(s, username, False)
