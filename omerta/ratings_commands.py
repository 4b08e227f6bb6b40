"""`omerta ratings evaluate` and `omerta ratings fit`, as functions the CLI
calls; each returns the process exit status (2: bad input or no database)."""

from __future__ import annotations

import asyncio
import json
import sys
from dataclasses import asdict
from typing import TextIO

from .ratings.evaluate import calibration_table, evaluate, optional_baselines, table
from .ratings.features import compare
from .ratings.features import table as feature_table
from .ratings.fit import Fit, fit
from .ratings.records import GameRecord, RecordError, parse_lines
from .script import one_line


def _fail(command: str, message: str) -> int:
    print(one_line(f"omerta ratings {command}: {message}"), file=sys.stderr)
    return 2


def read_games(path: str) -> list[GameRecord]:
    """The games of a record file (- for standard input); OSError or RecordError."""
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return parse_lines(data.split(b"\n"), path)


def evaluate_command(
    path: str, train: float, as_json: bool, out: TextIO | None = None, features: bool = False
) -> int:
    out = out or sys.stdout
    try:
        games = read_games(path)
    except OSError as e:
        return _fail("evaluate", f"cannot read {path}: {e.strerror or e}")
    except RecordError as e:
        return _fail("evaluate", str(e))
    extra, notes = optional_baselines()
    try:
        ev = evaluate(games, train, extra=extra, notes=notes)
    except ValueError as e:
        return _fail("evaluate", f"{path}: {e}")
    found = compare(games, train, params=ev.fitted.params) if features else None
    if as_json:
        report = ev.to_dict()
        if found is not None:
            report["features"] = [{**asdict(r), "helps": r.helps} for r in found]
        out.write(json.dumps(report) + "\n")
        return 0
    p = ev.fitted.params
    out.write(
        f"{path}: {ev.train_games + ev.test_games} games; parameters fitted on the first "
        f"{ev.train_games}, every model scored prequentially on the last {ev.test_games}\n"
        f"fitted: sigma0 {p.sigma0:.1f}, tau {p.tau:.3g}, side_sigma0 {p.side_sigma0:.1f}, "
        f"side_tau {p.side_tau:.3g} (log-loss on the first part {ev.fitted.log_loss:.4f})\n\n"
    )
    out.write(table(ev) + "\n\n")
    m, se = ev.margin
    out.write(
        f"best team Elo: {ev.best_elo.name} ({ev.best_elo.log_loss:.4f}; K picked on the"
        " held-out part itself, so this baseline is flattered)\n"
        f"its log-loss minus the fitted model's: {m:+.4f} ± {se:.4f} (paired standard error;"
        " positive: ours is lower)\n\n"
    )
    out.write(calibration_table(ev.scores[0]) + "\n")
    for note in ev.notes:
        out.write(f"note: {note}\n")
    if found is not None:
        out.write(
            "\nfeatures beyond the winner (each coefficient fitted on the first part;"
            " gain: log-loss without it minus with it; helps: gain over 2 SE):\n"
            + (feature_table(found) if found else "none of them is in the record")
            + "\n"
        )
    return 0


def report(result: Fit, version: int | None, out: TextIO) -> None:
    p = result.params
    out.write(
        f"fitted on {result.games} ranked games ({result.runs} prequential runs): "
        f"log-loss {result.start_log_loss:.4f} -> {result.log_loss:.4f}\n"
        f"sigma0 {p.sigma0:.1f}  tau {p.tau:.3g}  side_sigma0 {p.side_sigma0:.1f}  "
        f"side_tau {p.side_tau:.3g}\n"
    )
    out.write(
        f"stored as version {version}: new games are rated with it\n" if version else "not stored\n"
    )


async def refit_database(url: str, source: str, dry_run: bool = False) -> tuple[Fit, int | None]:
    from .rating_fits import refit
    from .store import Database

    db = Database.connect(url)
    try:
        return await refit(db, source, dry_run)
    finally:
        await db.close()


def fit_command(games_path: str | None, dry_run: bool, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    if games_path is not None:
        try:
            games = read_games(games_path)
            result = fit(games)
        except OSError as e:
            return _fail("fit", f"cannot read {games_path}: {e.strerror or e}")
        except RecordError as e:
            return _fail("fit", str(e))
        except ValueError as e:
            return _fail("fit", f"{games_path}: {e}")
        report(result, None, out)
        return 0
    from .server.commands import DATABASE_ERRORS, NoDatabase, _database_problem, _existing_database
    from .store import SchemaOutOfDate, check_current
    from .store.db import DatabaseUrlError

    url = ""
    try:
        url = _existing_database()
        asyncio.run(check_current(url))
        result, version = asyncio.run(refit_database(url, "database", dry_run))
    except (DatabaseUrlError, SchemaOutOfDate, NoDatabase, ValueError) as e:
        return _fail("fit", str(e))
    except DATABASE_ERRORS as e:
        return _fail("fit", _database_problem(url, e))
    report(result, version, out)
    return 0


def recompute_command(out: TextIO | None = None, shown: int = 10) -> int:
    """`omerta ratings recompute`: replay the ranked games with the newest parameters."""
    out = out or sys.stdout
    from sqlalchemy import select

    from .rating_replay import Replay, recompute
    from .server.commands import DATABASE_ERRORS, NoDatabase, _database_problem, _existing_database
    from .store import Database, SchemaOutOfDate, check_current
    from .store.db import DatabaseUrlError
    from .store.models import User

    async def run() -> tuple[Replay, dict[int, str]]:
        await check_current(url)
        db = Database.connect(url)
        try:
            async with db.begin() as s:
                replay = await recompute(s)
                names = dict((await s.execute(select(User.id, User.username))).tuples().all())
            return replay, names
        finally:
            await db.close()

    url = ""
    try:
        url = _existing_database()
        replay, names = asyncio.run(run())
    except (DatabaseUrlError, SchemaOutOfDate, NoDatabase) as e:
        return _fail("recompute", str(e))
    except DATABASE_ERRORS as e:
        return _fail("recompute", _database_problem(url, e))
    out.write(
        f"replayed {replay.games} ranked games with parameters version {replay.version}:"
        f" {len(replay.moved)} ratings recomputed (before and after kept per player)\n"
    )
    for m in replay.moved[:shown]:
        out.write(f"  {names.get(m.user_id, m.user_id)}: {m.display_before} -> {m.display_after}\n")
    return 0
