"""Each seat's media health, as the table sees it on the tiles: is the
player's connection up, and do their camera and mic reach the server.

Derived from the SFU alone (the peer connection's state, the last packet of
each of its streams), never from the game: it is the same for every seat
and spectator, and sent to all of them as a `media` message
`{"op": "status", "seats": [{"seat": 4, "link": "connected", "camera": true,
"mic": false}, ...]}` when it changes, and every few seconds for newcomers.
Clients keep sending whatever the gate says, so a camera that stops is off
at the player's end: clubs treat that as a foul-worthy offence by day."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from typing import Any

#: s without a packet after which a camera or mic counts as off
SILENT = 2.0
#: s between repeats of an unchanged status
REPEAT = 5.0

LINKS = {
    "connected": "connected",
    "new": "reconnecting",
    "connecting": "reconnecting",
    "disconnected": "reconnecting",
    "failed": "reconnecting",
    "closed": "offline",
}


class Health:
    def __init__(self, seats: Iterable[int]):
        self.seats = tuple(seats)
        self.tell: Callable[[dict[str, Any]], None] | None = None
        self.last: list[dict[str, Any]] | None = None
        self.told_at = -math.inf

    def update(
        self, now: float, states: Mapping[int, str], last_packets: Mapping[tuple[int, str], float]
    ) -> None:
        """`states`: each attached seat's connection state; `last_packets`:
        when each (seat, kind) last reached the server."""
        seats = [
            {
                "seat": seat,
                "link": LINKS.get(states[seat], "reconnecting") if seat in states else "offline",
                "camera": now - last_packets.get((seat, "video"), -math.inf) < SILENT,
                "mic": now - last_packets.get((seat, "audio"), -math.inf) < SILENT,
            }
            for seat in self.seats
        ]
        if self.tell is None or (seats == self.last and now - self.told_at < REPEAT):
            return
        self.last, self.told_at = seats, now
        self.tell({"op": "status", "seats": seats})
