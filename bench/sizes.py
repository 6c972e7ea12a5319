"""How big each measurement is: the real figures' sizes, and tiny ones for the quick test."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Sizes:
    engine_games: int = 5  # complete bot games per game type; the median is reported
    pipeline_games: int = 2  # complete Reef Encounter games through the pipeline
    flat_turn_short: int = 20
    flat_turn_long: int = 2000
    flat_window: int = 10  # consecutive turns measured from each point (their contents differ: see flat.py)
    flat_repeats: int = 5  # each window is re-run this many times from a copy of the database
    tick_games: int = 1000
    pg_games: int = 1000
    memory_games: int = 10_000
    memory_due: int = 500  # of those, with a turn due; the others wait for their players' orders
    templates: int = (
        20  # distinct games (seeds) the memory part's fleet is cloned from (the ticks' are all distinct)
    )
    replay_games: int = 5
    mail_turns: int = 60  # turns of a Reef Encounter game through the pipeline with every report mailed
    png_repeats: int = 20  # one board drawn to PNG this many times, the cache left out
    web_clients: int = 50  # connections asking for seats' pages at once
    web_seconds: int = 10  # how long they ask
    web_turns: int = 10  # turns the served game has played
    bot_games: int = 200  # games of each stand-in level against easy seats, per game (bench/bots.py)


FULL = Sizes()
QUICK = Sizes(
    engine_games=1,
    pipeline_games=1,
    flat_turn_short=3,
    flat_turn_long=40,
    flat_window=2,
    flat_repeats=2,
    tick_games=6,
    pg_games=6,
    memory_games=10,
    memory_due=4,
    templates=3,
    replay_games=1,
    mail_turns=3,
    png_repeats=2,
    web_clients=4,
    web_seconds=1,
    web_turns=1,
    bot_games=1,
)
