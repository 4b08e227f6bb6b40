"""Prove that a built wheel is a working server: build it from the tracked
files, install it into a fresh venv (with constraints.txt), run `omerta serve`
on a free loopback port with an empty data folder, and check that the entry
page and the API documentation answer 200 and that SIGTERM stops it cleanly.

Run by .ci/run: `.venv/bin/python .ci/install_check.py`. Exit status 0 when
all holds; otherwise one line on stderr saying what failed."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
START_SECONDS = 120
STOP_SECONDS = 30
PAGES = ("/", "/docs/api", "/web/js/main.js")


class CheckFailed(Exception):
    pass


def run(*args: str | Path, cwd: Path | None = None) -> None:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CheckFailed(f"{' '.join(map(str, args))} failed:\n{done.stdout}{done.stderr}")


def tracked_files() -> list[str]:
    """The files a fresh clone has (untracked and build leftovers left out;
    so is a file deleted in the working tree but not yet committed)."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    return [os.fsdecode(n) for n in names if n and os.path.lexists(ROOT / os.fsdecode(n))]


def copy_tracked_files(to: Path) -> None:
    for name in tracked_files():
        source, target = ROOT / name, to / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_symlink():
            target.symlink_to(os.readlink(source))
        else:
            shutil.copy2(source, target)


def install(work: Path) -> Path:
    """The `omerta` command of a fresh venv holding only the built wheel."""
    source, wheels, venv = work / "source", work / "wheels", work / "venv"
    copy_tracked_files(source)
    run(sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", source, "-w", wheels)
    # The source is gone before the server starts: it must find everything
    # inside the installed package.
    shutil.rmtree(source)
    (wheel,) = wheels.glob("omerta-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        shipped = set(archive.namelist())
    missing = sorted(
        name
        for name in tracked_files()
        if name.startswith("omerta/") and not name.endswith(".py") and name not in shipped
    )
    if missing:
        raise CheckFailed(
            f"the wheel leaves out {missing}: add them to"
            " [tool.setuptools.package-data] in pyproject.toml"
        )
    run(sys.executable, "-m", "venv", venv)
    run(venv / "bin" / "pip", "install", "-q", "-c", ROOT / "constraints.txt", wheel)
    return venv / "bin" / "omerta"


def get(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as e:
        return e.code


def serve_and_check(omerta: Path, work: Path) -> None:
    data, out, err = work / "data", work / "stdout", work / "stderr"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["OMERTA_DATA"] = str(data)
    with out.open("w") as stdout, err.open("w") as stderr:
        server = subprocess.Popen(
            [str(omerta), "serve", "--host", "127.0.0.1", "--port", "0"],
            cwd=work,
            env=env,
            stdout=stdout,
            stderr=stderr,
        )
    try:
        base = wait_for_url(server, out, err)
        for page in PAGES:
            status = get(base + page.lstrip("/"))
            if status != 200:
                raise CheckFailed(f"GET {page} answered {status}, not 200")
        server.send_signal(signal.SIGTERM)
        try:
            status = server.wait(STOP_SECONDS)
        except subprocess.TimeoutExpired:
            raise CheckFailed(
                f"omerta serve still running {STOP_SECONDS} s after SIGTERM"
            ) from None
        if status != 0:
            raise CheckFailed(
                f"omerta serve exited with {status} after SIGTERM:\n{err.read_text()}"
            )
        if not (data / "omerta.db").is_file():
            raise CheckFailed(f"omerta serve did not put its database in OMERTA_DATA ({data})")
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()


def wait_for_url(server: subprocess.Popen[bytes], out: Path, err: Path) -> str:
    """The URL `omerta serve` prints once it listens."""
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        found = re.search(r"http://\S+/", out.read_text())
        if found:
            return found.group(0)
        if server.poll() is not None:
            raise CheckFailed(
                f"omerta serve exited ({server.returncode}) before listening:\n{err.read_text()}"
            )
        time.sleep(0.2)
    raise CheckFailed(f"omerta serve printed no URL within {START_SECONDS} s")


def main() -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="omerta-install-") as tmp:
        work = Path(tmp)
        try:
            serve_and_check(install(work), work)
        except CheckFailed as e:
            print(f"install check: {e}", file=sys.stderr)
            return 1
    print(
        f"install check: the wheel installs and serves {', '.join(PAGES)}"
        f" ({time.monotonic() - started:.0f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
