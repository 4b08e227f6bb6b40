"""The `omerta` command."""
from __future__ import annotations

import argparse
import json
import sys

from .script import ScriptError, replay


def _replay(args: argparse.Namespace) -> int:
    try:
        if args.file == "-":
            text = sys.stdin.read()
        else:
            with open(args.file, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        print(f"omerta replay: cannot read {args.file}: {e}", file=sys.stderr)
        return 2
    out = sys.stdout

    def emit(event) -> None:
        data = event.to_dict()
        if args.audience:
            data["audience"] = event.audience.to_dict()
        out.write(json.dumps(data, separators=(", ", ": ")) + "\n")

    try:
        replay(text, emit)
        out.flush()
    except ScriptError as e:
        out.flush()
        print(f"omerta replay: {args.file}: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of the script.
        sys.stderr.close()
    return 0


# The server commands import the server (aiohttp, SQLAlchemy) only when run,
# so `omerta replay` starts fast.

def _serve(args: argparse.Namespace) -> int:
    from .server.commands import serve
    return serve(args.host, args.port, args.time_scale, args.demo, debug_stats=args.debug_stats,
                 seed=args.seed)


def _db_upgrade(args: argparse.Namespace) -> int:
    from .server.commands import db_upgrade
    return db_upgrade()


def _export(args: argparse.Namespace) -> int:
    from .server.commands import export_game
    return export_game(args.game_id, sys.stdout)


def _admin(args: argparse.Namespace) -> int:
    from .server.commands import set_moderator
    return set_moderator(args.username, args.admin_command == "grant-moderator")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="omerta", description="Omerta: online Mafia with no host.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="play a table script and print its events as JSON lines")
    p.add_argument("file", help="the script (JSON lines), or - for standard input")
    p.add_argument("--audience", action="store_true", help="add each event's audience")
    p.set_defaults(run=_replay)

    p = sub.add_parser("serve", help="run the server (DATABASE_URL, or an embedded SQLite file)")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="port (default 8080; 0 picks a free one)")
    p.add_argument("--time-scale", type=float, default=1.0, metavar="S",
                   help="run every game timer S times faster (development and tests only)")
    p.add_argument("--seed", type=int, metavar="N",
                   help="draw table seeds and seat numbers from N, reproducibly"
                        " (development and tests only: N tells every deal)")
    p.add_argument("--demo", action="store_true",
                   help="keep one open table with bots in all seats but one")
    p.add_argument("--debug-stats", action="store_true",
                   help="serve runtime measurements at /api/debug/stats (benchmarks only)")
    p.set_defaults(run=_serve)

    p = sub.add_parser("db", help="database administration")
    db = p.add_subparsers(dest="db_command", required=True)
    db.add_parser("upgrade", help="apply the schema migrations").set_defaults(run=_db_upgrade)

    p = sub.add_parser("export", help="write a finished game's record as a table script")
    p.add_argument("game_id", type=int, help="the game's id (GET /api/me/games lists yours)")
    p.set_defaults(run=_export)

    p = sub.add_parser("admin", help="administration (audited)")
    admin = p.add_subparsers(dest="admin_command", required=True)
    for name, what in (("grant-moderator", "make USER a moderator"),
                       ("revoke-moderator", "take the moderator role from USER")):
        q = admin.add_parser(name, help=what)
        q.add_argument("username", metavar="USER")
        q.set_defaults(run=_admin)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
