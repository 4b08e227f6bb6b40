"""`omerta serve` serves the client: the entry page at /, web/ under /web/
(revalidated on every load, so an upgrade never mixes old and new modules).
No browser needed."""

from __future__ import annotations

import json
import urllib.error
import urllib.request


def _get(url: str):
    try:
        return urllib.request.urlopen(url, timeout=5)
    except urllib.error.HTTPError as e:
        return e


def test_the_entry_page_and_the_client_files_are_served(server):
    home = _get(f"{server.url}/")
    assert home.status == 200 and home.headers["Content-Type"].startswith("text/html")
    assert home.headers["Cache-Control"] == "no-cache"
    assert '<script type="module" src="/web/js/main.js">' in home.read().decode()
    module = _get(f"{server.url}/web/js/main.js")
    assert module.status == 200 and "javascript" in module.headers["Content-Type"]
    assert module.headers["Cache-Control"] == "no-cache"
    assert json.loads(_get(f"{server.url}/web/i18n/uk.json").read())["lobby"]["title"]


def test_nothing_outside_web_is_served(server):
    for path in ("/web/nope.js", "/web/../pyproject.toml", "/web/%2e%2e/pyproject.toml"):
        answer = _get(f"{server.url}{path}")
        assert answer.status == 404, path
        assert "error" in json.loads(answer.read())
