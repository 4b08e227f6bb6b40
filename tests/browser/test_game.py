"""A newcomer on a phone (390×844) switches the site to Ukrainian, signs
up, creates a table, fills it with bots and plays a whole game to the end
screen; everything the game needs is inside the screen, and every text the
test reads is the Ukrainian one of omerta/web/i18n/uk.json. On the way: a
number key waits for Enter or Escape, the technical vote menu stays open
while the table moves, a foul shows on the tile, the stage tells the
day's news, a tablet-sized look, a refresh that restores the table, and the
end screen reveals every night. Afterwards the game's page, the profile and
the leaderboard, reached from the header. The screenshots of README.md on
the way (conftest.py says where they go)."""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest

from .conftest import TIME_SCALE, screenshot, sign_up

#: A game lasts about 40 game minutes at most with bots; at TIME_SCALE that
#: is two minutes of wall time. Allow twice that.
GAME_SECONDS = 2 * 40 * 60 / TIME_SCALE
PHONE = {"width": 390, "height": 844}
TABLET = {"width": 768, "height": 1024}
DESKTOP = {"width": 1366, "height": 768}
UK = json.loads(
    (Path(__file__).parents[2] / "omerta" / "web" / "i18n" / "uk.json").read_text("utf-8")
)
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def _uk(key: str, **params: object) -> str:
    """The Ukrainian text of `key` as the client fills it in (t() of
    omerta/web/js/i18n.js); placeholders not given stay as they are."""
    node: object = UK
    for part in key.split("."):
        assert isinstance(node, dict) and part in node, f"uk.json has no {key}"
        node = node[part]
    assert isinstance(node, str), f"uk.json {key} is not a text"
    return PLACEHOLDER.sub(lambda m: str(params.get(m.group(1), m.group(0))), node)


def _fixed(key: str) -> str:
    """The longest part of `key`'s text that no placeholder changes."""
    return max((part.strip() for part in PLACEHOLDER.split(_uk(key))[::2]), key=len)


def _when(key: str, n: int) -> str:
    """The start of the phase titles of that day or night: "День 2 "."""
    return _uk(key, n=n) + " "


DAY, NIGHT = _fixed("common.day"), _fixed("common.night")  # "День", "Ніч"
#: "Ранок:", how the morning after a night begins, whoever died in it
MORNING = _uk("story.morning").split()[0]


def _inside(page, locator, what: str) -> None:
    """`locator` is wholly inside the viewport's width (scrolled into view,
    also inside its height). The table redraws its stage as events come,
    so an element may be replaced while it is measured: measure again."""
    box = None
    for _ in range(10):
        box = locator.bounding_box()
        if box is not None:
            break
        page.wait_for_timeout(50)
    assert box is not None, f"{what} is not shown"
    width = page.viewport_size["width"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= width + 0.5, f"{what} sticks out: {box}"


def _click(page, locator, used: set[str], name: str) -> bool:
    """Click if it is there now (the table re-renders as the game moves, so
    a button may go away between finding and clicking it); the first time a
    kind of control is used, check it lies inside the phone's screen."""
    try:
        if locator.count() and locator.first.is_visible():
            if name not in used:
                locator.first.scroll_into_view_if_needed(timeout=1000)
                _inside(page, locator.first, name)
                used.add(name)
            locator.first.click(timeout=1000)
            return True
    except AssertionError:
        raise
    except Exception:  # detached or covered mid-click: the next round retries
        pass
    return False


def _phase(page) -> str:
    return page.evaluate("document.querySelector('.phase')?.textContent || ''")


def _day_of(phase: str) -> str:
    """A phase title's first two words ("День 3"), or "" at night."""
    words = phase.split()
    return " ".join(words[:2]) if words and words[0] == DAY else ""


def _day(page) -> str:
    return _day_of(_phase(page))


def _log_size(page) -> int:
    return page.locator(".log li").count()


# Two to three minutes of a 2-core machine: run by .ci/run after the
# README's test command (`pytest -m slow`), which stays under 8 minutes.
@pytest.mark.slow
def test_a_newcomer_plays_a_whole_game_in_ukrainian_on_a_phone(new_page, server):
    page = new_page(viewport=PHONE)
    page.goto(server.url)
    page.select_option("select.language", "uk")  # as a newcomer does, in the header
    page.wait_for_function("document.documentElement.lang === 'uk'")
    sign_up(page, server, "dana")
    assert page.locator(".header").get_by_text(_uk("header.profile")).count()
    me = _uk("seat.label", n="{n}", name="dana")
    page.click("form.create button[type=submit]")
    card = page.locator(".table-card", has_text="dana")
    card.locator("[data-do=sit]").click()
    card.locator("[data-do=stand]").wait_for()
    _another_table(new_page(), server)
    eve = page.locator(".table-card", has_text="eve")
    eve.wait_for()  # the lobby polls
    # dana sits at her own table: no button offers a seat the server refuses.
    assert eve.locator("button", has_text=_uk("lobby.sit")).count() == 0
    if page.locator(".notice-close").is_visible():
        page.locator(".notice-close").click()
    _desktop_screenshot(page, "lobby")
    card.locator("[data-do=bots]").click()
    page.wait_for_selector(".table-page")
    page.wait_for_function("document.querySelectorAll('.tile').length === 10")
    mine = int(page.locator(".tile.me").get_attribute("data-seat"))
    me = me.replace("{n}", str(mine))  # "№3 dana"
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _inside(page, page.locator(".clock"), "the clock")
    _inside(page, page.locator(".stage"), "the stage")
    assert page.locator(".clock").bounding_box()["y"] < PHONE["height"]

    used: set[str] = set()
    seen = {"menu": False, "undo": False, "day_one": False, "tablet": False}
    refreshed, note_seat, shots = False, None, set()
    deadline = time.monotonic() + GAME_SECONDS
    while not page.locator(".end").count():
        assert time.monotonic() < deadline, "the game did not end in time"
        night = page.evaluate("document.body.classList.contains('night')")
        _click(page, page.locator(".draw-card:not([disabled])"), used, "a card")
        if page.locator("[data-action=end_speech]").count():
            if not seen["undo"] and page.locator(".tile.target").count():
                _number_key_waits_for_enter_or_escape(page, me)
                seen["undo"] = True
            _click(page, page.locator(".tile.target"), used, "a tile to nominate")
            _click(page, page.locator("[data-action=end_speech]"), used, "End speech")
        _click(page, page.locator("[data-vote]"), used, "a vote button")
        _click(page, page.locator("[data-action=lift-no]"), used, "No, keep them")
        _click(page, page.locator(".tech button", has_text=_uk("common.yes")), used, "Yes")
        phase = _phase(page)
        if night:
            _click(page, page.locator(".tile.target"), used, "a tile at night")
            if (
                "night" not in shots
                and phase.startswith(NIGHT)
                and not phase.startswith(_when("common.night", 1))
            ):
                shots.add("night")
                _desktop_screenshot(page, "table-night")
        if not seen["day_one"] and phase.startswith(_when("common.day", 1)):
            news = page.locator(".stage .news")
            news.wait_for(timeout=3000)
            assert _uk("stage.day_one") in news.text_content()
            seen["day_one"] = True
        if not seen["menu"] and page.locator("details.tech-menu").count():
            seen["menu"] = _tech_menu_stays_open_and_calls_a_foul(page)
        if (
            "day" not in shots
            and _uk("phase.day_speech") in phase
            and page.locator(".tile.nominee").count() >= 2
        ):
            shots.add("day")
            _desktop_screenshot(page, "table-day")
            screenshot(page, "phone-day")
        if not seen["tablet"] and phase.startswith(_when("common.day", 2)):
            seen["tablet"] = _tablet_fits(page)
            morning = page.locator(".stage .news")
            assert MORNING in morning.text_content()  # the night's result, on the stage
        if not refreshed and phase.startswith(_when("common.day", 2)):
            refreshed = True
            note_seat = _refresh_keeps_the_table(page)
        page.wait_for_timeout(100)

    assert all(seen.values()), seen
    end = page.locator(".end")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    _inside(page, end.locator(".end-head"), "the end screen's head")
    assert end.locator(".end-role").count() == 10
    assert end.locator("table.stats tbody tr").count() == 10
    assert end.locator(".end-head h1").text_content() in UK["end"]["winner"].values()
    # The night revealed: every night's shots and checks with their results.
    nights = end.locator(".reveal-nights .reveal-period")
    assert nights.count() >= 1
    told = end.locator(".reveal-nights").text_content()
    assert _fixed("story.night_action.shoot") in told  # "цілиться в"
    assert _fixed("story.check") in told and MORNING in told
    assert end.locator(".reveal-days table.vote-table").count() >= 1
    tech = end.locator(".reveal-tech").text_content()
    assert _uk("story.tech_call", by=me, kind=_uk("tech.foul")).split("{target}")[0] in tech
    # Bots never call technical votes: the only one is dana's.
    assert tech.count(_fixed("story.tech_call")) == 1
    # The numbers of the game say on which day each thing happened.
    assert re.search(rf"\({DAY} \d+\)", end.locator("table.stats").text_content())
    story = end.locator(".story").text_content()
    assert _uk("story.game_over").split("{winner}")[0] in story
    assert _uk("story.speech_end_early", seat=me) in story  # the End speech button works
    # The night's screenshot is taken if a loaded machine's loop meets a
    # 0.35 s night window; the day's always is.
    assert "day" in shots and refreshed and note_seat is not None
    page.wait_for_timeout(300)
    screenshot(page, "phone-end")
    _desktop_screenshot(page, "end")

    # The game's own page keeps the reveal, each player's name leads to their
    # page; the profile and the leaderboard are in the header.
    end.locator("a", has_text=_uk("end.game_page")).click()
    page.wait_for_url(re.compile(r"#/games/\d+$"))
    page.locator(".reveal-nights .reveal-period").first.wait_for()
    page.locator("a.name", has_text="dana").first.click()
    page.wait_for_url(re.compile(r"#/players/dana$"))
    page.locator(".player-page .figures").wait_for()
    page.locator(".header a", has_text=_uk("header.leaderboard")).click()
    page.wait_for_url(re.compile(r"#/leaderboard$"))
    assert page.locator(".leaderboard h1").text_content() == _uk("header.leaderboard")
    page.locator(".header a", has_text=_uk("header.profile")).click()
    page.wait_for_url(re.compile(r"#/players/dana$"))
    row = page.locator(".games-table tbody tr").first
    row.wait_for()
    assert page.locator(".player-page .badge.provisional").is_visible()
    figures = page.locator(".figures").text_content()
    assert figures.count("±") == 1
    assert _uk("players.coins") in figures and _uk("players.experience") in figures
    assert any(result in row.text_content() for result in UK["players"]["results"].values())
    assert any(role in row.text_content() for role in UK["role"].values())


def _desktop_screenshot(page, name: str) -> None:
    page.set_viewport_size(DESKTOP)
    page.wait_for_timeout(150)
    screenshot(page, name)
    page.set_viewport_size(PHONE)


def _tablet_fits(page) -> bool:
    """At 768×1024 the table fits its width: the clock and stage inside."""
    page.set_viewport_size(TABLET)
    page.wait_for_timeout(150)
    page.evaluate("window.scrollTo(0, 0)")
    assert page.evaluate("document.documentElement.scrollWidth") <= TABLET["width"]
    _inside(page, page.locator(".clock"), "the clock on a tablet")
    _inside(page, page.locator(".stage"), "the stage on a tablet")
    assert page.locator(".stage").bounding_box()["y"] < TABLET["height"]
    page.set_viewport_size(PHONE)
    return True


def _number_key_waits_for_enter_or_escape(page, me: str) -> None:
    """During dana's speech a number key names a seat; Escape takes it back
    (nothing is sent); the nomination is made by clicking later."""
    target = int(page.locator(".tile.target").first.get_attribute("data-seat"))
    key = "0" if target == 10 else str(target)
    page.locator(".log").click()
    page.keyboard.press(key)
    page.locator(".stage .pending").wait_for(timeout=2000)
    page.keyboard.press("Escape")
    assert page.locator(".stage .pending").count() == 0
    page.wait_for_timeout(3000)  # past the undo window
    assert (
        _uk("story.nominated", by=me).split("{target}")[0]
        not in page.locator(".log").text_content()
    )


def _tech_menu_stays_open_and_calls_a_foul(page) -> bool:
    """The menu stays open while the table moves on; a foul is called on a
    bot through it, and the foul shows on its tile as a label. False when
    the day ended before all that was seen: the next day tries again."""
    day = _day(page)
    if not day:
        return False
    try:
        page.locator("details.tech-menu summary").click(timeout=1000)
        page.locator("details.tech-menu[open]").wait_for(timeout=1000)
    except Exception:
        return False
    before = _log_size(page)
    try:
        page.wait_for_function(
            f"document.querySelectorAll('.log li').length >= {before + 2}", timeout=5000
        )
    except Exception:
        return False
    # The menu and the phase title read at one moment: a new day's menu starts closed.
    now = page.evaluate(
        """() => ({
          menu: document.querySelector('details.tech-menu')?.open ?? null,
          phase: document.querySelector('.phase')?.textContent || '',
        })"""
    )
    if now["menu"] is None or _day_of(now["phase"]) != day:
        return False
    assert now["menu"], "the menu closed by itself"
    try:
        _call_a_foul_on_a_bot(page)
    except AssertionError:
        raise
    except Exception:  # the table moved on to the night meanwhile
        if _day(page) == day:
            raise
        return False
    return True


def _call_a_foul_on_a_bot(page) -> None:
    foul = page.locator("details.tech-menu [data-tech=foul]")
    foul.wait_for(state="visible", timeout=2000)
    _inside(page, foul, "the foul button")
    foul.click(timeout=2000)
    bot = page.locator(".tile.target.bot").first
    seat = int(bot.get_attribute("data-seat", timeout=2000))
    bot.click(timeout=2000)
    page.locator(".tech button", has_text=_uk("common.yes")).click(timeout=2000)
    fouls = page.locator(f".tile[data-seat='{seat}'] .fouls")
    fouls.wait_for(timeout=10_000)
    assert fouls.text_content() == _uk("table.fouls_badge.one", count=1)
    assert fouls.bounding_box()["height"] >= 14  # a label, not a 7-pixel dot


def _another_table(page, server) -> None:
    """Someone else opens a city table, for a lobby with some life in it."""
    sign_up(page, server, "eve")
    form = page.locator("form.create")
    form.locator("label", has_text="City").click()
    form.locator("label", has_text="Open").click()
    form.locator("button[type=submit]").click()
    page.locator(".table-card", has_text="eve").locator("[data-do=sit]").click()
    page.locator(".table-card", has_text="eve").locator("[data-do=stand]").wait_for()


def _refresh_keeps_the_table(page) -> int:
    """A private note on another seat (on a bigger screen, where the tile's
    tools are), a look at the hidden card, then a refresh: the log, the
    table and the note are all back."""
    page.set_viewport_size(DESKTOP)
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
    page.set_viewport_size(PHONE)
    return seat
