"""Generated table-socket messages (docs/api.md, "Table WebSocket")."""

from __future__ import annotations

from hypothesis import strategies as st

from .generate import STRINGS, TEXT, VALUES, dumps

ACTIONS = [
    "pick",
    "end_speech",
    "nominate",
    "interject",
    "vote",
    "lift",
    "tech_call",
    "tech_vote",
    "shoot",
    "check",
    "visit",
    "kill",
    "heal",
]
SEATS = st.integers(-3, 14) | VALUES

ACTION = st.fixed_dictionaries(
    {"id": STRINGS | st.integers() | VALUES, "do": st.sampled_from(ACTIONS) | STRINGS | VALUES},
    optional={
        "target": SEATS,
        "card": SEATS,
        "yes": st.booleans() | VALUES,
        "kind": st.sampled_from(["foul", "defeat", "removal"]) | VALUES,
        "seat": SEATS,
        "extra": VALUES,
    },
)
CONTROL = st.fixed_dictionaries(
    {"type": st.sampled_from(["resume", "media", "ping"]) | STRINGS | VALUES},
    optional={
        "last": st.integers(-3, 10**12) | VALUES,
        "op": st.sampled_from(["attach", "description", "candidate", "detach"]) | VALUES,
        "pc": STRINGS,
        "description": VALUES,
        "candidate": VALUES,
        "id": STRINGS,
    },
)


def _nested(depth: int, media: bool) -> str:
    head = '{"type": "media", "op": "attach", "x": ' if media else '{"id": "n", "do": "pick", "x": '
    return head + "[" * depth + "]" * depth + "}"


#: (kind, payload): "text" frames and "binary" frames.
FRAMES = st.one_of(
    ACTION.map(lambda m: ("text", dumps(m))),
    CONTROL.map(lambda m: ("text", dumps(m))),
    VALUES.map(lambda v: ("text", dumps(v))),
    TEXT.map(lambda t: ("text", t)),
    st.tuples(ACTION.map(dumps), st.integers(0, 60)).map(lambda p: ("text", p[0][: p[1]])),
    st.tuples(st.integers(1, 12000), st.booleans()).map(lambda p: ("text", _nested(*p))),
    st.sampled_from(
        [
            '{"id": "a", "do": "pick", "card": NaN}',
            '{"id": "a", "card": 1e999}',
            '{"id": "a", "id": "b", "do": "pick"}',
            '{"last": ' + "9" * 5000 + "}",
            '{"type": "resume", "last": 1.5}',
            "\ufeff{}",
            "null",
            '"x"',
            "{" * 3,
            '{"id": "' + "x" * 5000 + '", "do": "pick"}',
            '{"type": "media", "sdp": "' + "x" * 40000 + '"}',
        ]
    ).map(lambda t: ("text", t)),
    st.binary(max_size=200).map(lambda b: ("binary", b)),
)
