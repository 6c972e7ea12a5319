"""Migration 0014 gives every stored report a place for where its page holds the turn's table
(``report.table_at``): NULL on the reports already there, whose mail is then made from the whole page."""

from __future__ import annotations

from alembic import command
from sqlalchemy import create_engine, inspect, text

from pbem.storage import migrations
from tests.cron.conftest import START


def _columns(engine: object) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns("report")}  # type: ignore[arg-type]


def test_migration_0014_adds_the_table_s_place_to_a_database_with_reports(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0013")
    assert "table_at" not in _columns(engine)
    with engine.begin() as conn:
        conn.execute(
            text(
                "INSERT INTO game (id, game_type, engine_version, seed, options_json, created_at, status,"
                " turn, epoch, state_z, state_sha256, grace_seconds, nmr, require_from_match)"
                " VALUES ('old-1', 'pearl-dive', '1', 7, '{}', :at, 'active', 0, 0, :z, 'x', 0, 'wait', :f)"
            ),
            {"at": START, "z": b"", "f": False},
        )
        conn.execute(
            text(
                "INSERT INTO report (game_id, epoch, turn, seat, text_z, html_z, mail_queued)"
                " VALUES ('old-1', 0, 0, 'red', :z, :z, :f)"
            ),
            {"z": b"old", "f": False},
        )
    assert migrations.upgrade(engine) == migrations.head()
    with engine.begin() as conn:
        # the report already there keeps its page and has no place for its table
        assert conn.execute(text("SELECT html_z, table_at FROM report")).one() == (b"old", None)
        conn.execute(
            text(
                "INSERT INTO report (game_id, epoch, turn, seat, text_z, html_z, mail_queued, table_at)"
                " VALUES ('old-1', 0, 1, 'red', :z, :z, :f, :at)"
            ),
            {"z": b"new", "f": False, "at": "123456:198765"},
        )
        places = dict(conn.execute(text("SELECT turn, table_at FROM report ORDER BY turn")).all())
    assert places == {0: None, 1: "123456:198765"}
    # and back: the column goes, the reports stay
    with engine.begin() as conn:
        cfg = migrations.config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0013")
    assert "table_at" not in _columns(engine)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM report")).scalar_one() == 2
    engine.dispose()
