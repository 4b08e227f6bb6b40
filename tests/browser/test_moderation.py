"""Moderator pages against the real moderation API: hidden from players; a
moderator reviews a case the server opened itself (a passed technical
defeat at a real table, or a player's report of a real game, filed on its
end screen), decides it through the form, sanctions a player, and finds
exactly those entries in the audit log."""

from __future__ import annotations

import re
from datetime import datetime, timedelta

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from .conftest import expect, sign_up

ANY_TIME = re.compile(r"\d")


def _api(page, server, path: str) -> dict:
    """GET `path` with the page's cookies, as the page itself would."""
    answer = page.request.get(f"{server.url}{path}")
    assert answer.ok, f"GET {path}: {answer.status} {answer.text()}"
    return answer.json()


def _choose_a_technical_defeat(page) -> None:
    """The table rebuilds its action bar on every event, closing the menu
    it holds: open it and pick again until the choice sticks."""
    for _ in range(20):
        if page.locator(".tech-pick").count():
            return
        try:
            page.locator("details.tech-menu:not([open]) summary").click(timeout=2000)
            page.locator("[data-tech=defeat]").click(timeout=1000)
        except PlaywrightTimeout:
            continue
    assert page.locator(".tech-pick").count(), "the technical defeat could not be chosen"


def _a_technical_defeat_passes(page, server, player: str) -> tuple[int, int, int]:
    """`player` fills a new table with bots and, on day 1, calls a technical
    defeat against a bot and votes yes: the only human's yes passes it (T2),
    which ends the game (T4) and opens a case. Returns the table, the
    player's seat and the bot's."""
    sign_up(page, server, player)
    page.click("form.create button[type=submit]")
    card = page.locator(".table-card", has_text=player)
    card.locator("button", has_text="Sit down").click()
    card.locator("button", has_text="Stand up").wait_for()
    card.locator("button", has_text="Fill with bots").click()
    page.wait_for_selector(".table-page")
    found = re.search(r"#/table/(\d+)", page.url)
    assert found, page.url
    table = int(found.group(1))
    seat = int(page.locator(".tile.me").get_attribute("data-seat"))
    page.locator("details.tech-menu").wait_for()  # the draw and night 1 are over
    _choose_a_technical_defeat(page)
    bot = page.locator(".tile.target:not(.me)").first
    target = int(bot.get_attribute("data-seat"))
    bot.click()
    page.locator(".tech button", has_text="Yes").click()
    page.wait_for_selector(".end")
    return table, seat, target


def _report_the_game(page, reason: str) -> None:
    """Open the end screen's report control and write `reason`, which the
    control says may have 1 to 500 characters."""
    control = page.locator("details.report-game")
    control.locator("summary").click()
    expect(control.locator(".hint")).to_have_text(
        "1 to 500 characters. You can report a game once."
    )
    reason_field = control.locator("textarea[name=reason]")
    expect(reason_field).to_have_attribute("maxlength", "500")
    reason_field.fill(reason)


def _queue_row(page, table: int, title: str):
    """The queue's row of a case about `table` (not table 10 for table 1)."""
    table_cell = page.locator("td", has_text=re.compile(rf"^Table {table}$"))
    return page.locator("table.queue tbody tr", has_text=title).filter(has=table_cell)


def _a_moderator(page, server, name: str):
    sign_up(page, server, name)
    server.make_moderator(name)
    page.reload()
    page.locator(".header nav a", has_text="Moderation").click()
    return page


def test_players_see_no_moderation(new_page, server):
    page = new_page()
    sign_up(page, server, "hank")
    assert page.locator(".header nav a", has_text="Moderation").count() == 0
    page.goto(f"{server.url}/#/mod")
    assert page.locator(".page").text_content() == "Only moderators can open these pages."


@pytest.mark.slow
def test_a_moderator_reviews_a_passed_technical_defeat_and_overturns_it(new_page, server):
    table, seat, bot = _a_technical_defeat_passes(new_page(), server, "lou")
    page = _a_moderator(new_page(), server, "mia")
    logged = _api(page, server, "/api/moderation/audit")["total"]

    # A practice table's vote (bots sit there) stays out of the queue ...
    expect(page.locator(".queue-list")).to_have_text("No cases to show.")
    # ... unless the moderator asks for practice tables too: then it is
    # listed as practice, open, not flagged as abuse.
    page.locator("input[name=practice]").check()
    row = _queue_row(page, table, "Technical vote: technical defeat")
    expect(row).to_contain_text("Open")
    expect(row.locator(".badge.practice")).to_have_text("Practice")
    expect(row.locator("td").nth(2)).to_have_text(f"#{bot} Bot")
    expect(row.locator("td").nth(3)).to_have_text(f"#{seat} lou")
    page.locator("input[name=flagged]").check()
    expect(page.locator(".queue-list")).to_have_text("No cases to show.")
    page.locator("input[name=flagged]").uncheck()
    row.locator("a", has_text="Review").click()
    case_id = int(re.search(r"#/mod/case/(\d+)", page.url).group(1))

    # The case shows the vote with every human ballot, lou's yes ...
    vote = page.locator(".card.vote")
    expect(vote).to_contain_text(
        f"Day 1, day speech: #{seat} lou called a technical defeat against #{bot} Bot."
    )
    expect(vote).to_contain_text("Passed: 1 of 1 voted yes.")
    expect(vote.locator("tbody tr td")).to_have_text([f"#{seat} lou", "Yes"])
    # ... and the game's events around it, replayed from the table's record.
    story = page.locator(".timeline .story")
    expect(story).to_contain_text(
        f"#{seat} lou calls a technical vote: technical defeat for #{bot} Bot."
    )
    expect(story).to_contain_text(f"#{seat} lou votes yes.")
    expect(story).to_contain_text(f"The technical defeat for #{bot} Bot passed (1 yes, 1 needed).")
    expect(story).to_contain_text("Game over:")

    # Overturned through the form, with a reason.
    form = page.locator("form.decision")
    form.locator("label", has_text="Overturn").click()
    form.locator("textarea[name=reason]").fill("a bot cannot break the rules")
    form.locator("button[type=submit]").click()
    expect(page.locator(".notice-text")).to_have_text("The decision is recorded in the audit log.")
    expect(page.locator(".card.decided")).to_contain_text("Overturned by mia")

    # The server agrees: the case is overturned by mia, with that one decision.
    detail = _api(page, server, f"/api/moderation/cases/{case_id}")
    assert detail["case"]["status"] == "overturned" and detail["case"]["decided_by"] == "mia"
    [decision] = detail["decisions"]
    assert (decision["moderator"], decision["action"], decision["reason"]) == (
        "mia",
        "overturn",
        "a bot cannot break the rules",
    )
    assert decision["details"]["voided"] is False  # a practice game has no ranked result

    # The audit log gained exactly that entry, and its page shows it first.
    audit = _api(page, server, "/api/moderation/audit")
    assert audit["total"] == logged + 1 and audit["entries"][0] == decision
    page.locator(".tabs a", has_text="Audit log").click()
    expect(page.locator("table.audit tbody tr").first.locator("td")).to_have_text(
        [ANY_TIME, "mia", "Overturned", "—", f"#{case_id}", "a bot cannot break the rules", ""]
    )

    # The queue lists the case under its new status.
    page.locator(".tabs a", has_text="Review queue").click()
    page.locator("select[name=status]").select_option("overturned")
    expect(_queue_row(page, table, "Technical vote")).to_contain_text("Overturned")


@pytest.mark.slow
def test_a_moderator_dismisses_a_report_and_suspends_the_reporter(new_page, server):
    player = new_page()
    table, _, _ = _a_technical_defeat_passes(player, server, "ned")
    [game] = _api(player, server, "/api/me/games")["games"]

    # ned reports the game through the form on the end screen.
    _report_the_game(player, "the bots cheated")
    with player.expect_response(f"{server.url}/api/reports") as filed:
        player.locator("form.report-form button[type=submit]").click()
    assert filed.value.status == 201
    case_id = filed.value.json()["report"]["case"]
    expect(player.locator(".report-game .report-answer.done")).to_have_text(
        "Your report is filed. The moderators will review this game."
    )
    # A second report of the same game: the page shows the server's refusal.
    player.reload()
    _report_the_game(player, "and again")
    player.locator("form.report-form button[type=submit]").click()
    expect(player.locator("form.report-form .report-answer.error")).to_have_text(
        f"you already reported game {game['game']}"
    )

    page = _a_moderator(new_page(), server, "olga")
    logged = _api(page, server, "/api/moderation/audit")["total"]

    # The report waits in the queue; its case shows the reason and who gave it.
    row = _queue_row(page, table, "Player report")
    expect(row.locator("td").nth(3)).to_have_text("ned")
    row.locator("a", has_text="Review").click()
    expect(page.locator(".card.report blockquote")).to_have_text("the bots cheated")
    expect(page.locator(".card.report")).to_contain_text("Reported by ned")
    expect(page.locator(".timeline")).to_contain_text("A report is about the whole game")

    # Dismissed through the form; then ned is suspended for 7 days.
    form = page.locator("form.decision")
    expect(form.locator(".segmented label")).to_have_text(["Uphold", "Dismiss"])
    form.locator("label", has_text="Dismiss").click()
    form.locator("textarea[name=reason]").fill("bots follow the rules")
    form.locator("button[type=submit]").click()
    expect(page.locator(".card.decided")).to_contain_text("Dismissed by olga")
    sanction = page.locator("form.sanction")
    sanction.locator("select[name=user]").select_option("ned")
    sanction.locator("select[name=kind]").select_option("suspension")
    sanction.locator("input[name=days]").fill("7")
    sanction.locator("textarea[name=reason]").fill("false reports")
    sanction.locator("button[type=submit]").click()
    expect(page.locator(".notice-text")).to_have_text("The sanction is recorded in the audit log.")
    expect(page.locator(".card.players tr[data-user=ned]")).to_contain_text(
        "Suspension: false reports (until"
    )

    # The server agrees: dismissed by olga, and ned suspended for exactly 7 days.
    detail = _api(page, server, f"/api/moderation/cases/{case_id}")
    assert detail["case"]["status"] == "dismissed" and detail["case"]["decided_by"] == "olga"
    [ned] = [p for p in detail["players"] if p["user"] == "ned"]
    [given] = ned["sanctions"]
    assert (given["kind"], given["reason"], given["lifted_at"]) == (
        "suspension",
        "false reports",
        None,
    )
    length = datetime.fromisoformat(given["ends_at"]) - datetime.fromisoformat(given["starts_at"])
    assert length == timedelta(days=7)

    # The audit log gained exactly those two entries, the newest first.
    audit = _api(page, server, "/api/moderation/audit")
    assert audit["total"] == logged + 2
    newest = [
        (e["moderator"], e["action"], e["user"], e["case"], e["reason"])
        for e in audit["entries"][:2]
    ]
    assert newest == [
        ("olga", "sanction", "ned", case_id, "false reports"),
        ("olga", "dismiss", None, case_id, "bots follow the rules"),
    ]
    page.locator(".tabs a", has_text="Audit log").click()
    rows = page.locator("table.audit tbody tr")
    expect(rows.nth(0).locator("td")).to_have_text(
        [
            ANY_TIME,
            "olga",
            "Sanction",
            "ned",
            f"#{case_id}",
            "false reports",
            re.compile(r"^Suspension, until \d"),
        ]
    )
    expect(rows.nth(1).locator("td")).to_have_text(
        [ANY_TIME, "olga", "Dismissed", "—", f"#{case_id}", "bots follow the rules", ""]
    )

    # The suspension is real: ned may not even open a ranked table now.
    player.goto(f"{server.url}/#/")
    player.click("form.create button[type=submit]")
    expect(player.locator(".notice.error .notice-text")).to_contain_text(
        "you are suspended from ranked tables until"
    )
    assert player.locator(".table-card", has_text="ned").count() == 0
