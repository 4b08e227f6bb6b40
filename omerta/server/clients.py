"""Who a request comes from, and the table sockets each account and each
address holds at once (limits.py: sockets_per_account, sockets_per_address)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from aiohttp import web

from .keys import CONFIG, SOCKETS_PER_ACCOUNT, SOCKETS_PER_ADDRESS
from .limits import client_address
from .wire import ApiError


def address_of(request: web.Request) -> str:
    """The client's address, through the configured trusted proxies."""
    return client_address(request, request.app[CONFIG].limits.forwarded_hops)


@contextmanager
def socket_slot(request: web.Request, user_id: int | None) -> Iterator[None]:
    """Hold one of the account's (if signed in) and one of the address's
    socket places while the block runs; 429 when either has none left."""
    per_account, per_address = request.app[SOCKETS_PER_ACCOUNT], request.app[SOCKETS_PER_ADDRESS]
    # A visitor who is not signed in (a spectator, watch.py) holds only the address's.
    account, address = "" if user_id is None else str(user_id), address_of(request)
    if account and not per_account.take(account):
        raise ApiError(
            429,
            f"your account has {per_account.ceiling} table sockets open already: close one first",
            headers={"Retry-After": "5"},
        )
    if not per_address.take(address):
        if account:
            per_account.give_back(account)
        raise ApiError(
            429,
            f"your address has {per_address.ceiling} table sockets open already: close one first",
            headers={"Retry-After": "5"},
        )
    try:
        yield
    finally:
        if account:
            per_account.give_back(account)
        per_address.give_back(address)
