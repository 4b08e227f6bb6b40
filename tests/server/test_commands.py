"""`omerta serve` and `omerta db upgrade` (the functions the CLI calls)."""

from __future__ import annotations

import asyncio
import io
import os
import re
import secrets
import signal
import socket
import sqlite3
import subprocess
import sys
import threading
import urllib.request
from collections.abc import Callable, Iterator
from importlib import metadata
from pathlib import Path

import pytest
from sqlalchemy.engine import make_url

from omerta.server.commands import db_upgrade, export_game, serve
from omerta.store import check_current
from omerta.store.db import POSTGRES_EXAMPLE
from tests.server.conftest import POSTGRES, _admin, in_thread


async def test_serve_refuses_a_configured_database_that_is_behind_and_db_upgrade_fixes_it(
    empty_database, monkeypatch, capsys
):
    monkeypatch.setenv("DATABASE_URL", empty_database)
    status = await asyncio.wait_for(asyncio.to_thread(serve, port=0), timeout=20)
    assert status == 2
    assert "run `omerta db upgrade` first" in capsys.readouterr().err
    assert await asyncio.to_thread(db_upgrade) == 0
    assert "is at schema revision" in capsys.readouterr().out
    await check_current(empty_database)


def test_serve_migrates_the_embedded_database_and_prints_the_url_to_open(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["OMERTA_DATA"] = str(tmp_path)
    code = "import sys; from omerta.server.commands import serve; sys.exit(serve(port=0))"
    server = subprocess.Popen(
        [sys.executable, "-c", code],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        url = re.search(r"open (http://\S+/)", line)
        assert url, line + server.stderr.read()
        with urllib.request.urlopen(url.group(1), timeout=5) as page:
            assert page.status == 200 and b"/docs/api" in page.read()
        assert (tmp_path / "omerta.db").exists()
    finally:
        server.send_signal(signal.SIGTERM)
        assert server.wait(timeout=10) == 0
        server.stdout.close()
        server.stderr.close()


def test_serve_refuses_a_time_scale_that_is_not_positive(capsys):
    assert serve(time_scale=0) == 2
    assert "--time-scale" in capsys.readouterr().err


# Operator mistakes: each is answered by one line on stderr that names the fix,
# exit status 2, never a traceback. Lines ending in "..." before it say what the
# server was doing meanwhile.


def _one_line(err: str) -> str:
    """The one line of a refusal, after any progress lines."""
    assert "Traceback" not in err, err
    lines = err.strip().splitlines()
    assert all(line.endswith("...") for line in lines[:-1]), err
    assert lines and lines[-1].startswith("omerta: ") and not lines[-1].endswith("..."), err
    return lines[-1]


@pytest.fixture
def no_database_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """An empty working folder, no DATABASE_URL, no OMERTA_DATA."""
    for name in ("DATABASE_URL", "OMERTA_DATA", "OMERTA_HOST", "OMERTA_PORT"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def empty_postgres() -> Iterator[str]:
    """A Postgres schema of its own, empty, as `postgresql+asyncpg://…?search_path=…`."""
    schema = f"omerta_test_{secrets.token_hex(6)}"
    in_thread(lambda: _admin(f'CREATE SCHEMA "{schema}"'))
    try:
        yield f"{POSTGRES}?search_path={schema}"
    finally:
        in_thread(lambda: _admin(f'DROP SCHEMA "{schema}" CASCADE'))


@pytest.fixture
def processes() -> Iterator[Callable[..., subprocess.Popen[str]]]:
    """Starts `omerta` commands; whatever still runs when the test ends is killed."""
    started: list[subprocess.Popen[str]] = []

    def start(*args: str, env: dict[str, str]) -> subprocess.Popen[str]:
        process = subprocess.Popen(
            [sys.executable, "-m", "omerta.cli", *args],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        return process

    yield start
    for process in started:
        if process.poll() is None:
            process.kill()
        process.communicate()


def _env(data: Path, **settings: str) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("DATABASE_URL", "OMERTA_HOST", "OMERTA_PORT")
    }
    return {**env, "OMERTA_DATA": str(data), **settings}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _banner(process: subprocess.Popen[str]) -> str:
    """The server's first line; a server silent for a minute is killed, not waited for."""
    assert process.stdout is not None
    watchdog = threading.Timer(STOP_SECONDS, process.kill)
    watchdog.start()
    try:
        line = process.stdout.readline()
    finally:
        watchdog.cancel()
    assert line, process.communicate(timeout=STOP_SECONDS)[1]
    return line


def _stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=STOP_SECONDS) == 0


STOP_SECONDS = 60


def test_version_prints_the_installed_version():
    done = subprocess.run(
        [sys.executable, "-m", "omerta.cli", "--version"],
        capture_output=True,
        text=True,
        timeout=STOP_SECONDS,
    )
    assert done.returncode == 0
    assert done.stdout.strip() == f"omerta {metadata.version('omerta')}"


def test_serve_listens_where_OMERTA_HOST_and_OMERTA_PORT_say_and_its_banner_names_version_database_and_url(
    processes, tmp_path
):
    port = _free_port()
    server = processes("serve", env=_env(tmp_path, OMERTA_HOST="127.0.0.1", OMERTA_PORT=str(port)))
    banner = _banner(server)
    assert f"Omerta {metadata.version('omerta')} " in banner
    assert f"SQLite {tmp_path / 'omerta.db'}" in banner
    assert f"open http://127.0.0.1:{port}/ " in banner
    _stop(server)
    # Before it listens, it says what it is doing (seconds on a busy machine).
    progress = server.communicate(timeout=STOP_SECONDS)[1].splitlines()
    assert progress[:3] == [
        f"omerta: Omerta {metadata.version('omerta')} starting...",
        f"omerta: opening SQLite {tmp_path / 'omerta.db'} and bringing its schema up to date...",
        "omerta: starting the tables...",
    ], progress


def test_serve_flags_win_over_the_environment(processes, tmp_path):
    server = processes(
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        env=_env(tmp_path, OMERTA_HOST="999.1.1.1", OMERTA_PORT="70000"),
    )
    assert re.search(r"open http://127\.0\.0\.1:\d+/", _banner(server))
    _stop(server)


def test_serve_on_a_port_in_use_says_so_in_one_line(processes, tmp_path):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = processes("serve", "--port", str(port), env=_env(tmp_path))
        _, err = server.communicate(timeout=STOP_SECONDS)
    assert server.returncode == 2
    assert f"port {port} on 127.0.0.1 is already in use" in _one_line(err)
    assert "--port or OMERTA_PORT" in _one_line(err)


def test_serve_on_a_host_that_is_no_address_says_so_in_one_line(processes, tmp_path):
    server = processes("serve", "--port", "0", env=_env(tmp_path, OMERTA_HOST="999.1.1.1"))
    _, err = server.communicate(timeout=STOP_SECONDS)
    assert server.returncode == 2
    assert "cannot listen on host '999.1.1.1'" in _one_line(err)
    assert "--host or OMERTA_HOST" in _one_line(err)


def test_an_OMERTA_PORT_that_is_no_number_is_refused_in_one_line(processes, tmp_path):
    server = processes("serve", env=_env(tmp_path, OMERTA_PORT="eighty"))
    _, err = server.communicate(timeout=STOP_SECONDS)
    assert server.returncode == 2
    assert "OMERTA_PORT='eighty' is not a port" in _one_line(err)


def test_serve_refuses_port_70000_in_one_line(no_database_settings, capsys):
    assert serve(port=70000) == 2
    assert "70000 is not a port: choose one of 1-65535" in _one_line(capsys.readouterr().err)
    assert not (no_database_settings / "omerta.db").exists()


@pytest.mark.parametrize("scheme", ["postgres", "postgresql"])
def test_postgres_urls_as_providers_write_them_are_used_through_asyncpg(
    scheme, empty_postgres, no_database_settings, monkeypatch, capsys
):
    monkeypatch.setenv("DATABASE_URL", empty_postgres.replace("postgresql+asyncpg", scheme, 1))
    assert serve(port=0) == 2
    assert "run `omerta db upgrade` first" in _one_line(capsys.readouterr().err)
    assert db_upgrade() == 0
    in_thread(lambda: check_current(empty_postgres))


@pytest.mark.parametrize("url", ["not a url", "postgres://user@host:port/db", "mysql://u@h/db"])
def test_a_database_url_omerta_cannot_use_is_refused_in_one_line(
    url, no_database_settings, monkeypatch, capsys
):
    monkeypatch.setenv("DATABASE_URL", url)
    assert serve(port=0) == 2
    assert f"write {POSTGRES_EXAMPLE}" in _one_line(capsys.readouterr().err).replace("it as ", "")


def test_a_postgres_database_that_does_not_exist_is_refused_in_one_line(
    no_database_settings, monkeypatch, capsys
):
    missing = make_url(POSTGRES).set(database="omerta_no_such_database")
    monkeypatch.setenv("DATABASE_URL", missing.render_as_string(hide_password=False))
    _skip_unless_postgres_answers()
    assert serve(port=0) == 2
    line = _one_line(capsys.readouterr().err)
    assert "'omerta_no_such_database' does not exist" in line and "createdb" in line


def test_a_postgres_role_that_does_not_exist_is_refused_in_one_line(
    no_database_settings, monkeypatch, capsys
):
    stranger = make_url(POSTGRES).set(username="omerta_no_such_role", password=None)
    monkeypatch.setenv("DATABASE_URL", stranger.render_as_string(hide_password=False))
    _skip_unless_postgres_answers()
    assert serve(port=0) == 2
    line = _one_line(capsys.readouterr().err)
    assert "refused the login" in line and "fix the user or password in DATABASE_URL" in line


@pytest.mark.parametrize("folder", ["a-file", "a-file/below-it"])
def test_a_data_folder_that_cannot_be_written_is_refused_in_one_line(
    folder, no_database_settings, monkeypatch, capsys
):
    (no_database_settings / "a-file").write_text("not a folder")
    monkeypatch.setenv("OMERTA_DATA", str(no_database_settings / folder))
    assert serve(port=0) == 2
    line = _one_line(capsys.readouterr().err)
    assert "cannot write the database" in line and "set OMERTA_DATA" in line


def test_export_in_a_folder_without_a_database_refuses_and_creates_none(
    no_database_settings, capsys
):
    assert export_game(1, io.StringIO()) == 2
    assert "there is no Omerta database at" in _one_line(capsys.readouterr().err)
    assert list(no_database_settings.iterdir()) == []


def _skip_unless_postgres_answers() -> None:
    in_thread(lambda: _admin("SELECT 1"))


def test_a_database_a_newer_version_migrated_is_refused_by_db_upgrade_and_serve(
    no_database_settings, capsys
):
    assert db_upgrade() == 0
    with sqlite3.connect(no_database_settings / "omerta.db") as db:
        db.execute("UPDATE alembic_version SET version_num = '9999'")
    capsys.readouterr()
    assert db_upgrade() == 2
    assert "revision 9999, which this version of Omerta does not know" in _one_line(
        capsys.readouterr().err
    )
    assert serve(port=0) == 2
    assert "run that version instead" in _one_line(capsys.readouterr().err)
