"""Migration 0011 gives every game a press setting (``private``, a new game's default) and the press
table, keeping the games already there."""

from __future__ import annotations

from sqlalchemy import create_engine, inspect, text

from pbem.storage import migrations
from tests.cron.conftest import START


def test_migration_0011_adds_press_to_a_database_with_a_game(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0010")
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO game (id, game_type, engine_version, seed, options_json, created_at, status,"
                " turn, epoch, state_z, state_sha256, grace_seconds, nmr, require_from_match)"
                " VALUES ('old-1', 'pearl-dive', '1', 7, '{}', :at, 'active', 0, 0, :z, 'x', 0, 'wait', :f)"
            ),
            {"at": START, "z": b"", "f": False},
        )
    migrations.upgrade(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT press FROM game WHERE id = 'old-1'")).scalar_one() == "private"
        assert conn.execute(text("SELECT count(*) FROM press")).scalar_one() == 0
    columns = {c["name"] for c in inspect(engine).get_columns("press")}
    assert {"sender", "recipients_json", "to_all", "turn", "sent_at", "text", "key"} <= columns
    engine.dispose()
