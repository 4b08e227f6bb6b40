"""Watching a live game in Chromium (issue 19): a visitor who is not signed
in watches a table that anyone may watch, on a 390x844 phone. Every event
their page receives is one whose audience is everyone (checked against the
table's record, as `omerta replay --audience` tells it), no view holds a
role, and the page never shows a role or a secret line; by day the
player's camera reaches it and it is offered nothing to send; the player
sees that someone watches. The delayed stream's page shows nothing of the game
before the delay, then every role, also on its 1920x1080 transparent overlay."""

from __future__ import annotations

import json
import sqlite3
import time

import pytest

from omerta.script import Player, parse

from .conftest import TIME_SCALE, sign_up

pytestmark = pytest.mark.slow  # a live game with bots in Chromium: about 20 s

PHONE = {"width": 390, "height": 844}
FULL_HD = {"width": 1920, "height": 1080}
DELAY = 30  # game seconds: 1.5 s of wall time at the browser tests' time scale
LOADED = 60_000  # ms a page may take on a machine shared by many test runs
HIDDEN = {"role", "team", "check", "night_action", "seated", "tech_record", "tech_ballot"}


def api(page, method: str, path: str, body: dict | None = None):
    """A call through the page's own client (its cookies and CSRF token)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const api = await import("/web/js/api.js");
            return method === "GET" ? api.get(path) : api.post(path, body);
        }""",
        [method, path, body],
    )


def record_of(server, table_id: int) -> list[str]:
    """The table's record as the server has written it so far (its database,
    read beside it: nobody may read a live table's record over HTTP)."""
    with sqlite3.connect(f"file:{server.data / 'omerta.db'}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT text FROM table_records WHERE table_id = ? ORDER BY line", (table_id,)
        )
        return [text for (text,) in rows]


def frames_of(page) -> list[dict]:
    """Every WebSocket message the page receives, parsed, in order."""
    got: list[dict] = []
    page.on(
        "websocket",
        lambda ws: ws.on("framereceived", lambda payload: got.append(json.loads(payload))),
    )
    return got


def test_a_spectator_page_never_shows_a_hidden_fact_and_the_stream_waits(new_page, server):
    player = new_page()
    player.set_default_timeout(LOADED)
    sign_up(player, server, "host")
    watch = {"spectators": "anyone", "stream": True, "stream_delay": DELAY}
    table_id = api(player, "POST", "/api/tables", {"watch": watch})["table"]["id"]
    api(player, "POST", f"/api/tables/{table_id}/sit")
    api(player, "POST", f"/api/tables/{table_id}/bots")
    player.goto(f"{server.url}/#/table/{table_id}")

    spectator = new_page(viewport=PHONE)  # a fresh context: not signed in
    spectator.set_default_timeout(LOADED)
    heard = frames_of(spectator)
    spectator.goto(f"{server.url}/#/table/{table_id}")
    spectator.wait_for_selector(".spectator-note:not([hidden])")
    player.wait_for_selector(".spectator-count:not([hidden])")
    assert "1" in player.inner_text(".spectator-count")

    streamer = new_page(viewport=PHONE)
    streamer.set_default_timeout(LOADED)
    streamed = frames_of(streamer)
    opened = time.monotonic()
    streamer.goto(f"{server.url}/#/stream/{table_id}")
    streamer.wait_for_selector(".scene-seat[data-role='sheriff']")
    assert time.monotonic() - opened >= DELAY / TIME_SCALE  # nothing before the delay
    assert {"role", "picked"} <= {m["event"]["event"] for m in streamed if m["type"] == "event"}
    assert streamer.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]

    overlay = new_page(viewport=FULL_HD)  # as OBS shows it
    overlay.set_default_timeout(LOADED)
    overlay.goto(f"{server.url}/#/stream/{table_id}/overlay")
    overlay.wait_for_selector(".overlay-frame .scene-seat[data-role='don']")
    for part in ("document.documentElement", "document.body"):
        assert overlay.evaluate(f"getComputedStyle({part}).backgroundColor") == "rgba(0, 0, 0, 0)"
    assert overlay.evaluate("getComputedStyle(document.documentElement).colorScheme") == "normal"
    overlay.wait_for_selector(".overlay-timer:not([hidden])")
    box = overlay.eval_on_selector(".overlay-frame", "e => [e.offsetWidth, e.offsetHeight]")
    assert box == [1920, 1080]
    assert overlay.is_hidden(".header")

    deadline = time.monotonic() + 4
    while time.monotonic() < deadline:  # the spectator's page as the game goes on
        assert spectator.query_selector_all(".role-badge, .log li.secret") == []
        assert spectator.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
        spectator.wait_for_timeout(500)

    # G3: by day the host's camera reaches the spectator, who sends nothing.
    seats = api(player, "GET", f"/api/tables/{table_id}")["table"]["seats"]
    host = next(seat["seat"] for seat in seats if seat["user"] == "host")
    spectator.wait_for_function(
        f"document.querySelector('.tile[data-seat=\"{host}\"] video')?.videoWidth > 0"
    )
    offers = [m for m in heard if m["type"] == "media" and m.get("op") == "description"]
    assert offers and all(slot["dir"] == "recv" for m in offers for slot in m["slots"])
    events = [m["event"] for m in heard if m["type"] == "event"]
    views = [m["view"] for m in heard if m["type"] == "view"]
    assert len(events) > 10 and views
    assert all(row["role"] is None for v in views if not v["winner"] for row in v["seats"])
    assert all(v["seat"] is None and v["actions"] == [] and v["checks"] == {} for v in views)
    assert not HIDDEN & {e["event"] for e in events}
    script = parse("\n".join(record_of(server, table_id)))
    played = Player(script.header)
    for line in script.lines:
        played.play(line)
    public = [e.to_dict() for e in played.events if e.audience.kind == "everyone"]
    assert events == public[: len(events)]  # each one's audience is everyone, none missing
