"""Tournaments: seating schedules, rounds, standings (issue 18)."""
