"""argon2id password hashing, off the event loop and bounded, and what a
new password must be.

A hash takes tens of milliseconds of a core and 64 MiB (argon2-cffi
releases the GIL while it works). Registration needs no account, so a flood
of them could take every core and all memory: at most `at_once` hashes run
together, at most `queue` more wait, and past that the caller is told the
server is busy (HTTP 503 with Retry-After) instead of queueing without end."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Callable
from functools import cache
from importlib import resources
from typing import TypeVar

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

PASSWORD_MIN, PASSWORD_MAX = 8, 256
COMMON_PASSWORDS = "common_passwords.txt"
T = TypeVar("T")


class Busy(Exception):
    """Too many password hashes are running or waiting; try again soon."""


class Passwords:
    def __init__(self, hasher: PasswordHasher, at_once: int = 2, queue: int = 16):
        self.hasher = hasher
        self._slots = asyncio.Semaphore(max(1, at_once))
        self._queue = queue
        self._waiting = 0
        self._stand_in: str | None = None

    async def _run(self, work: Callable[..., T], *args: str) -> T:
        if self._slots.locked():
            if self._waiting >= self._queue:
                raise Busy()
            self._waiting += 1
            try:
                await self._slots.acquire()
            finally:
                self._waiting -= 1
        else:
            await self._slots.acquire()
        try:
            return await asyncio.get_running_loop().run_in_executor(None, work, *args)
        finally:
            self._slots.release()

    async def hash(self, password: str) -> str:
        return await self._run(self.hasher.hash, password)

    async def verify(self, password_hash: str | None, password: str) -> bool:
        """Whether `password` matches. With no hash (an unknown username) a
        stand-in hash is checked instead, so the answer takes as long and
        does not tell which usernames exist."""
        if password_hash is None:
            if self._stand_in is None:
                self._stand_in = await self.hash(secrets.token_urlsafe(16))
            password_hash = self._stand_in
        return await self._run(self._verify, password_hash, password)

    def _verify(self, password_hash: str, password: str) -> bool:
        try:
            return self.hasher.verify(password_hash, password)
        except (VerificationError, InvalidHashError):
            return False

    def needs_rehash(self, password_hash: str) -> bool:
        return self.hasher.check_needs_rehash(password_hash)


@cache
def common_passwords() -> frozenset[str]:
    """The shipped list (package data next to this module), lower case."""
    text = resources.files(__package__).joinpath(COMMON_PASSWORDS).read_text("utf-8")
    return frozenset(line for line in text.splitlines() if line and not line.startswith("#"))


def weakness(password: str, username: str) -> str | None:
    """Why `password` is too weak for a new account, or None."""
    if len(password) < PASSWORD_MIN:
        return f"a password has at least {PASSWORD_MIN} characters"
    if len(password) > PASSWORD_MAX:
        return f"a password has at most {PASSWORD_MAX} characters"
    lowered = password.lower()
    if lowered in common_passwords():
        return "this password is among the most common ones and is guessed first: choose another"
    if username.lower() in lowered:
        return "a password must not contain the username"
    return None
