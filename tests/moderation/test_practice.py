"""Which votes are practice is the table's ruleset's answer (A1: a table is
ranked only if its ruleset ranks it with its settings and bot seats): a
city table of ten people is practice as much as a classic one with a bot;
their votes stay out of the queue unless the moderator asks for them."""

from __future__ import annotations

from omerta.moderation.records import record_tech_vote

from .world import accounts, moderator, seat_table, tech_event


async def test_A1_votes_at_unranked_tables_stay_out_of_the_queue_and_say_practice(harness):
    mod = await moderator(harness)
    ranked, city, bot = [await accounts(harness, prefix) for prefix in "rcb"]
    tables = {}
    async with harness.db.begin() as s:
        tables["ranked"] = await seat_table(s, ranked, status="playing")
        tables["city"] = await seat_table(s, city, status="playing", ruleset="city")
        tables["bot"] = await seat_table(s, [*bot[:9], None], status="playing")
        for table_id in tables.values():  # a passed foul at each: a case each
            await record_tech_vote(s, table_id, 4, tech_event("foul", 1, 2, yes=range(1, 7)))
    queue = (await mod.get("/api/moderation/cases")).body["cases"]
    assert [case["vote"]["table"] for case in queue] == [tables["ranked"]]
    everything = (await mod.get("/api/moderation/cases?practice=true")).body["cases"]
    assert {case["vote"]["table"]: case["vote"]["practice"] for case in everything} == {
        tables["ranked"]: False,
        tables["city"]: True,
        tables["bot"]: True,
    }
