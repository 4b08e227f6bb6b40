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


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="omerta", description="Omerta: online Mafia with no host.")
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("replay", help="play a table script and print its events as JSON lines")
    p.add_argument("file", help="the script (JSON lines), or - for standard input")
    p.add_argument("--audience", action="store_true", help="add each event's audience")
    p.set_defaults(run=_replay)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
