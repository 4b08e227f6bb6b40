"""Table scripts (docs/scripts.md): parse a game record and play it on a virtual
clock. The same code replays a live table's record after a restart."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from json.scanner import make_scanner
from typing import Any

import orjson

from . import rulesets
from .table import (
    Action,
    Event,
    IllegalAction,
    State,
    Timeout,
    advance,
    apply,
    new_game,
)
from .table.actions import ACTIONS, arg_names, parser
from .table.errors import BadSettings
from .table.events import wire_time
from .table.random_play import random_game

HEADER_KEYS = {"ruleset", "settings", "seed", "deal", "bots", "stand_ins"}
LINE_KEYS = {"seat", "do", "at", "t", "seconds"}
#: every action's arguments, from the actions themselves (the rulesets are loaded above)
ARG_KEYS = {name: set(arg_names(name)) for name in ACTIONS}
TAIL_DEADLINES = 200
_AT = re.compile(r"(day|night)([1-9][0-9]{0,5})")
_SEAT_KEY = re.compile(r"[0-9]{1,6}")
#: A script needs three levels (header, settings, a map of turn timers);
#: anything much deeper is not a script (docs/scripts.md: absurd nesting).
MAX_DEPTH = 16
#: Digits of an integer: a 64-bit seed fits; a 5,000-digit number does not.
MAX_DIGITS = 20
#: Characters of a number with a fraction or an exponent.
MAX_FLOAT_TEXT = 40
#: `t` and a wait's `seconds` (about 30 years of game time).
MAX_SECONDS = 1e9
#: A refusal is one line of at most this many characters.
MAX_MESSAGE = 400


class ScriptError(Exception):
    """A malformed script, or an action that can never become legal. Its
    text is one printable line, whatever the script held."""

    def __init__(self, line: int, message: str):
        super().__init__(f"line {line}: {one_line(message)}")
        self.line = line


def one_line(message: str) -> str:
    """Escape what could break or hide the line (newlines, U+2028, lone
    surrogates, control characters) and cut what is absurdly long."""
    text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in message)
    return text if len(text) <= MAX_MESSAGE else text[:MAX_MESSAGE] + "..."


class _NotStrictJson(ValueError):
    """A number or constant that strict JSON, or a script, cannot hold."""


def _constant(name: str) -> Any:
    raise _NotStrictJson(f"{name} is not JSON (strict JSON has no NaN or Infinity)")


def _integer(text: str) -> int:
    if len(text) > MAX_DIGITS and len(text.lstrip("-")) > MAX_DIGITS:
        raise _NotStrictJson(f"a {len(text.lstrip('-'))}-digit number is too large")
    return int(text)


def _float(text: str) -> float:
    value = float(text) if len(text) <= MAX_FLOAT_TEXT else math.inf
    if not math.isfinite(value):
        shown = text if len(text) <= 20 else text[:20] + "..."
        raise _NotStrictJson(f"the number {shown} is too large")
    return value


#: One decoder for every line (`json.loads` with hooks builds a new one per
#: call), its scanner called directly as `JSONDecoder.decode` calls it.
_SCAN = make_scanner(
    json.JSONDecoder(  # type: ignore[arg-type]  # typeshed wants a scanner; json passes a decoder
        parse_constant=_constant, parse_int=_integer, parse_float=_float
    )
)
_SPACE = " \t\n\r"  # JSON's whitespace


#: Each byte that may be part of a JSON number as "0", every other as " ".
_NUMBER_BYTES = bytes(0x30 if i in b"0123456789.eE+-" else 0x20 for i in range(256))
_LONG_RUN = b"0" * 19
#: What `_has_deep_line` keeps of a script: its opening brackets, each as
#: "{", and its ends of lines; and a line's run of too many of them.
_AS_BRACE = bytes(0x7B if i in b"{[" else i for i in range(256))
_NOT_OPENING = bytes(i for i in range(256) if i not in b"{[\n")
_DEEP_RUN = b"{" * (MAX_DEPTH + 1)


def _has_long_number(data: bytes) -> bool:
    """Whether a run of 19 characters that may make up a JSON number stands
    in `data` (text in UTF-8): a number that orjson might read differently
    from the hooks above (a 20-digit integer past 64 bits becomes a float
    there; a number text longer than MAX_FLOAT_TEXT is refused here) may be
    in it. As bytes (a character past ASCII is never part of a number), a
    tenth of the cost of a regular expression, which looked at every
    character in Python's matcher."""
    return _LONG_RUN in data.translate(_NUMBER_BYTES)


def _has_deep_line(data: bytes) -> bool:
    """Whether a line of `data` (text in UTF-8, in which no other character
    holds the byte of a newline) has more than MAX_DEPTH opening brackets:
    only such a line can nest too deep. One translation and one search,
    half the cost of splitting the brackets into lines to count them."""
    return _DEEP_RUN in data.translate(_AS_BRACE, _NOT_OPENING)


def _decode(raw_line: str) -> Any:
    """`json.loads(raw_line)` with the hooks above, and its errors.

    orjson reads a line about three times faster than `json` with Python
    hooks for every number; it refuses what they refuse (NaN, infinite
    numbers, lone surrogates, a byte order mark, control characters), and
    without a long number it reads every other line to the same value.
    Whatever it refuses is read again here, for the same error."""
    if not _has_long_number(raw_line.encode("utf-8", "surrogatepass")):
        try:
            return orjson.loads(raw_line)
        except orjson.JSONDecodeError:
            pass
    if raw_line.startswith("\ufeff"):
        raise json.JSONDecodeError("Unexpected UTF-8 BOM (decode using utf-8-sig)", raw_line, 0)
    try:
        value, end = _SCAN(raw_line, len(raw_line) - len(raw_line.lstrip(_SPACE)))
    except StopIteration as e:
        raise json.JSONDecodeError("Expecting value", raw_line, e.value) from None
    rest = raw_line[end:]
    if rest.strip(_SPACE):
        raise json.JSONDecodeError(
            "Extra data", raw_line, end + len(rest) - len(rest.lstrip(_SPACE))
        )
    return value


def _loads(number: int, raw_line: str) -> Any:
    """Strict JSON: no NaN or Infinity, no absurd numbers or nesting."""
    try:
        value = _decode(raw_line)
    except json.JSONDecodeError as e:
        raise ScriptError(number, f"not valid JSON: {e.msg} (column {e.colno})") from None
    except _NotStrictJson as e:
        raise ScriptError(number, f"not valid JSON: {e}") from None
    except RecursionError:
        raise ScriptError(number, f"not a script line: nested more than {MAX_DEPTH} deep") from None
    # Only a line with more than MAX_DEPTH brackets can be nested that deep.
    if raw_line.count("{") + raw_line.count("[") > MAX_DEPTH and _too_deep(value):
        raise ScriptError(number, f"not a script line: nested more than {MAX_DEPTH} deep")
    return value


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            if depth > MAX_DEPTH:
                return True
            children = item.values() if isinstance(item, dict) else item
            stack.extend((child, depth + 1) for child in children)
    return False


def decode(data: bytes) -> str:
    """A script file's bytes as text; invalid UTF-8 is refused naming its line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        start = data.rfind(b"\n", 0, e.start) + 1
        raise ScriptError(
            data.count(b"\n", 0, e.start) + 1,
            f"not UTF-8 text (byte {data[e.start]:#04x} at byte column {e.start - start + 1})",
        ) from None


@dataclass(frozen=True, slots=True)
class Header:
    ruleset: str = "classic"
    settings: dict[str, Any] = field(default_factory=dict)
    seed: int | str = 0
    deal: dict[int, str] | None = None
    bots: tuple[int, ...] = ()
    stand_ins: tuple[int, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ruleset": self.ruleset,
            "settings": self.settings,
            "seed": self.seed,
        }
        if self.deal is not None:
            out["deal"] = {str(k): v for k, v in self.deal.items()}
        if self.bots:
            out["bots"] = list(self.bots)
        if self.stand_ins:
            out["stand_ins"] = list(self.stand_ins)
        return out


@dataclass(slots=True)  # not frozen: a frozen init costs a tenth of parsing
class Line:
    number: int
    action: Action | None  # None: a wait
    seconds: float | None = None  # for a wait
    t: float | None = None
    at: tuple[str, int] | None = None


@dataclass(slots=True)
class Script:
    header: Header
    lines: list[Line]
    header_line: int = 1


def parse(text: str) -> Script:
    header: Header | None = None
    header_line = 1
    lines: list[Line] = []
    # One look for long numbers and deep nesting in the whole text instead of
    # one a line.
    data = text.encode("utf-8", "surrogatepass")
    long_numbers = _has_long_number(data)
    shallow = not _has_deep_line(data)
    t: Any  # a line's time: a number once its type test passes
    # JSON lines end at "\n" only: U+2028 and friends may stand inside a string.
    for number, raw_line in enumerate(text.split("\n"), 1):
        raw = None
        # Most lines: no long number, too few brackets to nest too deep, and
        # JSON that orjson reads (see _decode); the rest takes the long way.
        if not long_numbers and (shallow or raw_line.count("{") + raw_line.count("[") <= MAX_DEPTH):
            try:
                raw = orjson.loads(raw_line)
            except orjson.JSONDecodeError:
                raw = None
        if raw is None:
            if not raw_line.strip():
                continue
            raw = _loads(number, raw_line)
        if not isinstance(raw, dict):
            raise ScriptError(number, "each line must be a JSON object")
        if header is None:
            header, header_line = _header(number, raw), number
            continue
        # Every line of a record has a time: read here once, as `_number`
        # would, for a fired timeout (most lines) and for `_line`.
        t = raw.get("t")
        if not (type(t) in _TIMES and 0 <= t <= MAX_SECONDS):
            t = _UNREAD
        elif len(raw) == 2 and raw.get("do") == "wait":  # a fired timeout, as `_line` would read it
            lines.append(Line(number, None, None, t, None))
            continue
        lines.append(_line(number, raw, t))
    if header is None:
        raise ScriptError(1, "the script is empty: the first line must be the header")
    return Script(header, lines, header_line)


def _header(number: int, raw: dict[str, Any]) -> Header:
    unknown = set(raw) - HEADER_KEYS
    if unknown:
        raise ScriptError(
            number,
            f"unknown header field(s) {', '.join(sorted(unknown))};"
            f" the header has {', '.join(sorted(HEADER_KEYS))}",
        )
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
    bots, stand_ins = (_seats(number, raw, key) for key in ("bots", "stand_ins"))
    return Header(raw["ruleset"], settings, seed, deal, bots, stand_ins)


def _seats(number: int, raw: dict[str, Any], key: str) -> tuple[int, ...]:
    seats = raw.get(key, [])
    if not isinstance(seats, list) or not all(
        isinstance(b, int) and not isinstance(b, bool) for b in seats
    ):
        raise ScriptError(number, f"header '{key}' must be a list of seat numbers")
    return tuple(seats)


def _seat_key(number: int, key: str) -> int:
    if not _SEAT_KEY.fullmatch(key):
        raise ScriptError(number, f"deal key {key!r} is not a seat number")
    return int(key)


#: the types of a number of seconds (a bool is not one)
_TIMES = (int, float)


def _number(number: int, raw: dict[str, Any], key: str) -> float | None:
    value = raw.get(key)
    if value is None:
        return None
    if type(value) in _TIMES and 0 <= value <= MAX_SECONDS:  # most lines: no more to check
        return value
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not 0 <= value <= MAX_SECONDS
    ):
        raise ScriptError(
            number,
            f"'{key}' must be a number of seconds from 0 to {MAX_SECONDS:.0e}, got {value!r}",
        )
    return value


#: the fields a line of each action (or a wait) may have
ALLOWED = {"wait": LINE_KEYS} | {
    name: (LINE_KEYS | args) - {"seconds"} for name, args in ARG_KEYS.items()
}
#: each action's parser: `_line` has checked the line is an object with a
#: known `do`, so it skips `parse_action`'s own checks (a line at a time)
PARSERS = {name: parser(name) for name in ACTIONS}


#: A line's time that `parse` did not read (absent, or not a plain number)
_UNREAD: Any = object()


def _line(number: int, raw: dict[str, Any], t: Any) -> Line:
    """One line after the header; `t` its time, or _UNREAD."""
    do: Any = raw.get("do")  # a str once ALLOWED knows it
    allowed = ALLOWED.get(do) if isinstance(do, str) else None
    if allowed is None:
        known = ", ".join(sorted([*ACTIONS, "wait"]))
        raise ScriptError(number, f"unknown action {do!r}; known: {known}")
    if not allowed.issuperset(raw):
        unknown = raw.keys() - allowed
        raise ScriptError(number, f"unknown field(s) {', '.join(sorted(unknown))} for {do!r}")
    at = raw.get("at")
    if at is not None:
        match = _AT.fullmatch(at) if isinstance(at, str) else None
        if match is None:
            raise ScriptError(number, f'\'at\' must look like "day2" or "night3", got {at!r}')
        at = (match.group(1), int(match.group(2)))
    if t is _UNREAD:
        t = _number(number, raw, "t")
    if do == "wait":
        if "seat" in raw:
            raise ScriptError(number, "a wait has no 'seat'")
        seconds = _number(number, raw, "seconds")
        return Line(number, None, seconds, t, at)
    try:
        action = PARSERS[do](raw, None)
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


def _period_name(period: int) -> str:
    if period == 0:
        return "the draw"
    return f"night{(period + 1) // 2}" if period % 2 else f"day{period // 2}"


_TIMEOUT = Timeout()


class Player:
    """Plays script lines on a virtual clock, collecting every event.
    `state` is the game as it stands, changed in place by each step
    (`State.clone` keeps a copy)."""

    def __init__(
        self,
        header: Header,
        on_event: Callable[[Event], None] | None = None,
        header_line: int = 1,
    ):
        try:
            ruleset = rulesets.get(header.ruleset)
            self.state, events = new_game(
                ruleset, header.settings, header.seed, header.deal, header.bots, header.stand_ins
            )
        except BadSettings as e:
            raise ScriptError(header_line, str(e)) from None
        except IllegalAction as e:
            raise ScriptError(header_line, e.message) from None
        self.clock = 0.0
        self.events: list[Event] = []
        self.on_event = on_event
        self._take(events)

    def _take(self, events: list[Event]) -> None:
        self.events += events
        on_event = self.on_event
        if on_event is not None:
            for event in events:
                on_event(event)

    def _fire_next(self, due: float | None = None) -> bool:
        """Fire the next deadline (`due`, when the caller has just read it)."""
        if due is None:
            due = self.state.next_deadline
            if due is None:
                return False
        self.state, events = apply(self.state, _TIMEOUT, due, in_place=True)
        self.clock = due
        self._take(events)
        return True

    def _run_to(self, t: float) -> float | None:
        """Deadlines strictly before `t` fire; an action at `t` comes first.
        Returns the next deadline after that."""
        due = self.state.next_deadline
        if due is not None and due < t:  # most lines have nothing to fire
            self.state, events = advance(self.state, t, in_place=True)
            self._take(events)
            due = self.state.next_deadline
        if t > self.clock:  # max(self.clock, t) without the call
            self.clock = t
        return due

    def play(self, line: Line) -> None:
        t, at, action = line.t, line.at, line.action
        due = None
        if t is not None:
            if t < self.clock:
                raise ScriptError(line.number, f"t={t} is before the clock ({self.clock})")
            due = self._run_to(t)
            if at is not None:
                self._check_at_t(line.number, at, t)
        if at is not None:
            self._reach(line.number, at)
            due = None  # the deadlines may have moved on
        if action is not None:
            self._act(line, action)
        elif line.seconds is not None:
            self._run_to(self.clock + line.seconds)
        else:
            self._fire_next(due)

    def _check_at_t(self, number: int, at_limit: tuple[str, int], t: float) -> None:
        """docs/scripts.md: with `t`, only deadlines strictly before `t` fire,
        so the `at` period must already be the current one at `t`."""
        goal, now = _at_period(at_limit), _period(self.state)
        if now == goal and not self.state.over:
            return
        at = f"{at_limit[0]}{at_limit[1]}"
        if self.state.over:
            where = "the game is over"
        elif now < goal:
            where = f"{at} has not begun (it is {_period_name(now)})"
        else:
            where = f"{at} has already passed (it is {_period_name(now)})"
        raise ScriptError(number, f"cannot act at {at} at t={t}: {where}")

    def _reach(self, number: int, at: tuple[str, int]) -> None:
        goal = _at_period(at)
        while _period(self.state) < goal and not self.state.over:
            if not self._fire_next():
                break
        if _period(self.state) != goal:
            where = "the game ended" if self.state.over else "it has already passed"
            raise ScriptError(number, f"cannot act at {at[0]}{at[1]}: {where}")

    def _act(self, line: Line, action: Action) -> None:
        while True:
            try:
                self.state, events = apply(self.state, action, self.clock, in_place=True)
                self._take(events)
                return
            except IllegalAction as e:
                refusal = e
            if line.t is not None:
                raise ScriptError(
                    line.number,
                    f"{action.name} by seat {action.seat} is not legal at t={line.t}: {refusal}",
                )
            if refusal.rule == "C1":  # no such seat: waiting cannot help
                raise ScriptError(
                    line.number,
                    f"{action.name} by seat {action.seat} can never be legal: {refusal}",
                )
            if not self._fire_next() or self.state.over:
                raise ScriptError(
                    line.number,
                    f"{action.name} by seat {action.seat} never became"
                    f" legal before the game ended: {refusal}",
                )
            if line.at is not None and _period(self.state) != _at_period(line.at):
                raise ScriptError(
                    line.number,
                    f"{action.name} by seat {action.seat} never became"
                    f" legal in {line.at[0]}{line.at[1]}: {refusal}",
                )

    def finish(self, limit: int = TAIL_DEADLINES) -> None:
        """docs/scripts.md: after the last line, run until the end or 200 deadlines."""
        for _ in range(limit):
            if self.state.over or not self._fire_next():
                return


def replay(source: str | bytes, on_event: Callable[[Event], None] | None = None) -> Player:
    """Play a whole script (text, or a file's bytes) and run on to the end."""
    script = parse(decode(source) if isinstance(source, bytes) else source)
    player = Player(script.header, on_event, script.header_line)
    for line in script.lines:
        player.play(line)
    player.finish()
    return player


def record_line(action: Action | None, t: float) -> dict[str, Any]:
    """One line of a live table's record: an action, or a fired timeout as a
    wait, each with its exact time so the record replays exactly."""
    out: dict[str, Any] = action.to_dict() if action is not None else {"do": "wait"}
    out["t"] = wire_time(t)
    return out


def random_script(ruleset: str, seed: int) -> list[str]:
    """A game of random legal moves (`random_game`) as a script's lines, the
    header first. In city mode every seat may act at each moment, so the
    night roles act in most of their turns."""
    _, _, played, _ = random_game(
        seed, ruleset=rulesets.get(ruleset), every_seat=ruleset != "classic"
    )
    lines = [json.dumps(Header(ruleset, {}, seed).to_dict())]
    lines += [
        json.dumps(record_line(step if isinstance(step, Action) else None, t)) for t, step in played
    ]
    return lines
