"""The table client against a scripted server: Playwright answers the
table's HTTP and WebSocket routes itself, so each finding of the table's
screen is shown from an exact game state, in seconds, with no clocks to
race: the draw's taken cards, refusals in the player's language, the Mafia's
night, fouls, the dead, bots, the keyboard, the stage's news, the menu that
stays open, a dropped network, two tabs, and the city end screen."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from .conftest import PASSWORD, sign_up

TABLE = 990
SETTINGS = {
    "voting": "closed",
    "agreement": "silent",
    "auto_deal": False,
    "break_at_zero": False,
    "lift_at_zero": False,
}
BOTS = {6, 8}


def _table(status: str = "playing", me: str = "tess") -> dict[str, Any]:
    seats = [
        {"seat": n, "user": None if n in BOTS else (me if n == 3 else f"p{n}"), "bot": n in BOTS}
        for n in range(1, 11)
    ]
    return {
        "table": {
            "id": TABLE,
            "ruleset": "classic",
            "settings": SETTINGS,
            "ranked": False,
            "status": status,
            "creator": "tess",
            "seats_total": 10,
            "seats_taken": 10,
            "seats": seats,
            "created_at": "2026-12-01T06:00:00+00:00",
            "started_at": "2026-12-01T06:00:00+00:00",
            "finished_at": None,
        }
    }


def _view(phase: str, **changes: Any) -> dict[str, Any]:
    seats = [
        {"seat": n, "alive": True, "bot": n in BOTS, "fouls": 0, "interjections": 3, "role": None}
        for n in range(1, 11)
    ]
    view = {
        "seat": 3,
        "ruleset": "classic",
        "settings": SETTINGS,
        "phase": phase,
        "day": 1,
        "night": 1,
        "deadline": 500,
        "seats": seats,
        "speaker": None,
        "speech_kind": None,
        "interjector": None,
        "interjection_end": None,
        "nominees": [],
        "nominations_closed": False,
        "vote": None,
        "tech": None,
        "checks": {},
        "gate": {"audio": [], "video": []},
        "actions": [],
        "winner": None,
        "reason": None,
    }
    for seat, fields in changes.pop("seat_changes", {}).items():
        seats[seat - 1].update(fields)
    view.update(changes)
    return view


@dataclass
class ScriptedTable:
    """The server side of one table's socket: what it sent (replayed on a
    reconnection) and the actions the page sent."""

    page: Any
    sent: list[str] = field(default_factory=list)
    actions: list[dict[str, Any]] = field(default_factory=list)
    sockets: list[Any] = field(default_factory=list)
    seq: int = 0
    answering: bool = True
    #: the page's pings, as they were sent
    pings: list[str] = field(default_factory=list)

    def open(self, route: Any) -> None:
        self.sockets.append(route)
        route.on_message(self._heard)
        route.send(json.dumps({"type": "hello", "table": TABLE, "seat": 3}))
        for text in self.sent:
            route.send(text)

    def _heard(self, text: str) -> None:
        message = json.loads(text)
        if "do" in message:
            self.actions.append(message)
        elif message.get("type") == "ping":
            self.pings.append(text)
            if self.answering:
                self.sockets[-1].send(json.dumps({"type": "pong"}))

    def _send(self, message: dict[str, Any]) -> None:
        text = json.dumps(message)
        self.sent.append(text)
        if self.answering:
            self.sockets[-1].send(text)

    def event(self, event: dict[str, Any]) -> None:
        self.seq += 1
        self._send({"type": "event", "seq": self.seq, "event": {"t": self.seq, **event}})

    def view(self, view: dict[str, Any]) -> None:
        self._send({"type": "view", "seq": self.seq, "now": 10, "deadline_in": 400, "view": view})

    def error(self, **message: Any) -> None:
        self.sockets[-1].send(json.dumps({"type": "error", "id": None, **message}))


def _register(page, server, user: str) -> None:
    """An account for `user`, signed in in the page's context, through the
    API (the sign-up form has tests of its own)."""
    token = page.request.get(f"{server.url}/api/csrf").json()["csrf"]
    answer = page.request.post(
        f"{server.url}/api/register",
        headers={"X-CSRF-Token": token},
        data={"username": user, "password": PASSWORD},
    )
    assert answer.ok, answer.text()


def _open(new_page, server, user: str, locale: str = "en-US") -> tuple[Any, ScriptedTable]:
    """`user` signs up (a new name for each test) and sits in seat 3."""
    page = new_page(locale=locale)
    _register(page, server, user)
    table = ScriptedTable(page)
    page.route(f"**/api/tables/{TABLE}", lambda route: route.fulfill(json=_table(me=user)))
    page.route_web_socket(re.compile(f"/api/tables/{TABLE}/ws"), table.open)
    page.goto(f"{server.url}/#/table/{TABLE}")
    page.wait_for_selector(".table-page")
    page.wait_for_function("document.querySelector('.conn.open')")
    return page, table


def _contrast(page, selector: str) -> float:
    """WCAG contrast of an element's text on its own background, with the
    opacity of it and every ancestor (text on a faded tile is fainter)."""
    colours = page.evaluate(
        """(selector) => {
      const el = document.querySelector(selector);
      let opacity = 1;
      for (let node = el; node; node = node.parentElement) opacity *= Number(getComputedStyle(node).opacity);
      const style = getComputedStyle(el);
      return { fg: style.color, bg: style.backgroundColor, opacity };
    }""",
        selector,
    )

    def rgba(text: str) -> tuple[float, ...]:
        parts = [float(x) for x in re.findall(r"[\d.]+", text)]
        return tuple(parts[:3]) + ((parts[3],) if len(parts) > 3 else (1.0,))

    tile = (21, 24, 29)  # the tile behind the label
    fg, bg = rgba(colours["fg"]), rgba(colours["bg"])
    back = tuple(bg[i] * bg[3] + tile[i] * (1 - bg[3]) for i in range(3))
    alpha = colours["opacity"]
    back = tuple(back[i] * alpha + tile[i] * (1 - alpha) for i in range(3))
    front = tuple(fg[i] * alpha + tile[i] * (1 - alpha) for i in range(3))

    def luminance(c: tuple[float, ...]) -> float:
        def channel(v: float) -> float:
            v /= 255
            return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

        r, g, b = (channel(v) for v in c)
        return 0.2126 * r + 0.7152 * g + 0.0722 * b

    hi, lo = sorted((luminance(front), luminance(back)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def test_K1_the_draw_shows_taken_cards_and_who_has_picked(new_page, server):
    page, table = _open(new_page, server, "tess")
    table.event({"event": "phase", "phase": "draw", "day": 0, "seconds": 15})
    table.view(_view("draw", actions=["pick"]))
    page.wait_for_selector(".draw-card")
    # Bots pick; no new view comes (tess's view did not change).
    table.event({"event": "picked", "seat": 2, "card": 0})
    table.event({"event": "picked", "seat": 4, "card": 8})
    taken = page.locator(".draw-card.taken")
    taken.nth(1).wait_for()
    cards = page.locator(".draw-card .card-no")
    assert cards.all_text_contents() == [str(n) for n in range(1, 11)]
    assert [c.get_attribute("data-card") for c in taken.all()] == ["1", "9"]
    assert taken.nth(1).locator(".card-by").text_content() == "#4"
    assert taken.nth(0).is_disabled() and taken.nth(1).is_disabled()
    assert page.locator(".draw-card:not([disabled])").count() == 8
    assert page.locator(".tile[data-seat='4'] .mark", has_text="Has a card").is_visible()


def test_a_refusal_reads_in_the_players_language_without_rule_codes(new_page, server):
    page, table = _open(new_page, server, "ulya", locale="uk-UA")
    table.view(_view("draw", actions=["pick"]))
    table.error(error="card 9 is already taken", rule="K1", code="card_taken", params={"card": 8})
    notice = page.locator(".notice.error .notice-text")
    notice.wait_for()
    assert notice.text_content() == "Карту 9 вже взяли: оберіть іншу."
    table.error(error="something only developers read", rule="X9", code="no_code_the_client_knows")
    page.wait_for_function("document.querySelector('.notice-text').textContent.includes('Зараз')")
    assert notice.text_content() == "Зараз цього зробити не можна."


def test_S1_the_mafia_see_their_team_and_its_shots_while_choosing(new_page, server):
    page, table = _open(new_page, server, "mona")
    table.event({"event": "role", "seat": 3, "role": "mafia"})
    table.event({"event": "team", "roles": {"1": "don", "3": "mafia", "7": "mafia"}})
    table.event({"event": "phase", "phase": "shot", "night": 2, "seconds": 7})
    table.event({"event": "night_action", "action": "shoot", "by": 7, "target": 4})
    table.view(
        _view(
            "shot",
            night=2,
            actions=["shoot"],
            seat_changes={1: {"role": "don"}, 3: {"role": "mafia"}, 7: {"role": "mafia"}},
        )
    )
    mark = page.locator(".tile[data-seat='4'] .mark", has_text="Shot by #7")
    mark.wait_for()
    assert mark.is_visible()  # without holding the card key
    assert page.locator(".tile[data-seat='1'] .role-badge", has_text="Don").is_visible()
    # A teammate's choice reaches the tiles though no view follows it.
    table.event({"event": "night_action", "action": "shoot", "by": 1, "target": 9})
    page.locator(".tile[data-seat='9'] .mark", has_text="Shot by #1").wait_for()


def test_tiles_show_fouls_the_dead_and_bots_and_are_reached_with_tab(new_page, server):
    page, table = _open(new_page, server, "fiona")
    table.event({"event": "left", "seat": 5, "cause": "vote"})
    table.event({"event": "phase", "phase": "shot", "night": 2, "seconds": 7})
    table.view(
        _view(
            "shot",
            night=2,
            actions=["shoot"],
            seat_changes={2: {"fouls": 2}, 5: {"alive": False}, 3: {"role": "mafia"}},
        )
    )
    fouls = page.locator(".tile[data-seat='2'] .fouls")
    fouls.wait_for()
    assert fouls.text_content() == "2 fouls"
    assert fouls.bounding_box()["height"] >= 14 and fouls.bounding_box()["width"] >= 30
    out = page.locator(".tile[data-seat='5'] .tile-out")
    assert out.text_content() == "Voted out"
    assert _contrast(page, ".tile[data-seat='5'] .tile-out") >= 4.5  # WCAG AA
    bot = page.locator(".tile[data-seat='6']")
    assert bot.locator(".bot-face").is_visible()
    assert not bot.locator(".tile-placeholder").is_visible()
    # Tab reaches the tiles; Enter on a target tile acts on it.
    page.locator("body").click(position={"x": 2, "y": 2})
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("document.activeElement.dataset.seat") == "2":
            break
    assert page.evaluate("document.activeElement.classList.contains('tile')")
    page.keyboard.press("Enter")
    page.wait_for_function("true")
    page.wait_for_timeout(300)
    assert {"do": "shoot", "target": 2} in [
        {k: a[k] for k in ("do", "target")} for a in table.actions
    ]


def test_a_number_key_acts_only_after_enter_and_escape_takes_it_back(new_page, server):
    page, table = _open(new_page, server, "kai")
    table.event({"event": "phase", "phase": "day", "day": 1})
    table.event({"event": "speech", "seat": 3, "seconds": 60, "kind": "day"})
    table.view(
        _view(
            "day_speech",
            speaker=3,
            speech_kind="day",
            actions=["end_speech", "nominate", "tech_call"],
        )
    )
    page.wait_for_selector(".tile.target")
    page.locator(".log").click()
    page.keyboard.press("4")
    page.locator(".stage .pending").wait_for()
    page.wait_for_timeout(500)
    assert table.actions == []  # nothing is sent yet
    page.keyboard.press("Escape")
    assert page.locator(".stage .pending").count() == 0
    page.wait_for_timeout(2800)  # past the 2.5 s window
    assert table.actions == []  # taken back for good
    page.keyboard.press("4")
    page.keyboard.press("Enter")
    page.wait_for_timeout(300)
    assert [(a["do"], a["target"]) for a in table.actions] == [("nominate", 4)]


def test_the_stage_tells_the_days_news_the_speaking_order_and_keeps_the_menu_open(new_page, server):
    page, table = _open(new_page, server, "dora")
    table.event({"event": "phase", "phase": "day", "day": 2})
    table.event({"event": "morning", "dead": [5]})
    table.event({"event": "left", "seat": 5, "cause": "shot"})
    table.event({"event": "speech", "seat": 7, "seconds": 60, "kind": "day"})
    view = _view(
        "day_speech",
        day=2,
        speaker=7,
        speech_kind="day",
        actions=["tech_call", "interject"],
        seat_changes={5: {"alive": False}},
    )
    table.view(view)
    news = page.locator(".stage .news")
    news.wait_for()
    assert "Morning: #5 p5 did not survive the night." in news.text_content()
    assert "#5 p5 was shot." in news.text_content()
    order = page.locator(".stage .order .chip").all_text_contents()
    assert order == [
        "#7 p7",
        "#8 Bot",
        "#9 p9",
        "#10 p10",
        "#1 p1",
        "#2 p2",
        "#3 dora",
        "#4 p4",
        "#6 Bot",
    ]
    page.locator("details.tech-menu summary").click()
    # The table moves on twice: the menu stays open.
    table.event({"event": "speech_end", "seat": 7, "early": False})
    table.event({"event": "speech", "seat": 8, "seconds": 60, "kind": "day"})
    table.view({**view, "speaker": 8})
    page.wait_for_function(
        "document.querySelector('.stage .order .chip.now').textContent === '#8 Bot'"
    )
    table.event({"event": "vote_cancelled"})
    page.locator(".stage .news", has_text="Today's vote is cancelled.").wait_for()
    assert page.locator("details.tech-menu").get_attribute("open") is not None
    page.locator("details.tech-menu [data-tech=foul]").click()


def test_day_one_says_nobody_leaves_by_vote_in_ukrainian_too(new_page, server):
    page, table = _open(new_page, server, "otto", locale="uk-UA")
    table.event({"event": "phase", "phase": "day", "day": 1})
    table.view(
        _view(
            "vote",
            vote={
                "round": "vote",
                "candidates": [2, 4],
                "calling": None,
                "ballots": {},
                "voted": None,
            },
            actions=["vote"],
        )
    )
    page.locator(
        ".stage .news", has_text="День 1: сьогодні голосуванням ніхто не вибуває."
    ).wait_for()
    assert page.locator(".phase").text_content() == "День 1 · Голосування"
    assert page.locator("[data-vote]").all_text_contents() == [
        "Голосувати: №2 p2",
        "Голосувати: №4 p4",
    ]


def test_a_dropped_network_shows_disconnected_within_5_s(new_page, server):
    page, table = _open(new_page, server, "tara")
    table.view(_view("day_speech", speaker=7, speech_kind="day"))
    page.wait_for_selector(".conn.open")
    page.wait_for_timeout(3000)
    assert page.locator(".conn.open").count() == 1  # pings answered: still connected
    table.answering = False  # the network drops: nothing comes
    started = page.evaluate("performance.now()")
    page.wait_for_selector(".conn.lost", timeout=5000)
    took = page.evaluate("performance.now()") - started
    assert took <= 5000
    assert page.locator(".conn").text_content() == "Disconnected: reconnecting…"


def test_the_page_pings_every_2_s_in_the_text_the_server_answers_first(new_page, server):
    """docs/api.md: every 2 s (not every second: the server answers each
    of thousands), spelt as the server's shortcut expects."""
    page, table = _open(new_page, server, "ursa")
    table.view(_view("day_speech", speaker=7, speech_kind="day"))
    page.wait_for_timeout(5000)
    assert 1 <= len(table.pings) <= 3, table.pings  # timers may run late, never early
    assert set(table.pings) == {'{"type":"ping"}'}
    assert page.locator(".conn.open").count() == 1


def test_others_disconnections_show_on_their_tiles(new_page, server):
    page, table = _open(new_page, server, "vic")
    table.view(_view("day_speech", speaker=7, speech_kind="day"))
    page.wait_for_selector(".tile[data-seat='4']")
    table.sockets[-1].send(json.dumps({"type": "presence", "connected": [1, 2, 3, 5, 7, 9, 10]}))
    away = page.locator(".tile.away")
    away.first.wait_for()
    # p4 is away; the bots (6, 8) have no connection to lose.
    assert [t.get_attribute("data-seat") for t in away.all()] == ["4"]
    assert page.locator(".tile[data-seat='4'] .away-badge").text_content() == "Offline"
    table.sockets[-1].send(json.dumps({"type": "presence", "connected": [1, 2, 3, 4, 5, 7, 9, 10]}))
    page.wait_for_function("!document.querySelector('.tile.away')")


def test_a_second_tab_takes_the_seat_and_the_first_lets_go(new_page, server):
    page, table = _open(new_page, server, "zed")
    table.view(_view("day_speech", speaker=7, speech_kind="day"))
    second = page.context.new_page()
    second.route(f"**/api/tables/{TABLE}", lambda route: route.fulfill(json=_table(me="zed")))
    second.route_web_socket(re.compile(f"/api/tables/{TABLE}/ws"), table.open)
    second.goto(f"{server.url}/#/table/{TABLE}")
    second.wait_for_selector(".table-page")
    page.locator(".other-tab").wait_for()
    assert page.locator(".table-page").count() == 0  # no socket, no camera
    assert page.evaluate("document.querySelectorAll('video').length") == 0
    assert second.locator(".table-page").count() == 1


def test_the_city_end_screen_reveals_the_night_and_the_night_dead(new_page, server):
    page = new_page()
    sign_up(page, server, "cora")
    city = {
        **_table("finished")["table"],
        "ruleset": "city",
        "seats": [{"seat": n, "user": None, "bot": True} for n in range(1, 11)],
    }
    players = [
        {"seat": n, "user": None, "bot": True, "role": role, "result": "loss"}
        for n, role in enumerate(
            [
                "putana",
                "mafia",
                "don",
                "maniac",
                "doctor",
                "commissar",
                "civilian",
                "civilian",
                "civilian",
                "civilian",
            ],
            1,
        )
    ]
    events = [
        {"event": "phase", "t": 20, "phase": "putana", "night": 1},
        {"event": "night_action", "t": 21, "action": "visit", "by": 1, "target": 7},
        {"event": "night_action", "t": 31, "action": "shoot", "by": 2, "target": 8},
        {"event": "night_action", "t": 41, "action": "kill", "by": 4, "target": 9},
        {"event": "night_action", "t": 51, "action": "heal", "by": 5, "target": 8},
        {"event": "check", "t": 61, "by": 6, "target": 2, "result": "black"},
        {"event": "phase", "t": 80, "phase": "day", "day": 1},
        {"event": "morning", "t": 80, "dead": [9]},
        {
            "event": "game_over",
            "t": 90,
            "winner": "maniac",
            "reason": "maniac_last_two",
            "roles": {str(p["seat"]): p["role"] for p in players},
        },
    ]
    game = {
        "id": 77,
        "table": TABLE,
        "ruleset": "city",
        "settings": {},
        "winner": "maniac",
        "reason": "maniac_last_two",
        "ranked": False,
        "ended_at": "2026-12-01T07:00:00+00:00",
        "players": players,
        "events": events,
    }
    page.route(f"**/api/tables/{TABLE}", lambda route: route.fulfill(json={"table": city}))
    page.route(f"**/api/tables/{TABLE}/game", lambda route: route.fulfill(json={"game": game}))
    page.goto(f"{server.url}/#/table/{TABLE}")
    night = page.locator(".reveal-nights .reveal-period")
    night.wait_for()
    told = night.text_content()
    for line in (
        "#1 Bot visits #7 Bot.",
        "#4 Bot goes after #9 Bot.",
        "#5 Bot heals #8 Bot.",
        "#6 Bot checked #2 Bot: black.",
        "Morning: #9 Bot did not survive the night.",
    ):
        assert line in told
    fate = page.locator("table.stats tr[data-seat='9'] td.fate").text_content()
    assert fate == "Died at night (Night 1)"
