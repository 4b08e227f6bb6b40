"""Browser tests: Playwright's Python package driving Debian's Chromium
against a real `omerta serve` subprocess (a temporary SQLite database, fast
game timers) on 127.0.0.1.

`playwright install` cannot download browsers here: the tests use
/usr/bin/chromium (`apt-get install -y chromium`). Without it they skip,
saying so; with CI=true they fail instead."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

try:
    from playwright.sync_api import expect
except ImportError:  # the `browser` fixture says what to install (and fails in CI)
    expect = None  # type: ignore[assignment]

CHROMIUM = Path("/usr/bin/chromium")
LAUNCH_ARGS = [
    "--use-fake-device-for-media-stream",
    "--use-fake-ui-for-media-stream",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
#: Game timers run this many times faster: a 60 s speech takes 3 s, yet a
#: browser still has time to click in the shortest windows (the 7 s shot).
TIME_SCALE = 20
PASSWORD = "correct horse"
VIEWPORT = {"width": 1366, "height": 768}
#: Set it to write the screenshots there instead of into the run's temporary
#: folder; README.md's pictures are refreshed with
#: `OMERTA_SCREENSHOTS=docs/screenshots .venv/bin/python -m pytest -q tests/browser/test_game.py`.
SCREENSHOTS_SETTING = "OMERTA_SCREENSHOTS"


def _unavailable(message: str) -> None:
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


@dataclass
class Server:
    url: str
    data: Path

    def make_moderator(self, username: str) -> None:
        """As the server's operator does: `omerta admin grant-moderator USER`
        on the server's own database (its data dir)."""
        env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        env["OMERTA_DATA"] = str(self.data)
        done = subprocess.run(
            [sys.executable, "-m", "omerta.cli", "admin", "grant-moderator", username],
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, f"grant-moderator {username} failed: {done.stderr}"


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    if not CHROMIUM.exists():
        _unavailable(
            f"browser tests need Debian's Chromium at {CHROMIUM}: run `apt-get install -y chromium`"
        )
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        _unavailable("browser tests need Playwright: pip install -e '.[dev]'")
    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=str(CHROMIUM), args=LAUNCH_ARGS)
        yield chromium
        chromium.close()


@contextmanager
def serve(data: Path, *options: str, extra_env: dict[str, str] | None = None) -> Iterator[Server]:
    """`omerta serve` on a SQLite database in `data`, with `options` and
    `extra_env`. Its log goes to a file, not a pipe nobody reads
    while the game runs (media warnings could fill it and stall the server).
    Media may use this machine's private addresses (omerta/media/ice.py)."""
    env = {
        **{k: v for k, v in os.environ.items() if k != "DATABASE_URL"},
        "OMERTA_ICE_ALLOW_PRIVATE": "1",
        **(extra_env or {}),
    }
    env["OMERTA_DATA"] = str(data)
    log = data / "serve.log"
    with log.open("w") as err:
        process = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "omerta.cli",
                "serve",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                *options,
            ],
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            text=True,
        )
    assert process.stdout is not None
    try:
        line = process.stdout.readline()
        found = re.search(r"open (http://\S+)/", line)
        if not found:
            process.kill()
            process.wait()
            pytest.fail(f"omerta serve did not start: {line}{log.read_text()}")
        yield Server(found.group(1), data)
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        process.stdout.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    with serve(tmp_path_factory.mktemp("omerta"), "--time-scale", str(TIME_SCALE)) as running:
        yield running


@pytest.fixture
def new_page(browser, server):
    """Pages in fresh browser contexts (cookies, storage); fails the test on
    any uncaught script error in them."""
    contexts, errors = [], []

    def make(locale: str = "en-US", viewport: dict[str, int] = VIEWPORT):
        context = browser.new_context(viewport=viewport, locale=locale)
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.set_default_timeout(15_000)
        return page

    yield make
    for context in contexts:
        context.close()
    assert errors == [], "script errors in the page"


def sign_up(page, server: Server, username: str) -> None:
    page.goto(f"{server.url}/#/signup")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", PASSWORD)
    page.click("form.auth button[type=submit]")
    page.wait_for_selector("form.create")


@dataclass
class Screenshots:
    folder: Path | None = None


_screenshots = Screenshots()


@pytest.fixture(scope="session", autouse=True)
def screenshots_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where `screenshot` writes: $OMERTA_SCREENSHOTS, else the run's own
    temporary folder, so that a test run leaves the working tree as it was."""
    chosen = os.environ.get(SCREENSHOTS_SETTING)
    folder = Path(chosen).resolve() if chosen else tmp_path_factory.mktemp("screenshots")
    _screenshots.folder = folder
    return folder


def screenshot(page, name: str) -> None:
    assert _screenshots.folder is not None, "the screenshots_folder fixture sets it"
    _screenshots.folder.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(_screenshots.folder / f"{name}.png"))
