"""Moderator pages: hidden from players. The moderation API is pending
(issue 6): a moderator sees the pages say so instead of an error."""
from __future__ import annotations

from .conftest import expect, sign_up


def test_players_see_no_moderation(new_page, server):
    page = new_page()
    sign_up(page, server, "hank")
    assert page.locator(".header nav a", has_text="Moderation").count() == 0
    page.goto(f"{server.url}/#/mod")
    assert page.locator(".page").text_content() == "Only moderators can open these pages."


def test_a_moderator_sees_the_queue_and_the_audit_log_marked_pending(new_page, server):
    page = new_page()
    sign_up(page, server, "iris")
    server.make_moderator("iris")
    page.reload()
    page.locator(".header nav a", has_text="Moderation").click()
    page.wait_for_selector(".moderation .pending")
    assert "Pending" in page.locator(".pending .badge").text_content()
    page.locator(".tabs a", has_text="Audit log").click()
    page.wait_for_selector(".moderation .pending")


CASE = {"id": 4, "kind": "tech_vote", "status": "open", "table": 12, "game": 3,
        "created_at": "2026-11-30T01:28:21+00:00", "tech_kind": "removal",
        "by": {"seat": 5, "user": "kim"}, "target": {"seat": 3, "user": "lou"},
        "passed": True, "day": 2, "phase": "day_speech", "flagged": True}
DETAIL = {**CASE, "ballots": {"1": True, "3": False, "5": True},
          "players": [{"seat": 1, "user": "mo", "role": "civilian", "past_fouls": 0},
                      {"seat": 3, "user": "lou", "role": "sheriff", "past_fouls": 2},
                      {"seat": 5, "user": "kim", "role": "don", "past_fouls": 1}],
          "events": [{"event": "speech", "t": 61, "seat": 3, "seconds": 60, "kind": "day"},
                     {"event": "tech_call", "t": 70, "kind": "removal", "by": 5, "target": 3,
                      "seconds": 30}]}


def test_a_moderator_decides_a_case_against_the_expected_api(new_page, server):
    """PENDING (issue 6): the moderation API is stubbed here with the shape
    web/js/pages/moderation.js documents; the pages do the rest."""
    page = new_page()
    sign_up(page, server, "judy")
    server.make_moderator("judy")
    decisions = []

    def api(route):
        request = route.request
        if request.url.endswith("/api/mod/queue"):
            return route.fulfill(json={"cases": [CASE]})
        if request.url.endswith("/api/mod/cases/4") and request.method == "GET":
            return route.fulfill(json={"case": DETAIL})
        if request.url.endswith("/api/mod/cases/4/decision"):
            decisions.append((request.headers.get("x-csrf-token"), request.post_data_json))
            return route.fulfill(json={"case": {**CASE, "status": "decided"}})
        if request.url.endswith("/api/mod/audit"):
            return route.fulfill(json={"entries": [
                {"id": 1, "at": "2026-11-30T02:00:00+00:00", "moderator": "judy",
                 "action": "sanction", "target": "kim", "case": 4, "reason": "a group abuses removals"}]})
        return route.continue_()

    page.route("**/api/mod/**", api)
    page.reload()
    page.locator(".header nav a", has_text="Moderation").click()
    row = page.locator("table.queue tbody tr")
    row.first.wait_for()
    assert row.count() == 1 and "Repeated by the same group" in row.text_content()
    row.locator("text=Review").click()
    page.wait_for_selector("form.decision")
    assert "#5 kim called it against #3 lou: passed." in page.text_content(".mod-grid")
    assert "#5 kim calls a technical vote: removal for #3 lou." in page.text_content(".story")
    page.locator("form.decision .segmented label", has_text="Sanction").click()
    page.select_option("select[name=sanction]", "suspension")
    page.fill("input[name=days]", "14")
    page.fill("textarea[name=reason]", "a group abuses removals")
    page.click("form.decision button[type=submit]")
    page.wait_for_selector("table.queue")
    assert decisions and decisions[0][0]
    assert decisions[0][1] == {"decision": "sanction", "sanction": "suspension", "days": 14,
                               "reason": "a group abuses removals"}
    page.locator(".tabs a", has_text="Audit log").click()
    expect(page.locator("table.grid")).to_contain_text("a group abuses removals")
