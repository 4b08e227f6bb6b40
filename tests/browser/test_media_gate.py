"""The media gate as browsers measure it: three players at one table in
headless Chromium with a fake camera and mic, seven more who signed up and
sat down but never come to the table. The browsers are the only sources, and
each browser's `getStats()` says how many bytes it received from which seat:
nothing during the draw (K3), only black to black at the meeting (N1, N2),
only the speaker during a speech (D1).

The game is made to deal the browsers two black cards and one red, and seats
1-3, so the meeting check has someone to let through and someone to keep out
and day 1 opens with their speeches: the server runs with `--seed N`, and N
is chosen here with the engine itself. Nobody picks a card, so the draw runs
out and the seed alone deals (K1)."""
from __future__ import annotations

import itertools
import random
import time
from dataclasses import dataclass, field
from typing import Iterator

import pytest

from omerta.server.lobby import seat_order, table_seed
from omerta.table import CLASSIC, Timeout, apply, new_game
from omerta.table.views import KINDS

from .conftest import PASSWORD, VIEWPORT, Server, serve, sign_up

BROWSERS = 3          # Chromium encodes a fake camera per page: three are what two cores carry
SEATS = 10
ABSENT = SEATS - BROWSERS
#: A draw of 15 s takes 6 s: time for the waiting pages to see the start
#: (they look every 2 s), for the browsers to connect their media, and to
#: measure them while the draw lasts. The 60 s meeting then takes 24 s; the
#: browsers end their own speeches early.
TIME_SCALE = 2.5
SETTINGS = {"agreement": "sound"}     # N2: black players hear each other, so audio is checked too
#: Measuring windows leave the edges of a phase out: the gate switches in the
#: same server step as the phase, but packets already on their way, and the
#: keyframe a newly opened video waits for, blur the first moments; and a
#: page busy on a loaded machine may handle the next phase's view a while
#: after the next gate's packets have started to arrive.
LEAD_MS, TAIL_MS = 700, 700
MIN_WINDOW_MS = 1000
#: Bytes in a window that count as a stream flowing (Opus alone sends some 3 kB/s).
FLOWING = 1000
#: How long a browser speaks before it ends its speech (D1 allows it).
SPEECH_MS = LEAD_MS + MIN_WINDOW_MS + TAIL_MS + 600

#: Test code run in every page before its own: it records every
#: RTCPeerConnection, the phase, speaker and roles of every view the table
#: socket delivers, the server's refusals on it, and every 200 ms the bytes
#: received per (seat, kind) -- an incoming track belongs to the seat on
#: whose tile the page shows it -- and the bytes sent per kind. Times are
#: the page's performance.now(); a sample's counts were taken between its
#: `t0` and `t1`.
PROBE = """
(() => {
  const probe = window.__gate = { pcs: [], views: [], refusals: [], samples: [] };
  const NativePeer = window.RTCPeerConnection;
  window.RTCPeerConnection = class extends NativePeer {
    constructor(...args) { super(...args); probe.pcs.push(this); }
  };
  const NativeSocket = window.WebSocket;
  window.WebSocket = class extends NativeSocket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", ({ data }) => {
        const message = JSON.parse(data);
        if (message.type === "error" || message.op === "error") probe.refusals.push(message.error);
        if (message.type !== "view") return;
        const { phase, speaker, seats } = message.view;
        const roles = Object.fromEntries(seats.filter((s) => s.role).map((s) => [s.seat, s.role]));
        const key = `${phase}/${speaker}`;
        probe.views.push({ t: performance.now(), key, phase, speaker, roles });
      });
    }
  };
  probe.age = () => {
    const views = probe.views, key = views.at(-1)?.key;
    let i = views.length - 1;
    while (i > 0 && views[i - 1].key === key) i--;
    return { key, ms: key ? performance.now() - views[i].t : 0 };
  };
  async function sample() {
    const seatOf = new Map();
    for (const tile of document.querySelectorAll(".tile[data-seat]")) {
      for (const track of tile.querySelector("video").srcObject?.getTracks() || []) {
        seatOf.set(track.id, Number(tile.dataset.seat));
      }
    }
    const t0 = performance.now(), received = {}, sent = {};
    let connected = false;
    for (const pc of probe.pcs.filter((pc) => pc.connectionState !== "closed")) {
      connected ||= pc.connectionState === "connected";
      (await pc.getStats()).forEach((s) => {
        if (s.type === "inbound-rtp" && seatOf.has(s.trackIdentifier)) {
          const key = `${seatOf.get(s.trackIdentifier)}/${s.kind}`;
          received[key] = (received[key] || 0) + s.bytesReceived;
        } else if (s.type === "outbound-rtp") {
          sent[s.kind] = (sent[s.kind] || 0) + s.bytesSent;
        }
      });
    }
    probe.samples.push({ t0, t1: performance.now(), connected, received, sent });
  }
  (async () => {
    for (;;) {
      await sample();
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
})();
"""


@dataclass(frozen=True)
class Plan:
    """The `--seed` of the server and what it makes of the game: the seat of
    each browser player (in the order they sat down) and the deal."""

    seed: int
    browser_seats: tuple[int, ...]
    roles: dict[int, str]

    @property
    def black(self) -> set[int]:
        return {seat for seat in self.browser_seats if self.roles[seat] in CLASSIC.black_roles}


def _plan_for(n: int) -> Plan:
    """What `--seed n` makes of the game. The server draws from n in the
    lobby's order: the table's seed when the table is created, the seat
    order when the tenth player sits. The browsers sit first, so they hold
    seats 1-3 until the start."""
    rng = random.Random(n)
    seed = table_seed(rng)
    order = seat_order(rng, list(range(1, SEATS + 1)))     # new seat i+1 <- old seat order[i]
    state, _ = new_game(CLASSIC, SETTINGS, seed)
    state, _ = apply(state, Timeout(), state.next_deadline)     # K1: nobody picked a card
    return Plan(n, tuple(order.index(arrival) + 1 for arrival in range(1, BROWSERS + 1)),
                {seat: state.roles[seat] for seat in state.seats})


@pytest.fixture(scope="module")
def plan() -> Plan:
    """The first seed that seats the browsers at 1-3 with two black cards among them."""
    return next(plan for plan in map(_plan_for, itertools.count())
                if sorted(plan.browser_seats) == list(range(1, BROWSERS + 1))
                and len(plan.black) == 2)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, plan: Plan) -> Iterator[Server]:
    """Here in place of conftest's server: the plan's seed and a slower clock."""
    with serve(tmp_path_factory.mktemp("omerta"), "--time-scale", str(TIME_SCALE),
               "--seed", str(plan.seed)) as running:
        yield running


@dataclass
class Window:
    """What one browser measured between two of its samples."""

    received: dict[tuple[int, str], int]
    sent: dict[str, int]

    def flows(self) -> dict[tuple[int, str], str]:
        """Each (seat, kind) the browser could receive: flowing, silent or a trickle."""
        return {key: "flowing" if n >= FLOWING else "silent" if n == 0 else f"trickle of {n} B"
                for key, n in self.received.items()}


@dataclass
class Recording:
    """One browser's probe, read after the game moved on."""

    seat: int
    views: list[dict]
    samples: list[dict]
    phases: list[tuple[str, int | None, float, float]] = field(init=False)

    def __post_init__(self) -> None:
        """(phase, speaker, start, end) of each phase that has ended, by the page's clock."""
        starts = [v for i, v in enumerate(self.views)
                  if i == 0 or v["key"] != self.views[i - 1]["key"]]
        self.phases = [(a["phase"], a["speaker"], a["t"], b["t"])
                       for a, b in zip(starts, starts[1:])]

    def window(self, phase: str, speaker: int | None = None, after: float = 0.0) -> Window:
        """The bytes counted inside `phase` (of `speaker`), its edges left out."""
        found = [(start, end) for p, who, start, end in self.phases
                 if (p, who) == (phase, speaker)]
        assert len(found) == 1, f"seat {self.seat} saw {phase} of {speaker} {len(found)} times"
        (start, end), = found
        inside = [s for s in self.samples
                  if s["t0"] >= max(start + LEAD_MS, after) and s["t1"] <= end - TAIL_MS]
        assert len(inside) >= 2 and inside[-1]["t0"] - inside[0]["t1"] >= MIN_WINDOW_MS, \
            f"seat {self.seat}: {phase} of {speaker} left no {MIN_WINDOW_MS} ms to measure in"
        first, last = inside[0], inside[-1]
        received = {(seat, kind): last["received"].get(f"{seat}/{kind}", 0)
                    - first["received"].get(f"{seat}/{kind}", 0)
                    for seat in range(1, SEATS + 1) if seat != self.seat for kind in KINDS}
        sent = {kind: last["sent"].get(kind, 0) - first["sent"].get(kind, 0) for kind in KINDS}
        return Window(received, sent)

    def connected_at(self) -> float | None:
        """When this page's media was first connected and sending both kinds."""
        return next((s["t1"] for s in self.samples
                     if s["connected"] and all(s["sent"].get(kind) for kind in KINDS)), None)


def expected(receiver: int, sources: set[int]) -> dict[tuple[int, str], str]:
    """`Window.flows` when `receiver` gets both kinds from `sources` and nothing else."""
    return {(seat, kind): "flowing" if seat in sources else "silent"
            for seat in range(1, SEATS + 1) if seat != receiver for kind in KINDS}


def _absent_players(browser, server: Server, table_id: int) -> None:
    """Seven players sign up and sit down through the API, and never open
    the table: they send no media and pick no card. The last one starts it."""
    for i in range(ABSENT):
        context = browser.new_context()
        try:
            api = context.request
            headers = {"X-CSRF-Token": api.get(f"{server.url}/api/csrf").json()["csrf"]}
            for path, body in (("/api/register", {"username": f"absent{i}", "password": PASSWORD}),
                               (f"/api/tables/{table_id}/sit", None)):
                reply = api.post(f"{server.url}{path}", data=body, headers=headers)
                assert reply.ok, reply.text()
        finally:
            context.close()


def _seat_browsers(make_page, browser, server: Server) -> dict[int, object]:
    """The browser players sign up, the first creates a table with sound at
    the meeting, and each sits down and waits on the table's page; the
    absent players fill the table, and the waiting pages turn into the
    table. Returns each page by the seat it got."""
    pages = []
    for i in range(BROWSERS):
        page = make_page()
        sign_up(page, server, f"player{i}")
        if i == 0:
            form = page.locator("form.create")
            form.locator("label", has_text="Sound").click()
            form.locator("button[type=submit]").click()
        card = page.locator(".table-card", has_text="player0")
        card.locator("button", has_text="Sit down").click()
        card.locator("button", has_text="Stand up").wait_for()
        assert "Meeting with sound" in card.text_content()
        table_id = int(card.get_attribute("data-table"))
        # Off the lobby before the start: a lobby that sees its table start
        # opens the table itself, and its navigation racing ours would open
        # the table page twice (two sockets, and a media reconnect).
        page.goto(f"{server.url}/#/table/{table_id}")
        page.wait_for_selector(".waiting")
        pages.append(page)
    _absent_players(browser, server, table_id)
    for page in pages:
        page.wait_for_selector(".table-page .tile.me")
    return {int(page.locator(".tile.me").get_attribute("data-seat")): page for page in pages}


def _play_until_the_browsers_have_spoken(pages: dict[int, object]) -> None:
    """Let the draw run out and the meeting pass; each browser speaks for
    SPEECH_MS and ends its speech, until the first absent player speaks."""
    deadline = time.monotonic() + (15 + 60) / TIME_SCALE + BROWSERS * SPEECH_MS / 1000 + 30
    watcher = next(iter(pages.values()))
    while True:
        assert time.monotonic() < deadline, "day 1 did not reach the absent players in time"
        view = watcher.evaluate("window.__gate.views.at(-1)")
        if view and view["phase"] == "day_speech" and view["speaker"] not in pages:
            return
        if view and view["phase"] == "day_speech":
            page = pages[view["speaker"]]
            age = page.evaluate("window.__gate.age()")
            if age["key"] == view["key"] and age["ms"] >= SPEECH_MS:
                page.locator("[data-action=end_speech]").click()
                page.wait_for_function(f"window.__gate.age().key !== {age['key']!r}")
        watcher.wait_for_timeout(100)


@pytest.fixture(scope="module")
def recordings(browser, server: Server, plan: Plan) -> dict[int, Recording]:
    """The game, played once for the tests below: what each browser seat
    recorded from the draw to the end of the browsers' speeches."""
    contexts, errors = [], []

    def make_page():
        context = browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(15_000)
        page.add_init_script(PROBE)
        return page

    try:
        pages = _seat_browsers(make_page, browser, server)
        assert sorted(pages) == sorted(plan.browser_seats)
        _play_until_the_browsers_have_spoken(pages)
        found = {}
        for seat, page in pages.items():
            views, samples = page.evaluate("[window.__gate.views, window.__gate.samples]")
            found[seat] = Recording(seat, views, samples)
            assert found[seat].connected_at() is not None, \
                f"seat {seat}: the media never connected; the server said" \
                f" {page.evaluate('window.__gate.refusals')}"
            assert page.evaluate("window.__gate.pcs.length") == 1, \
                f"seat {seat}: its media reconnected, so its byte counts restarted"
    finally:
        for context in contexts:
            context.close()
    assert errors == [], "script errors in the pages"
    for seat, recording in found.items():     # the tests below rely on the planned deal
        meeting = next(v for v in recording.views if v["phase"] == "meeting")
        assert meeting["roles"][str(seat)] == plan.roles[seat], f"seat {seat} got another card"
    return found


def test_nobody_receives_anything_during_the_draw_K3(recordings):
    for seat, recording in recordings.items():
        draw = recording.window("draw", after=recording.connected_at())
        assert all(n >= FLOWING for n in draw.sent.values()), \
            f"seat {seat} sent no media to the server during the draw: {draw.sent}"
        assert draw.flows() == expected(seat, set()), f"seat {seat} received media in the draw"


def test_at_the_meeting_black_players_see_and_hear_only_each_other_and_red_ones_nobody_N2(
        recordings, plan):
    for seat, recording in recordings.items():
        black = plan.black if seat in plan.black else set()
        assert recording.window("meeting").flows() == expected(seat, black - {seat}), \
            f"seat {seat} ({plan.roles[seat]}) at the meeting of {sorted(plan.black)}"


def test_during_a_day_speech_everyone_receives_the_speaker_and_nobody_else_D1(recordings, plan):
    for speaker in plan.browser_seats:
        for seat, recording in recordings.items():
            assert recording.window("day_speech", speaker).flows() == \
                expected(seat, {speaker} - {seat}), \
                f"seat {seat} during the speech of seat {speaker}"
