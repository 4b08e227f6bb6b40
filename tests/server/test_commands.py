"""`omerta serve` and `omerta db upgrade` (the functions the CLI calls)."""
from __future__ import annotations

import asyncio
import os
import re
import signal
import subprocess
import sys
import urllib.request

from omerta.server.commands import db_upgrade, serve
from omerta.store import check_current


async def test_serve_refuses_a_configured_database_that_is_behind_and_db_upgrade_fixes_it(
        empty_database, monkeypatch, capsys):
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
    server = subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
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
