"""The `omerta` command."""

from __future__ import annotations

import argparse
import json
import os
import sys

from .script import ScriptError, one_line, replay
from .version import version

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8080


def _replay(args: argparse.Namespace) -> int:
    # Bytes, not text: invalid UTF-8 is a script error that names its line.
    try:
        if args.file == "-":
            data = sys.stdin.buffer.read()
        else:
            with open(args.file, "rb") as f:
                data = f.read()
    except OSError as e:
        print(one_line(f"omerta replay: cannot read {args.file}: {e}"), file=sys.stderr)
        return 2
    out = sys.stdout

    def emit(event) -> None:
        if not args.audience:
            out.write(event.to_json() + "\n")
            return
        data = event.to_dict()
        data["audience"] = event.audience.to_dict()
        out.write(json.dumps(data, separators=(", ", ": ")) + "\n")

    try:
        replay(data, emit)
        out.flush()
    except ScriptError as e:
        out.flush()
        print(f"omerta replay: {one_line(args.file)}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of the script.
        sys.stderr.close()
    return 0


# The server commands import the server (aiohttp, SQLAlchemy) only when run,
# so `omerta replay` starts fast.


def _serve(args: argparse.Namespace) -> int:
    host = args.host or os.environ.get("OMERTA_HOST") or DEFAULT_HOST
    port = args.port
    if port is None:
        setting = os.environ.get("OMERTA_PORT") or str(DEFAULT_PORT)
        try:
            port = int(setting)
        except ValueError:
            print(
                f"omerta: OMERTA_PORT={setting!r} is not a port: set it to a number of 1-65535,"
                " or 0 for a free one",
                file=sys.stderr,
            )
            return 2
    # Loading the server takes seconds on a busy machine: say so first.
    print(f"omerta: Omerta {version()} starting...", file=sys.stderr, flush=True)
    from .server.commands import serve

    return serve(
        host,
        port,
        args.time_scale,
        args.demo,
        debug_stats=args.debug_stats,
        seed=args.seed,
        media=args.media,
        janus_urls=args.janus_url,
        node=args.node,
        node_url=args.node_url,
    )


def _db_upgrade(args: argparse.Namespace) -> int:
    from .server.commands import db_upgrade

    return db_upgrade()


def _export(args: argparse.Namespace) -> int:
    from .server.commands import export_game

    return export_game(args.game_id, sys.stdout)


def _admin(args: argparse.Namespace) -> int:
    from .server.commands import set_role

    grant, role = args.admin_command.split("-")
    return set_role(args.username, role, grant == "grant")


def _ratings(args: argparse.Namespace) -> int:
    from .ratings_commands import evaluate_command, fit_command, recompute_command

    if args.ratings_command == "evaluate":
        return evaluate_command(args.file, args.train, args.json, features=args.features)
    if args.ratings_command == "recompute":
        return recompute_command()
    return fit_command(args.games, args.dry_run)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="omerta", description="Omerta: online Mafia with no host."
    )
    parser.add_argument("--version", action="version", version=f"omerta {version()}")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="play a table script and print its events as JSON lines")
    p.add_argument("file", help="the script (JSON lines), or - for standard input")
    p.add_argument("--audience", action="store_true", help="add each event's audience")
    p.set_defaults(run=_replay)

    p = sub.add_parser("serve", help="run the server (DATABASE_URL, or an embedded SQLite file)")
    p.add_argument(
        "--host", help=f"address to listen on (default $OMERTA_HOST, else {DEFAULT_HOST})"
    )
    p.add_argument(
        "--port",
        type=int,
        help=f"port (default $OMERTA_PORT, else {DEFAULT_PORT}; 0 picks a free one)",
    )
    p.add_argument(
        "--time-scale",
        type=float,
        default=1.0,
        metavar="S",
        help="run every game timer S times faster (development and tests only)",
    )
    p.add_argument(
        "--seed",
        type=int,
        metavar="N",
        help="draw table seeds and seat numbers from N, reproducibly"
        " (development and tests only: N tells every deal)",
    )
    p.add_argument(
        "--demo", action="store_true", help="keep one open table with bots in all seats but one"
    )
    p.add_argument(
        "--debug-stats",
        action="store_true",
        help="serve runtime measurements at /api/debug/stats (benchmarks only)",
    )
    p.add_argument(
        "--media",
        choices=("sfu", "janus"),
        default="sfu",
        help="where players' media go: the in-process SFU (default) or Janus VideoRoom"
        " (docs/media.md, docs/deploy.md)",
    )
    p.add_argument(
        "--janus-url",
        action="append",
        default=[],
        metavar="URL",
        help="a Janus WebSocket API, e.g. ws://127.0.0.1:8188 (repeat for several;"
        " default $OMERTA_JANUS_URLS)",
    )
    p.add_argument(
        "--node",
        metavar="NAME",
        help="this server's name among several sharing one Postgres (default $OMERTA_NODE,"
        " else one server alone); needs $OMERTA_CLUSTER_SECRET (docs/deploy.md)",
    )
    p.add_argument(
        "--node-url",
        metavar="URL",
        help="where the other nodes reach this one, e.g. http://10.0.0.5:8080"
        " (default $OMERTA_NODE_URL, else the address it listens on)",
    )
    p.set_defaults(run=_serve)

    p = sub.add_parser("db", help="database administration")
    db = p.add_subparsers(dest="db_command", required=True)
    db.add_parser("upgrade", help="apply the schema migrations").set_defaults(run=_db_upgrade)

    p = sub.add_parser("export", help="write a finished game's record as a table script")
    p.add_argument("game_id", type=int, help="the game's id (GET /api/me/games lists yours)")
    p.set_defaults(run=_export)

    p = sub.add_parser("ratings", help="fit and evaluate the rating model (docs/ratings.md)")
    ratings = p.add_subparsers(dest="ratings_command", required=True)
    q = ratings.add_parser(
        "evaluate", help="score the model against baselines on a record of games"
    )
    q.add_argument("file", help="one JSON game per line (docs/ratings.md), or - for standard input")
    q.add_argument(
        "--train",
        type=float,
        default=0.5,
        metavar="SHARE",
        help="fit on this first share of the games, score the rest (default 0.5)",
    )
    q.add_argument("--json", action="store_true", help="print the scores as one JSON object")
    q.add_argument(
        "--features",
        action="store_true",
        help="also test whether roles, the first-killed player or days survived predict better",
    )
    q.set_defaults(run=_ratings)
    q = ratings.add_parser(
        "fit",
        help="fit the model's parameters to the stored ranked games"
        " and store them as a new version",
    )
    q.add_argument(
        "--games",
        metavar="GAMES.jsonl",
        help="fit to this record instead and only report (nothing is stored)",
    )
    q.add_argument("--dry-run", action="store_true", help="report the fit, store nothing")
    q.set_defaults(run=_ratings)
    ratings.add_parser(
        "recompute",
        help="replay the ranked games with the newest parameters"
        " (keeps every rating's before and after)",
    ).set_defaults(run=_ratings)

    p = sub.add_parser("admin", help="administration (audited)")
    admin = p.add_subparsers(dest="admin_command", required=True)
    for name, what in (
        ("grant-moderator", "make USER a moderator"),
        ("revoke-moderator", "take the moderator role from USER"),
        ("grant-director", "let USER create and run tournaments"),
        ("revoke-director", "take the tournament director role from USER"),
    ):
        q = admin.add_parser(name, help=what)
        q.add_argument("username", metavar="USER")
        q.set_defaults(run=_admin)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except KeyboardInterrupt:  # Ctrl+C before the server set its own handler
        return 130
    return status


if __name__ == "__main__":
    sys.exit(main())
