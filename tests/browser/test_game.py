"""A player signs up, creates a table, fills it with bots and plays a whole
game through the browser, to the end screen. On the way: a refresh that
restores the table, a private note that survives it, the hidden card and the
keyboard, and the screenshots of docs/screenshots/."""
from __future__ import annotations

import time

from .conftest import TIME_SCALE, screenshot, sign_up

#: A game lasts about 40 game minutes at most with bots; at TIME_SCALE that
#: is two minutes of wall time. Allow twice that.
GAME_SECONDS = 2 * 40 * 60 / TIME_SCALE


def _click(locator) -> bool:
    """Click if it is there now; the table re-renders as the game moves, so
    a button may go away between finding and clicking it."""
    try:
        if locator.count() and locator.first.is_visible():
            locator.first.click(timeout=1000)
            return True
    except Exception:   # detached or covered mid-click: the next round retries
        pass
    return False


def _phase(page) -> str:
    return page.evaluate("document.querySelector('.phase')?.textContent || ''")


def test_a_player_plays_a_whole_game_against_bots(new_page, server):
    page = new_page()
    sign_up(page, server, "dana")
    page.click("form.create button[type=submit]")
    card = page.locator(".table-card", has_text="dana")
    card.locator("button", has_text="Sit down").click()
    card.locator("button", has_text="Stand up").wait_for()
    _another_table(new_page(), server)
    page.locator(".table-card", has_text="eve").wait_for()         # the lobby polls
    _click(page.locator(".notice-close"))                          # unless it went by itself
    screenshot(page, "lobby")
    card.locator("button", has_text="Fill with bots").click()
    page.wait_for_selector(".table-page")
    page.wait_for_function("document.querySelectorAll('.tile').length === 10")
    mine = int(page.locator(".tile.me").get_attribute("data-seat"))

    shots, refreshed, note_seat = set(), False, None
    deadline = time.monotonic() + GAME_SECONDS
    while not page.locator(".end").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        night = page.evaluate("document.body.classList.contains('night')")
        _click(page.locator(".draw-card:not([disabled])"))
        if page.locator("[data-action=end_speech]").count():
            _click(page.locator(".tile.target"))               # nominate, once per speech
            _click(page.locator("[data-action=end_speech]"))
        _click(page.locator("[data-vote]"))
        _click(page.locator("[data-action=lift-no]"))
        phase = _phase(page)
        if night:
            _click(page.locator(".tile.target"))               # shoot or check
            if "night" not in shots and phase.startswith("Night") and not phase.startswith("Night 1 "):
                shots.add("night")
                screenshot(page, "table-night")
        if "day" not in shots and "Speeches" in phase and page.locator(".tile.nominee").count() >= 2:
            shots.add("day")
            screenshot(page, "table-day")
        if not refreshed and phase.startswith("Day 2"):
            refreshed = True
            note_seat = _refresh_keeps_the_table(page)
        page.wait_for_timeout(100)

    end = page.locator(".end")
    assert end.locator(".end-role").count() == 10
    assert end.locator("table.stats tbody tr").count() == 10
    assert end.locator(".end-head h1").text_content() in (
        "The Red team wins", "The Mafia wins", "A draw")
    story = end.locator(".story").text_content()
    assert "Game over" in story
    assert f"#{mine} dana ended the speech early" in story      # the End speech button works
    assert shots == {"day", "night"} and refreshed and note_seat is not None
    page.wait_for_timeout(300)
    screenshot(page, "end")


def _another_table(page, server) -> None:
    """Someone else opens a city table, for a lobby with some life in it."""
    sign_up(page, server, "eve")
    form = page.locator("form.create")
    form.locator("label", has_text="City").click()
    form.locator("label", has_text="Open").click()
    form.locator("button[type=submit]").click()
    page.locator(".table-card", has_text="eve").locator("button", has_text="Sit down").click()
    page.locator(".table-card", has_text="eve").locator("button", has_text="Stand up").wait_for()


def _refresh_keeps_the_table(page) -> int:
    """A private note on another seat, a look at the hidden card, then a
    refresh: the log, the table and the note are all back."""
    tile = page.locator(".tile:not(.me)").first
    seat = int(tile.get_attribute("data-seat"))
    tile.hover()
    tile.locator(".note-btn").click()
    tile.locator("textarea.note").fill("talks too much about the sheriff")
    page.keyboard.press("Escape")
    page.locator(".log").click()
    page.keyboard.down("c")
    assert page.evaluate("document.body.classList.contains('peek')")
    assert page.locator(".card-face").is_visible()
    page.keyboard.up("c")
    assert not page.locator(".card-face").is_visible()
    before = page.locator(".log li").count()
    page.reload()
    page.wait_for_selector(".table-page")
    page.wait_for_function(f"document.querySelectorAll('.log li').length >= {before}")
    page.wait_for_selector(".conn.open")
    tile = page.locator(f".tile[data-seat='{seat}']")
    assert tile.locator(".note-mark").is_visible()
    assert tile.locator("textarea.note").input_value() == "talks too much about the sheriff"
    return seat
