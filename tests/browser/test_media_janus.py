"""The web client on the Janus plane: two headless Chromium players with a
fake camera and mic at a table of bots, `omerta serve --media janus` on a
Janus started here. Each browser publishes when the server asks it to
offer, takes the subscription the server pushes when the other publishes,
and by day (G3: every living camera to everyone) shows the other's camera
playing; each tile shows whose media is up. The gate itself, phase by phase,
is held to account at the packet level on Janus in tests/media/test_gate.py."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.media.janus_server import ADMIN_KEY, API_SECRET, janus

from .conftest import VIEWPORT, Server, expect, serve, sign_up

# A browser game on Janus: CI plays it after the README's test command.
pytestmark = pytest.mark.slow

TIME_SCALE = 5  # the draw 3 s, the meeting 12 s: time for both browsers to connect
PLAYING = """(seat) => {
  const video = document.querySelector(`.tile[data-seat="${seat}"] video`);
  return !!video && video.videoWidth > 0 && video.currentTime > 0;
}"""


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with (
        janus(tmp_path_factory.mktemp("janus")) as media,
        serve(
            tmp_path_factory.mktemp("omerta"),
            "--time-scale",
            str(TIME_SCALE),
            "--media",
            "janus",
            "--janus-url",
            media.url,
            extra_env={"OMERTA_JANUS_API_SECRET": API_SECRET, "OMERTA_JANUS_ADMIN_KEY": ADMIN_KEY},
        ) as running,
    ):
        yield running


def test_two_browsers_on_janus_see_each_other_by_day_and_show_their_media_G3(browser, server):
    contexts = [browser.new_context(viewport=VIEWPORT) for _ in range(2)]
    errors: list[str] = []
    try:
        pages = [context.new_page() for context in contexts]
        for page, name in zip(pages, ("ann", "ben")):
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_default_timeout(30_000)
            sign_up(page, server, name)
        pages[0].click("form.create button[type=submit]")
        for page in pages:
            card = page.locator(".table-card", has_text="ann")
            card.locator("[data-do=sit]").click()
            card.locator("[data-do=stand]").wait_for()
        pages[0].locator(".table-card", has_text="ann").locator("[data-do=bots]").click()
        seats = []
        for page in pages:
            page.wait_for_selector(".table-page .tile.me")
            seats.append(int(page.locator(".tile.me").get_attribute("data-seat")))
        for page, other in zip(pages, reversed(seats)):
            page.wait_for_function(PLAYING, arg=other, timeout=60_000)
            expect(page.locator(f'.tile[data-seat="{other}"]')).to_have_attribute(
                "data-media", "connected"
            )
            bot = next(s for s in range(1, 11) if s not in seats)
            expect(page.locator(f'.tile[data-seat="{bot}"] .tile-media')).to_have_text(
                "No media connection"
            )
        assert pages[0].evaluate("window.location.hash").startswith("#/table/")
    finally:
        for context in contexts:
            context.close()
    assert errors == [], "script errors in the pages"
