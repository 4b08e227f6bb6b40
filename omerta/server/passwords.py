"""argon2id password hashing, off the event loop (a hash takes tens of
milliseconds of CPU; argon2-cffi releases the GIL while it works)."""
from __future__ import annotations

import asyncio
import secrets

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError


class Passwords:
    def __init__(self, hasher: PasswordHasher):
        self.hasher = hasher
        self._stand_in: str | None = None

    async def hash(self, password: str) -> str:
        return await asyncio.get_running_loop().run_in_executor(None, self.hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether `password` matches. With no hash (an unknown username) a
        stand-in hash is checked instead, so the answer takes as long and
        does not tell which usernames exist."""
        if password_hash is None:
            if self._stand_in is None:
                self._stand_in = await self.hash(secrets.token_urlsafe(16))
            password_hash = self._stand_in
        return await asyncio.get_running_loop().run_in_executor(
            None, self._verify, password_hash, password)

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self.hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        return self.hasher.check_needs_rehash(password_hash)
