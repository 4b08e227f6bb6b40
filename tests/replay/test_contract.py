"""The table-script contract of docs/scripts.md holds: its actions are the
engine's actions with the arguments the script reader takes, and every event
it documents comes out of `omerta replay` with the documented fields."""

from __future__ import annotations

import pathlib
import re

from omerta.script import ARG_KEYS, replay
from omerta.table.actions import ACTIONS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPTS_MD = (ROOT / "docs" / "scripts.md").read_text(encoding="utf-8")
# In the contract, not implemented yet.
PENDING: set[str] = set()


def section(title: str) -> str:
    return SCRIPTS_MD.split(f"\n## {title}")[1].split("\n## ")[0].split("\n### ")[0]


def names(cell: str) -> list[list[str]]:
    """The field or argument names a table cell documents, each as a group of
    alternatives (`day` or `night`); values (`vote`/`revote`, `: black`) and
    remarks in parentheses are not names."""
    cell = re.sub(r"\([^)]*\)", "", cell)
    groups = []
    for m in re.finditer(r"(?<![/`])`(\w+)`(?!/)((?: or `\w+`)*)", cell):
        before = cell[: m.start()].rstrip()
        if not before.endswith((":", "for")):
            groups.append([m.group(1), *re.findall(r"`(\w+)`", m.group(2))])
    return groups


def documented_actions() -> dict[str, set[str]]:
    rows = re.findall(
        r"^\| (`\w+`(?: / `\w+`)*) \| ([^|]*) \|",
        section("Actions"),
        flags=re.MULTILINE,
    )
    out = {}
    for actions, args in rows:
        for action in re.findall(r"`(\w+)`", actions):
            out[action] = {group[0] for group in names(args)}
    return out


def documented_events() -> dict[str, list[list[str]]]:
    rows = re.findall(r"^\| `(\w+)` \| (.*) \|$", section("Events"), flags=re.MULTILINE)
    return {event: names(fields) for event, fields in rows}


def replayed_events() -> list[dict]:
    out = []
    for example in sorted((ROOT / "examples").glob("*.jsonl")):
        out += [e.to_dict() for e in replay(example.read_text(encoding="utf-8")).events]
    return out


def test_the_documented_actions_are_the_engines():
    assert set(documented_actions()) == set(ACTIONS) | PENDING


def test_each_documented_action_takes_exactly_the_documented_arguments():
    for action, args in documented_actions().items():
        if action not in PENDING:
            assert args == ARG_KEYS.get(action, set()), action


def test_the_contract_documents_the_fields_it_promises():
    events = documented_events()
    assert events["phase"] == [["phase"], ["day", "night"], ["seconds"]]
    assert events["votes"] == [["round"], ["ballots"]]
    assert len(events) == 12


def test_every_documented_event_comes_out_of_the_examples_with_its_fields():
    produced = replayed_events()
    for event, groups in documented_events().items():
        if event in PENDING:
            continue
        found = [e for e in produced if e["event"] == event]
        assert found, f"no example produces a {event!r} event"
        for e in found:
            assert "t" in e
            for group in groups:
                assert any(name in e for name in group), (event, group, e)
