"""The replay viewer in Chromium (issue 19): for every example script, the
viewer shows the same departures and the same winner as `omerta replay`
of the same record; the cursor starts empty and plays on; "as seat N saw
it" shows only that seat's knowledge; it fits a 390x844 phone. The replays
are built by the server's own code (omerta/server/replays.py) and handed
to the page in place of a stored game's."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from omerta.server.replays import frames

pytestmark = pytest.mark.slow  # Chromium and six whole games: about 20 s

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.jsonl"))
PHONE = {"width": 390, "height": 844}


def omerta_replay(path: Path) -> tuple[list[tuple[int, str]], str]:
    """(departures as (seat, cause), winner) as `omerta replay` prints them."""
    done = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "replay", str(path)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    events = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    left = [(e["seat"], e["cause"]) for e in events if e["event"] == "left"]
    [over] = [e for e in events if e["event"] == "game_over"]
    return left, over["winner"]


def body(game_id: int, record: str, seat: int | None) -> str:
    told = frames(record, seat)
    last = told["frames"][-1]["view"]
    return json.dumps(
        {
            "replay": {
                "game": game_id,
                "table": game_id,
                "ruleset": last["ruleset"],
                "winner": last["winner"],
                "reason": last["reason"],
                "seats": [
                    {"seat": row["seat"], "user": f"player{row['seat']}", "bot": False}
                    for row in last["seats"]
                ],
                **told,
            }
        }
    )


def serve_examples(page) -> None:
    def answer(route) -> None:
        found = re.search(r"/api/games/(\d+)/replay(?:\?seat=(\d+))?$", route.request.url)
        assert found, route.request.url
        game_id, seat = int(found.group(1)), found.group(2)
        record = EXAMPLES[game_id - 1].read_text()
        route.fulfill(
            status=200,
            content_type="application/json",
            body=body(game_id, record, int(seat) if seat else None),
        )

    page.route(re.compile(r".*/api/games/\d+/replay.*"), answer)


def shown(page) -> tuple[list[tuple[int, str]], str | None]:
    left = [
        (int(li.get_attribute("data-seat")), li.get_attribute("data-cause"))
        for li in page.query_selector_all("[data-departures] li")
    ]
    winner = page.query_selector("[data-winner]")
    return left, winner.get_attribute("data-winner") if winner else None


def test_the_replay_viewer_shows_what_omerta_replay_shows_for_every_example(new_page, server):
    page = new_page(viewport=PHONE)
    serve_examples(page)
    for game_id, path in enumerate(EXAMPLES, 1):
        page.goto(f"{server.url}/#/games/{game_id}/replay?at=100000")
        page.wait_for_selector(f"section.replay[data-game='{game_id}'] [data-winner]")
        assert shown(page) == omerta_replay(path), path.name
        roles = [s.get_attribute("data-role") for s in page.query_selector_all(".scene-seat")]
        assert all(roles), (path.name, roles)  # the full reveal, at the end
        assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], path.name


def test_the_replay_starts_empty_plays_on_and_shows_one_seats_view(new_page, server):
    page = new_page(viewport=PHONE)
    serve_examples(page)
    game_id = 1 + next(i for i, p in enumerate(EXAMPLES) if p.name == "classic-full-game.jsonl")
    page.goto(f"{server.url}/#/games/{game_id}/replay")
    page.wait_for_selector(".scene-seat")
    assert shown(page) == ([], None)
    page.select_option(".replay-speed", "16")
    page.click(".replay-play")
    page.wait_for_function("document.querySelector('.replay-scrub').valueAsNumber > 20")
    page.click(".replay-play")  # pause
    paused = page.eval_on_selector(".replay-scrub", "e => e.valueAsNumber")
    page.wait_for_timeout(300)
    assert page.eval_on_selector(".replay-scrub", "e => e.valueAsNumber") == paused
    page.select_option(".replay-as", "5")
    page.wait_for_function("location.hash.includes('seat=5')")
    page.wait_for_selector(".scene-seat[data-seat='5'][data-role='civilian']")
    known = [
        s.get_attribute("data-seat")
        for s in page.query_selector_all(".scene-seat")
        if s.get_attribute("data-role")
    ]
    assert known == ["5"]  # a civilian knows only their own card before the end
    first = page.query_selector(".replay-mark.left")  # the timeline marks each departure
    when = float(first.get_attribute("data-t"))
    first.click()
    page.wait_for_selector("[data-departures] li")
    assert page.eval_on_selector(".replay-scrub", "e => e.valueAsNumber") == when
