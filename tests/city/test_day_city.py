"""D4 at a city table: after a third interjection the next day speech is 30 s,
whatever the table's day-speech length (M2).

Standard city deal (tests/city/game.py). Seat 10 interjects three times in
seat 1's speech on day 1, so seat 10's own day-1 speech is the short one."""

import pytest

from .game import CityTable

INTERJECTOR = 10


def day_speeches(t: CityTable, seat: int) -> list[tuple[int, float]]:
    """(day, seconds granted) of each day speech by `seat`."""
    out = []
    day = 0
    for e in (event.to_dict() for event in t.events):
        if e["event"] == "phase" and "day" in e:
            day = e["day"]
        if e["event"] == "speech" and e["seat"] == seat and e["kind"] == "day":
            out.append((day, e["seconds"]))
    return out


def three_interjections(speech_seconds: int) -> CityTable:
    t = CityTable(settings={"speech_seconds": speech_seconds})
    t.to_speech(1)
    for _ in range(3):
        t.interject(INTERJECTOR).wait()  # the interjection's 5 s end
    assert t.view(INTERJECTOR)["seats"][INTERJECTOR - 1]["interjections"] == 0
    return t


@pytest.mark.parametrize("speech_seconds", [45, 90])
def test_D4_M2_after_the_third_interjection_the_next_day_speech_is_30_seconds(
    speech_seconds,
):
    t = three_interjections(speech_seconds)
    t.to_speech(INTERJECTOR)
    assert t.last("speech") == {
        "event": "speech",
        "t": t.clock,
        "seat": INTERJECTOR,
        "seconds": 30,
        "kind": "day",
    }


@pytest.mark.parametrize("speech_seconds", [45, 90])
def test_D4_M2_the_short_speech_ends_after_30_seconds(speech_seconds):
    t = three_interjections(speech_seconds).to_speech(INTERJECTOR)
    start = t.clock
    t.wait()
    assert t.clock == start + 30
    assert t.last("speech_end") == {
        "event": "speech_end",
        "t": start + 30,
        "seat": INTERJECTOR,
        "early": False,
    }


@pytest.mark.parametrize("speech_seconds", [30, 45, 90])
def test_D4_M2_only_that_speech_is_short_the_others_keep_the_tables_length(
    speech_seconds,
):
    t = three_interjections(speech_seconds)
    t.to_day(2).to_speech(INTERJECTOR)
    assert day_speeches(t, INTERJECTOR) == [(1, 30), (2, speech_seconds)]
    assert {s for _, s in day_speeches(t, 1)} == {speech_seconds}
