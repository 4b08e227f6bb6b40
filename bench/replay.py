"""Replay benchmark: random legal games (classic and city) replayed through
`omerta.script.replay` with every event serialised as JSON, and the engine
alone (`apply` on the same steps), optionally side by side with another commit.

    .venv/bin/python bench/replay.py --games 200 --reps 10 --baseline de147e1

The game scripts are generated once (by `omerta.table.random_play`, with this
tree's code) as records like a live table's, then each code version replays
the same scripts in its own worker process (PYTHONPATH pointing at its tree;
the baseline is `git archive`d into a temporary directory). Repetitions
alternate between the versions so machine noise hits both alike, and time
is the worker's CPU time, which other processes on a loaded machine disturb
far less than the wall clock; each ratio is the median of the
per-repetition ratios. The workers also hash their JSON
output, so the run says whether both versions wrote the same bytes.

    .venv/bin/python bench/replay.py --games 40 --baseline de147e1 --instructions

counts machine instructions instead of time (valgrind's callgrind, so it
needs `apt-get install valgrind`): the same count on a quiet or a loaded
machine. Each count is a worker run doing the work minus one doing only
its set-up (imports, reading and parsing the scripts for the engine), per
game; the work is what the time mode times (the digest of the output is
neither timed nor counted); the ratio is the baseline's count over this
tree's. Nothing else is timed, so it takes a few minutes for 40 games."""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Iterator
from typing import IO, Any

ROOT = pathlib.Path(__file__).resolve().parents[1]
RULESETS = ("classic", "city")
KINDS = ("replay", "engine")


# --- the scripts (this tree's code) ----------------------------------------


def scripts(games: int, seed: int) -> dict[str, list[str]]:
    """`games` random legal games per ruleset, each as a script's text."""
    from omerta.script import random_script

    return {
        name: ["\n".join(random_script(name, seed * 1_000_003 + i)) + "\n" for i in range(games)]
        for name in RULESETS
    }


# --- the worker (the code under test, imported from PYTHONPATH) -------------


def _replay(texts: list[str]) -> dict[str, Any]:
    out, seconds = _play(texts)
    digest = hashlib.sha256("\n".join(out).encode()).hexdigest()
    return {"seconds": seconds, "games": len(texts), "events": len(out), "digest": digest}


def _play(texts: list[str]) -> tuple[list[str], float]:
    """Every script replayed, each event written as JSON: the events' text
    and the CPU time it took (what is timed and counted, the digest not)."""
    from omerta.script import replay
    from omerta.table import Event

    out: list[str] = []
    emit = out.append
    dumps = json.dumps
    # Each version its own fastest way to the same bytes (the digest checks it).
    if hasattr(Event, "to_json"):

        def take(e: Any) -> None:
            emit(e.to_json())
    else:

        def take(e: Any) -> None:
            emit(dumps(e.to_dict()))

    start = time.process_time()
    for text in texts:
        replay(text, take)
    return out, time.process_time() - start


def _steps(texts: list[str]) -> list[tuple[Any, list[tuple[float, Any]]]]:
    """Each script as (header, [(t, action or Timeout)]), parsed before timing."""
    from omerta import rulesets  # noqa: F401  (registers city mode's actions)
    from omerta.table import Timeout, parse_action

    games = []
    for text in texts:
        header, *lines = [json.loads(line) for line in text.splitlines()]
        steps = [
            (line.pop("t"), Timeout() if line["do"] == "wait" else parse_action(line))
            for line in lines
        ]
        games.append((header, steps))
    return games


def _engine(games: list[tuple[Any, list[tuple[float, Any]]]]) -> dict[str, Any]:
    from omerta import rulesets
    from omerta.table import apply, new_game

    seconds, steps = 0.0, 0
    clock = time.process_time
    for header, played in games:
        state, _ = new_game(rulesets.get(header["ruleset"]), header["settings"], header["seed"])
        start = clock()
        for t, action in played:
            state, _ = apply(state, action, t)
        seconds += clock() - start
        steps += len(played)
        assert state.over, "a recorded game replays to its end"
    return {"seconds": seconds, "games": len(games), "steps": steps}


def worker(path: str) -> None:
    """Answer one JSON line per command line ("replay city", "engine classic")."""
    import omerta

    texts = json.loads(pathlib.Path(path).read_text())
    parsed = {name: _steps(texts[name]) for name in RULESETS}
    print(json.dumps({"omerta": omerta.__file__}), flush=True)
    for command in sys.stdin:
        kind, name = command.split()
        result = _replay(texts[name]) if kind == "replay" else _engine(parsed[name])
        print(json.dumps(result), flush=True)


def count_worker(path: str, kind: str, name: str, work: bool) -> None:
    """One run for `--instructions`: the set-up of `kind`, and the work if `work`."""
    from omerta import rulesets, script, table  # noqa: F401  (imported in both runs)

    texts = json.loads(pathlib.Path(path).read_text())[name]
    games = _steps(texts) if kind == "engine" else None
    if work and games is not None:
        _engine(games)
    elif work:
        _play(texts)


def instructions(tree: pathlib.Path, scripts_path: str, kind: str, name: str) -> int:
    """Instructions per game of `kind` on `name`'s scripts by `tree`'s code."""

    def run(work: bool) -> int:
        command = [
            "valgrind",
            "--tool=callgrind",
            "--callgrind-out-file=/dev/null",
            sys.executable,
            __file__,
            "--count-worker",
            scripts_path,
            kind,
            name,
            "work" if work else "setup",
        ]
        env = {**os.environ, "PYTHONPATH": str(tree)}
        done = subprocess.run(command, env=env, cwd=tree, capture_output=True, text=True)
        if done.returncode != 0:
            raise SystemExit(f"valgrind failed: {done.stderr[-2000:]}")
        collected = [line for line in done.stderr.splitlines() if "Collected :" in line]
        return int(collected[-1].split()[-1])

    games = len(json.loads(pathlib.Path(scripts_path).read_text())[name])
    return (run(True) - run(False)) // games


def count(args: argparse.Namespace, trees: list[tuple[str, pathlib.Path]], path: str) -> None:
    print(f"instructions per game (callgrind), {args.games} games per ruleset")
    for kind in KINDS:
        for name in RULESETS:
            counts = [instructions(tree, path, kind, name) for _, tree in trees]
            line = f"{kind:7} {name:8} current {counts[0]:>12,}"
            for (label, _), theirs in zip(trees[1:], counts[1:]):
                line += f"  {label} {theirs:>12,}  ratio {theirs / counts[0]:.2f}"
            print(line, flush=True)


# --- the driver --------------------------------------------------------------


class Worker:
    def __init__(self, label: str, tree: pathlib.Path, scripts_path: str):
        self.label = label
        env = {**os.environ, "PYTHONPATH": str(tree)}
        self.process = subprocess.Popen(
            [sys.executable, __file__, "--worker", scripts_path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            env=env,
            cwd=tree,
        )
        hello = json.loads(self._out().readline())
        expected = tree / "omerta" / "__init__.py"
        if pathlib.Path(hello["omerta"]).resolve() != expected.resolve():
            raise SystemExit(f"{label} worker imported {hello['omerta']}, not {expected}")

    def _out(self) -> IO[str]:
        assert self.process.stdout is not None
        return self.process.stdout

    def run(self, kind: str, name: str) -> dict[str, Any]:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{kind} {name}\n")
        self.process.stdin.flush()
        result: dict[str, Any] = json.loads(self._out().readline())
        return result

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait()


def baseline_tree(ref: str, into: pathlib.Path) -> pathlib.Path:
    """The baseline commit's files, `git archive`d into a temporary directory."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", "--format=tar", ref], check=True, capture_output=True
    ).stdout
    tree = into / "baseline"
    tree.mkdir()
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(tree, filter="data")
    return tree


def rate(result: dict[str, Any], kind: str) -> float:
    return float(result["games" if kind == "replay" else "steps"]) / float(result["seconds"])


def order(rep: int, workers: list[Worker]) -> Iterator[Worker]:
    return iter(workers if rep % 2 == 0 else workers[::-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games per ruleset")
    parser.add_argument("--reps", type=int, default=10, help="timed repetitions per version")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--baseline", metavar="GIT_REF", help="commit to measure alongside")
    parser.add_argument(
        "--instructions", action="store_true", help="count instructions (valgrind), not time"
    )
    parser.add_argument("--worker", metavar="SCRIPTS", help=argparse.SUPPRESS)
    parser.add_argument("--count-worker", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker)
        return
    if args.count_worker:
        path, kind, name, part = args.count_worker
        count_worker(path, kind, name, part == "work")
        return
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="omerta-replay-") as tmp:
        tmp_path = pathlib.Path(tmp)
        scripts_path = tmp_path / "scripts.json"
        texts = scripts(args.games, args.seed)
        scripts_path.write_text(json.dumps(texts))
        if args.instructions:
            trees = [("current", ROOT)]
            if args.baseline:
                trees.append((f"baseline {args.baseline}", baseline_tree(args.baseline, tmp_path)))
            count(args, trees, str(scripts_path))
            return
        workers = [Worker("current", ROOT, str(scripts_path))]
        if args.baseline:
            tree = baseline_tree(args.baseline, tmp_path)
            workers.append(Worker(f"baseline {args.baseline}", tree, str(scripts_path)))
        results: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
        try:
            for rep in range(args.reps + 1):  # repetition 0 warms up, untimed
                for kind in KINDS:
                    for name in RULESETS:
                        for w in order(rep, workers):
                            result = w.run(kind, name)
                            if rep:
                                results.setdefault((w.label, kind, name), []).append(result)
        finally:
            for w in workers:
                w.close()
    load_after = os.getloadavg()
    report(args, texts, workers, results, load_before, load_after)


def report(
    args: argparse.Namespace,
    texts: dict[str, list[str]],
    workers: list[Worker],
    results: dict[tuple[str, str, str], list[dict[str, Any]]],
    load_before: tuple[float, float, float],
    load_after: tuple[float, float, float],
) -> None:
    current = workers[0].label
    print(
        f"games per ruleset {args.games}, repetitions {args.reps},"
        f" load average {load_before[0]:.1f} before, {load_after[0]:.1f} after"
    )
    for name in RULESETS:
        steps = sum(len(t.splitlines()) - 1 for t in texts[name]) / len(texts[name])
        print(
            f"{name}: {steps:.1f} steps per game,"
            f" {results[(current, 'replay', name)][0]['events'] / args.games:.1f} events"
        )
    for kind in KINDS:
        unit = "games/s" if kind == "replay" else "steps/s"
        for name in RULESETS:
            line = f"{kind:7} {name:8}"
            mine = results[(current, kind, name)]
            line += f" current {statistics.median(rate(r, kind) for r in mine):>10,.0f} {unit}"
            for w in workers[1:]:
                theirs = results[(w.label, kind, name)]
                ratios = [rate(a, kind) / rate(b, kind) for a, b in zip(mine, theirs)]
                line += (
                    f"  {w.label} {statistics.median(rate(r, kind) for r in theirs):>10,.0f}"
                    f"  ratio {statistics.median(ratios):.2f}"
                    f" ({min(ratios):.2f}-{max(ratios):.2f})"
                )
                if kind == "replay":
                    same = {r["digest"] for r in mine} == {r["digest"] for r in theirs}
                    line += "  same JSON" if same else "  JSON DIFFERS"
            print(line)


if __name__ == "__main__":
    main()
