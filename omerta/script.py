"""Table scripts (SCRIPTS.md): parse a game record and play it on a virtual
clock. The same code replays a live table's record after a restart."""
from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable

from . import rulesets
from .table import Action, Event, IllegalAction, State, Timeout, advance, apply, new_game
from .table.actions import ACTIONS, parse_action
from .table.errors import BadSettings
from .table.events import wire_time

HEADER_KEYS = {"ruleset", "settings", "seed", "deal", "bots"}
LINE_KEYS = {"seat", "do", "at", "t", "seconds"}
ARG_KEYS = {"pick": {"card"}, "nominate": {"target"}, "vote": {"target"}, "lift": {"yes"},
            "shoot": {"target"}, "check": {"target"}, "tech_call": {"kind", "target"},
            "tech_vote": {"yes"}, "visit": {"target"}, "kill": {"target"}, "heal": {"target"}}
TAIL_DEADLINES = 200
_AT = re.compile(r"^(day|night)([1-9][0-9]*)$")


class ScriptError(Exception):
    """A malformed script, or an action that can never become legal."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {message}")
        self.line = line


@dataclass(frozen=True, slots=True)
class Header:
    ruleset: str = "classic"
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | str = 0
    deal: dict[int, str] | None = None
    bots: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"ruleset": self.ruleset, "settings": self.settings, "seed": self.seed}
        if self.deal is not None:
            out["deal"] = {str(k): v for k, v in self.deal.items()}
        if self.bots:
            out["bots"] = list(self.bots)
        return out


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    action: Action | None          # None: a wait
    seconds: float | None = None   # for a wait
    t: float | None = None
    at: tuple[str, int] | None = None


@dataclass(slots=True)
class Script:
    header: Header
    lines: list[Line]


def parse(text: str) -> Script:
    header: Header | None = None
    lines: list[Line] = []
    for number, raw_line in enumerate(text.splitlines(), 1):
        if not raw_line.strip():
            continue
        try:
            raw = json.loads(raw_line)
        except json.JSONDecodeError as e:
            raise ScriptError(number, f"not valid JSON: {e.msg} (column {e.colno})") from None
        if not isinstance(raw, dict):
            raise ScriptError(number, "each line must be a JSON object")
        if header is None:
            header = _header(number, raw)
        else:
            lines.append(_line(number, raw))
    if header is None:
        raise ScriptError(1, "the script is empty: the first line must be the header")
    return Script(header, lines)


def _header(number: int, raw: dict[str, Any]) -> Header:
    unknown = set(raw) - HEADER_KEYS
    if unknown:
        raise ScriptError(number, f"unknown header field(s) {', '.join(sorted(unknown))};"
                                  f" the header has {', '.join(sorted(HEADER_KEYS))}")
    if "ruleset" not in raw:
        raise ScriptError(number, "the header needs 'ruleset' (e.g. \"classic\")")
    settings = raw.get("settings", {})
    if not isinstance(settings, dict):
        raise ScriptError(number, "header 'settings' must be an object")
    seed = raw.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, str)):
        raise ScriptError(number, f"header 'seed' must be an integer or a string, got {seed!r}")
    deal = raw.get("deal")
    if deal is not None:
        if not isinstance(deal, dict):
            raise ScriptError(number, "header 'deal' must map seats to roles")
        deal = {_seat_key(number, k): v for k, v in deal.items()}
    bots = raw.get("bots", [])
    if not isinstance(bots, list) or not all(isinstance(b, int) and not isinstance(b, bool)
                                             for b in bots):
        raise ScriptError(number, "header 'bots' must be a list of seat numbers")
    return Header(raw["ruleset"], settings, seed, deal, tuple(bots))


def _seat_key(number: int, key: str) -> int:
    try:
        return int(key)
    except ValueError:
        raise ScriptError(number, f"deal key {key!r} is not a seat number") from None


def _number(number: int, raw: dict[str, Any], key: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
        raise ScriptError(number, f"'{key}' must be a non-negative number of seconds, got {value!r}")
    return value


def _line(number: int, raw: dict[str, Any]) -> Line:
    do = raw.get("do")
    if do not in ACTIONS and do != "wait":
        known = ", ".join(sorted([*ACTIONS, "wait"]))
        raise ScriptError(number, f"unknown action {do!r}; known: {known}")
    allowed = LINE_KEYS | ARG_KEYS.get(do, set())
    if do != "wait":
        allowed = allowed - {"seconds"}
    unknown = set(raw) - allowed
    if unknown:
        raise ScriptError(number, f"unknown field(s) {', '.join(sorted(unknown))} for {do!r}")
    at = raw.get("at")
    if at is not None:
        match = _AT.match(at) if isinstance(at, str) else None
        if match is None:
            raise ScriptError(number, f"'at' must look like \"day2\" or \"night3\", got {at!r}")
        at = (match.group(1), int(match.group(2)))
    t = _number(number, raw, "t")
    if do == "wait":
        if "seat" in raw:
            raise ScriptError(number, "a wait has no 'seat'")
        seconds = _number(number, raw, "seconds")
        return Line(number, None, seconds, t, at)
    try:
        action = parse_action(raw)
    except IllegalAction as e:
        raise ScriptError(number, e.message) from None
    return Line(number, action, None, t, at)


def _period(state: State) -> int:
    """Draw 0, night N at 2N-1, day N at 2N: the order of `at` limits."""
    if state.stage in ("draw",):
        return 0
    if state.stage in ("meeting", "night"):
        return 2 * state.night - 1
    return 2 * state.day


def _at_period(at: tuple[str, int]) -> int:
    kind, n = at
    return 2 * n - 1 if kind == "night" else 2 * n


class Player:
    """Plays script lines on a virtual clock, collecting every event."""

    def __init__(self, header: Header, on_event: Callable[[Event], None] | None = None,
                 header_line: int = 1):
        try:
            ruleset = rulesets.get(header.ruleset)
            self.state, events = new_game(ruleset, header.settings, header.seed, header.deal,
                                          header.bots)
        except BadSettings as e:
            raise ScriptError(header_line, str(e)) from None
        except IllegalAction as e:
            raise ScriptError(header_line, e.message) from None
        self.clock = 0.0
        self.events: list[Event] = []
        self.on_event = on_event
        self._take(events)

    def _take(self, events: list[Event]) -> None:
        self.events.extend(events)
        if self.on_event is not None:
            for event in events:
                self.on_event(event)

    def _fire_next(self) -> bool:
        due = self.state.next_deadline
        if due is None:
            return False
        self.state, events = apply(self.state, Timeout(), due)
        self.clock = due
        self._take(events)
        return True

    def _run_to(self, t: float) -> None:
        """Deadlines strictly before `t` fire; an action at `t` comes first."""
        self.state, events = advance(self.state, t)
        self._take(events)
        self.clock = max(self.clock, t)

    def play(self, line: Line) -> None:
        if line.t is not None:
            if line.t < self.clock:
                raise ScriptError(line.number, f"t={line.t} is before the clock ({self.clock})")
            self._run_to(line.t)
        if line.at is not None:
            self._reach(line)
        if line.action is None:
            if line.seconds is not None:
                self._run_to(self.clock + line.seconds)
            else:
                self._fire_next()
            return
        self._act(line)

    def _reach(self, line: Line) -> None:
        goal = _at_period(line.at)
        while _period(self.state) < goal and not self.state.over:
            self._fire_next()
        if _period(self.state) != goal:
            where = "the game ended" if self.state.over else "it has already passed"
            raise ScriptError(line.number, f"cannot act at {line.at[0]}{line.at[1]}: {where}")

    def _act(self, line: Line) -> None:
        action = line.action
        while True:
            try:
                self.state, events = apply(self.state, action, self.clock)
                self._take(events)
                return
            except IllegalAction as e:
                refusal = e
            if line.t is not None:
                raise ScriptError(line.number, f"{action.name} by seat {action.seat} is not legal"
                                               f" at t={line.t}: {refusal}")
            if refusal.rule == "C1":    # no such seat: waiting cannot help
                raise ScriptError(line.number, f"{action.name} by seat {action.seat} can never"
                                               f" be legal: {refusal}")
            if not self._fire_next() or self.state.over:
                raise ScriptError(line.number, f"{action.name} by seat {action.seat} never became"
                                               f" legal before the game ended: {refusal}")
            if line.at is not None and _period(self.state) != _at_period(line.at):
                raise ScriptError(line.number, f"{action.name} by seat {action.seat} never became"
                                               f" legal in {line.at[0]}{line.at[1]}: {refusal}")

    def finish(self, limit: int = TAIL_DEADLINES) -> None:
        """SCRIPTS.md: after the last line, run until the end or 200 deadlines."""
        for _ in range(limit):
            if self.state.over or not self._fire_next():
                return


def replay(text: str, on_event: Callable[[Event], None] | None = None) -> Player:
    script = parse(text)
    player = Player(script.header, on_event)
    for line in script.lines:
        player.play(line)
    player.finish()
    return player


def record_line(action: Action | None, t: float) -> dict[str, Any]:
    """One line of a live table's record: an action, or a fired timeout as a
    wait, each with its exact time so the record replays exactly."""
    out = action.to_dict() if action is not None else {"do": "wait"}
    out["t"] = wire_time(t)
    return out
