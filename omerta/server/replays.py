"""A finished game told again, step by step, for the replay viewer
(docs/api.md, "Replays"; omerta/web/js/replay/): the events and, after
each step, the table as one seat saw it (`views.view`) or in full
(`views.reveal`). Built from the record of a game that is over only: while
a game is on, nothing of it is told here (the server checks the table's
status before it calls this)."""

from __future__ import annotations

from typing import Any

from ..script import Player, parse
from ..table.views import replay_view, told


def frames(record: str, seat: int | None) -> dict[str, Any]:
    """The replay of `record` as `seat` saw it (None: the full reveal):
    `events` in order, and `frames`, each the view after a step at game
    time `t` with `events` (how many of them had happened), only where the
    view changed."""
    script = parse(record)
    player = Player(script.header)
    state = player.state
    if seat is not None and seat not in state.seats:
        raise ValueError(f"the game had seats 1 to {state.n}, not {seat}")
    shown_events: list[dict[str, Any]] = []
    shown: list[dict[str, Any]] = []
    done = 0

    def step(_: object = None) -> None:
        """After each step that changed the state: its events and the view."""
        nonlocal done
        if done and done == len(player.events):  # this step is shown already
            return
        shown_events.extend(e.to_dict() for e in told(player.events[done:], seat))
        done = len(player.events)
        now = replay_view(player.state, seat)
        if shown and shown[-1]["view"] == now:
            shown[-1]["events"] = len(shown_events)
        else:
            shown.append({"t": player.state.now, "events": len(shown_events), "view": now})

    step()
    player.on_event = step  # each deadline and action, as the player takes them
    for line in script.lines:
        while (
            line.t is not None and (due := player.state.next_deadline) is not None and due < line.t
        ):
            player.finish(1)  # one deadline at a time, not all up to `t` at once
        player.play(line)
    player.finish()
    return {"seat": seat, "events": shown_events, "frames": shown}
