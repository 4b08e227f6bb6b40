"""Accounts and the lobby in the browser: server errors shown as the
server's sentence, a city table with every setting, sitting and standing,
the buttons each player may use, and two people at one table seeing each
other drop and return."""

from __future__ import annotations

import re
import time

import pytest

from .conftest import PASSWORD, expect, sign_up


def test_sign_up_sign_out_and_sign_in_show_the_servers_errors(new_page, server):
    page = new_page()
    sign_up(page, server, "erin")
    assert page.locator(".header .who").text_content() == "Signed in as erin"
    page.click("text=Sign out")
    page.wait_for_selector(".welcome")

    page.goto(f"{server.url}/#/signup")
    page.fill("input[name=username]", "ERIN")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.auth button[type=submit]")
    expect(page.locator(".notice.error .notice-text")).to_have_text("the username 'ERIN' is taken")

    page.goto(f"{server.url}/#/signin")
    page.fill("input[name=username]", "erin")
    page.fill("input[name=password]", "not the password")
    page.click("form.auth button[type=submit]")
    expect(page.locator(".notice.error .notice-text")).to_have_text("wrong username or password")
    page.fill("input[name=password]", PASSWORD)
    page.click("form.auth button[type=submit]")
    page.wait_for_selector("form.create")


def test_a_city_table_with_every_setting_and_sitting_down_and_standing_up(new_page, server):
    page = new_page()
    sign_up(page, server, "frank")
    form = page.locator("form.create")
    assert form.locator("fieldset.city").is_hidden()
    form.locator("label", has_text="City").click()
    form.locator("fieldset.city label", has_text="12").first.click()
    assert form.locator("input[name=mafia_count][value='3']").is_checked()  # M1 default at 12
    form.locator("label", has_text="Open").click()
    form.locator("label", has_text="Sound").click()
    form.locator("input[name=lift_at_zero]").check()
    form.locator("fieldset.city label", has_text="45 s").click()
    form.locator("input[name=per_turn]").check()
    form.locator("input[name=turn_doctor]").fill("20")
    form.locator("button[type=submit]").click()

    card = page.locator(".table-card", has_text="frank")
    card.wait_for()
    settings = card.locator(".settings").text_content()
    for phrase in (
        "Open voting",
        "Meeting with sound",
        "Lift vote on day 1",
        "12 seats",
        "3 Mafia + Don",
        "Speeches 45 s",
        "Doctor 20 s",
        "Putana 10 s",
    ):
        assert phrase in settings
    assert card.locator(".badge", has_text="Unranked").count() == 1
    card.locator("button", has_text="Sit down").click()
    card.locator("button", has_text="Stand up").wait_for()
    assert "1 of 12 seats taken" in card.text_content()

    other = new_page()
    sign_up(other, server, "gina")
    theirs = other.locator(".table-card", has_text="frank")
    theirs.locator("button", has_text="Sit down").wait_for()
    assert theirs.locator("button", has_text="Fill with bots").count() == 0  # creator only

    card.locator("button", has_text="Stand up").click()
    card.locator("button", has_text="Sit down").wait_for()
    assert "0 of 12 seats taken" in card.text_content()


def test_visitors_see_the_tables_but_cannot_create_or_sit(new_page, server):
    player = new_page()
    sign_up(player, server, "kate")
    player.click("form.create button[type=submit]")
    player.locator(".table-card", has_text="kate").wait_for()
    page = new_page()
    page.goto(server.url)
    page.locator(".table-card", has_text="kate").wait_for()
    assert page.locator(".welcome").is_visible()
    assert page.locator("form.create").count() == 0
    assert page.locator(".table-card button").count() == 0


def test_the_lobby_leads_back_to_the_game_you_are_playing(new_page, server):
    page = new_page()
    sign_up(page, server, "jules")
    page.click("form.create button[type=submit]")
    card = page.locator(".table-card", has_text="jules")
    card.locator("button", has_text="Sit down").click()
    card.locator("button", has_text="Fill with bots").click()
    page.wait_for_selector(".table-page")
    table = page.locator(".table-page").get_attribute("data-table")
    page.click(".header nav a >> text=Lobby")
    page.locator(".banner .return", has_text=f"Your game at table {table} is on.").wait_for()
    page.click("text=Return to the table")
    page.wait_for_selector(f".table-page[data-table='{table}']")


@pytest.mark.slow  # two sign-ups and three table pages: about 20 s on a loaded machine
def test_a_player_who_drops_shows_away_on_the_others_tile_within_5_s_and_back_on_return(
    new_page, server
):
    """Against the real server (tests/browser/test_table_client.py has the
    client alone; tests/runtime/test_table_survives.py a network that drops
    without a word): two people sit at one table with bots; one closes the
    page, the other sees that seat away on its tile, then back when the page
    returns."""
    ann = new_page()
    sign_up(ann, server, "ann")
    ann.click("form.create button[type=submit]")
    card = ann.locator(".table-card", has_text="ann")
    card.locator("[data-do=sit]").click()
    card.locator("[data-do=stand]").wait_for()
    bob = new_page()
    sign_up(bob, server, "bob")
    bob.locator(".table-card", has_text="ann").locator("[data-do=sit]").click()
    card.locator("[data-do=bots]").click()  # the lobby polls: wait for bob on ann's card
    ann.wait_for_selector(".table-page")
    table = ann.locator(".table-page").get_attribute("data-table")
    bob.goto(f"{server.url}/#/table/{table}")
    bob.wait_for_selector(".conn.open")
    seat = ann.locator(".tile", has_text="bob").get_attribute("data-seat")
    tile = ann.locator(f".tile[data-seat='{seat}']")
    ann.wait_for_selector(".conn.open")
    assert ann.locator(".tile.away").count() == 0  # the bots have no connection to lose

    context = bob.context
    bob.close()  # bob's page goes: its socket closes
    started = time.monotonic()
    expect(tile).to_have_class(re.compile(r"\baway\b"), timeout=10_000)
    took = time.monotonic() - started
    assert took <= 5, f"seen away after {took:.1f} s"
    expect(tile.locator(".away-badge")).to_be_visible()
    assert tile.locator(".away-badge").text_content() == "Offline"
    assert [t.get_attribute("data-seat") for t in ann.locator(".tile.away").all()] == [seat]

    context.new_page().goto(f"{server.url}/#/table/{table}")  # and comes back
    expect(tile).not_to_have_class(re.compile(r"\baway\b"), timeout=10_000)
    assert tile.locator(".away-badge").is_hidden()
