"""Tournaments in the browser (slow: a server and two pages, about 25 s): a
director (granted by the operator) creates a tournament with the form, a
player on a phone-sized screen registers and checks in, the director
generates the schedule, and the player sees their table and seat."""

from __future__ import annotations

import pytest

from omerta.moderation.admin import grant_director
from omerta.store import Database, users
from omerta.store.db import embedded_url
from omerta.store.models import TournamentPlayer
from tests.server.conftest import in_thread

from .conftest import expect, screenshot, sign_up

pytestmark = pytest.mark.slow

PHONE = {"width": 390, "height": 844}


def _grant_director(server, username: str) -> None:
    """As the operator's `omerta admin grant-director USER` does, on the
    server's database."""

    async def grant() -> None:
        db = Database.connect(embedded_url({"OMERTA_DATA": str(server.data)}))
        try:
            await grant_director(db, username)
        finally:
            await db.close()

    in_thread(grant)


def _nine_more_players(server, tournament_id: int) -> None:
    """Nine registered players besides the one in the browser: one table's worth."""

    async def add() -> None:
        db = Database.connect(embedded_url({"OMERTA_DATA": str(server.data)}))
        try:
            async with db.begin() as s:
                for i in range(9):
                    user = await users.add_user(s, f"extra{i}", "!")
                    s.add(TournamentPlayer(tournament_id=tournament_id, user_id=user.id))
        finally:
            await db.close()

    in_thread(add)  # Playwright's own loop runs in this thread


def test_a_director_creates_a_tournament_and_a_player_on_a_phone_sees_their_seat(new_page, server):
    director = new_page()
    sign_up(director, server, "dirk")
    _grant_director(server, "dirk")
    director.goto(f"{server.url}/#/tournaments")
    director.reload()
    director.fill("form.tournament-create input[name=name]", "Browser cup")
    director.fill("form.tournament-create input[name=rounds]", "1")
    director.fill("form.tournament-create input[name=tables]", "1")
    director.click("[data-do=create-tournament]")
    expect(director.locator("h1")).to_have_text("Browser cup")
    tournament_id = int(director.url.rsplit("/", 1)[1])

    player = new_page(viewport=PHONE)
    sign_up(player, server, "pia")
    player.goto(f"{server.url}/#/tournaments")
    player.click("text=Browser cup")
    player.click("[data-do=register]")
    player.click("[data-do=checkin]")
    expect(player.locator(".actions")).to_contain_text("You are checked in.")

    _nine_more_players(server, tournament_id)
    director.reload()
    director.click("[data-do=generate]")
    expect(director.locator(".schedule .tournament-table")).to_have_count(1)

    player.reload()
    seat = player.locator(".my-seats li[data-round='1']")
    expect(seat).to_contain_text("Round 1: table 1, seat")
    expect(player.locator(".schedule li.me")).to_contain_text("pia")
    # Nothing runs off the side of a phone's screen.
    assert player.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    screenshot(player, "tournament-phone")
    screenshot(director, "tournament-director")
