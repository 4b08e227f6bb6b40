"""The moderators' ratings page (issue 20): on a phone, a moderator opens
Moderation, then Ratings, and reads how well the ratings predicted the
server's ranked games: the calibration bins, the log-loss over time, the
fits. The games are written to the server's own database the way a
finished ranked game is (record_game, then the league's rating)."""

from __future__ import annotations

import asyncio
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from omerta import league
from omerta.ratings.fit import Fit, fit
from omerta.store import Database, rating_params
from omerta.store.games import PlayerResult, record_game
from omerta.store.models import User
from omerta.store.tables import create_table

from .conftest import Server, expect, screenshot, sign_up

PHONE = {"width": 390, "height": 844}
ROLES = ["don", "mafia", "mafia", "sheriff"] + ["civilian"] * 6


async def _ranked_season(server: Server, games: int = 120, seed: int = 3) -> None:
    """``games`` ranked games among 20 players, the stronger half winning more
    often, rated as they end; then one fit stored, as `omerta ratings fit` does."""
    rng = random.Random(seed)
    db = Database.connect(f"sqlite+aiosqlite:///{server.data / 'omerta.db'}")
    try:
        async with db.begin() as s:
            users = [User(username=f"rated{i}", password_hash="-") for i in range(20)]
            s.add_all(users)
            await s.flush()
            ids = [u.id for u in users]
        for _ in range(games):
            ten = rng.sample(ids, 10)
            red_edge = (
                sum(i in ids[:10] for i in ten[3:]) / 7 - sum(i in ids[:10] for i in ten[:3]) / 3
            )
            winner = "red" if rng.random() < 0.45 + 0.4 * red_edge else "black"
            async with db.begin() as s:
                table = await create_table(s, ten[0], "classic", {}, 1)
                players = []
                for seat, (uid, role) in enumerate(zip(ten, ROLES), 1):
                    team = "black" if role in ("don", "mafia") else "red"
                    players.append(
                        PlayerResult(seat, uid, role, "win" if team == winner else "loss", team)
                    )
                await league.apply_game(
                    s, await record_game(s, table, winner, "test", True, players)
                )
        async with db.begin() as s:
            games_so_far = await rating_params.ranked_games(s)
            result: Fit = fit(games_so_far, names=("sigma0",), step=2.0, min_step=1.5)
            await rating_params.store(s, result, "database")
    finally:
        await db.close()


# A server, 120 ranked games written and rated, a browser: over the default
# suite's budget on the shared 2-core machine.
@pytest.mark.slow
def test_a_moderator_on_a_phone_sees_the_calibration_bins_and_the_loss_over_time(new_page, server):
    # Playwright's event loop runs in this thread: the store gets its own.
    with ThreadPoolExecutor(1) as own:
        own.submit(asyncio.run, _ranked_season(server)).result()
    page = new_page(viewport=PHONE)
    sign_up(page, server, "rita")
    server.make_moderator("rita")
    page.reload()
    page.locator(".header nav a", has_text="Moderation").click()
    page.locator(".moderation .tabs a", has_text="Ratings").click()
    expect(page.locator(".ratings-summary")).to_contain_text("fitted parameters, version 1")
    expect(page.locator(".mod-content")).to_contain_text("120 games: log-loss")
    bins = page.locator("table.calibration tbody tr.calibration-bin")
    expect(bins.first).to_be_visible()
    shown = sum(int(bins.nth(i).locator("td").nth(1).text_content()) for i in range(bins.count()))
    assert shown == 120, "every game falls in one bin"
    assert page.locator(".rating-bar.observed").count() == bins.count()
    # One point per 100 games: 100 and 120.
    assert page.locator("svg.loss-over-time circle").count() == 2
    expect(page.locator("table.fits tbody tr")).to_have_count(1)
    wider = page.evaluate(
        """(width) => [...document.querySelectorAll("body *")]
            .filter((e) => e.getBoundingClientRect().right > width && !e.closest(".table-scroll"))
            .map((e) => `${e.tagName}.${e.getAttribute("class")}`)""",
        PHONE["width"],
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"], wider
    screenshot(page, "moderation-ratings-phone")
