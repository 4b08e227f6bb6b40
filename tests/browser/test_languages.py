"""English, Ukrainian and Polish: chosen by the browser, or by the switch,
which is remembered."""

from __future__ import annotations


def test_the_browser_language_is_used_and_the_switch_is_remembered(new_page, server):
    page = new_page(locale="pl-PL")
    page.goto(server.url)
    page.wait_for_selector(".welcome")
    assert page.evaluate("document.documentElement.lang") == "pl"
    polish = page.locator(".lobby h1").text_content()

    page.select_option("select.language", "uk")
    page.wait_for_selector(".welcome")
    page.wait_for_function("document.documentElement.lang === 'uk'")
    ukrainian = page.locator(".lobby h1").text_content()
    page.reload()
    page.wait_for_selector(".welcome")
    assert page.evaluate("document.documentElement.lang") == "uk"

    page.select_option("select.language", "en")
    page.wait_for_function("document.documentElement.lang === 'en'")
    page.wait_for_selector(".welcome")
    assert page.locator(".lobby h1").text_content() == "Open tables"
    assert len({polish, ukrainian, "Open tables"}) == 3


def test_an_unknown_browser_language_falls_back_to_english(new_page, server):
    page = new_page(locale="de-DE")
    page.goto(server.url)
    page.wait_for_selector(".welcome")
    assert page.locator(".lobby h1").text_content() == "Open tables"
