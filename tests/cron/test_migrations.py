"""Schema changes through alembic: a fresh database, an old one upgraded in place, racing upgraders."""

from __future__ import annotations

import threading
from datetime import timedelta

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import create_engine, inspect, text
from sqlmodel import Session, SQLModel

from pbem.core.codec import pack_json
from pbem.storage import migrations
from pbem.storage.cron_models import ClockRow, NoticeRow
from pbem.storage.models import GameRow, TurnRow
from tests.cron.conftest import START

HEAD = migrations.head()  # the newest revision (each branch adds its own; they are chained at merge)
CRON_TABLES = {"cron_notice", "cron_clock", "cron_tick", "cron_gm_action"}


def _old_game(session: Session) -> None:
    # Core inserts naming only the old columns: the models may have columns an old schema lacks
    _insert(
        session,
        "game",
        dict(
            id="old-1",
            game_type="pearl-dive",
            engine_version="1",
            seed=7,
            options_json="{}",
            created_at=START,
            status="active",
            epoch=0,
            grace_seconds=0,
            nmr="wait",
            require_from_match=False,
            state_z=pack_json({"x": 1}),
            state_sha256="0" * 64,
            turn=3,
            turn_seconds=86400,
            deadline_at=START + timedelta(days=1),
        ),
    )
    _old_seat(session, "red", 0, "r@example.org")
    _insert(
        session,
        "turn",
        dict(
            game_id="old-1",
            epoch=0,
            number=3,
            state_z=pack_json({"x": 1}),
            state_sha256="0" * 64,
            orders_z=pack_json({}),
            by_bot_json="[]",
            events_z=pack_json([]),
            chance_json="[]",
            resolved_at=START,
            undone=False,
        ),
    )
    session.commit()


def _old_seat(session: Session, name: str, position: int, email: str) -> None:
    seat = dict(
        game_id="old-1",
        name=name,
        position=position,
        email=email,
        password_hash="h",
        misses=0,
        abandoned=False,
    )
    _insert(session, "seat", seat)


def _insert(session: Session, table: str, values: dict[str, object]) -> None:
    """An INSERT naming only these columns (no model defaults for columns an old schema lacks)."""
    names = ", ".join(values)
    marks = ", ".join(f":{k}" for k in values)
    session.execute(text(f"insert into {table} ({names}) values ({marks})"), values)


def test_fresh_database_upgrades_to_head(db_url: str) -> None:
    engine = create_engine(db_url)
    assert migrations.current(engine) is None
    assert migrations.upgrade(engine) == migrations.head() == HEAD
    assert CRON_TABLES | {"game", "seat", "turn", "outbox"} <= set(inspect(engine).get_table_names())
    assert migrations.upgrade(engine) == HEAD  # again: nothing to do, no error
    engine.dispose()


def test_old_database_upgrades_in_place_with_its_game(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0001")
    assert not CRON_TABLES & set(inspect(engine).get_table_names())
    with Session(engine) as session:
        _old_game(session)
    migrations.upgrade(engine)
    assert migrations.current(engine) == HEAD
    with Session(engine) as session:
        game = session.get(GameRow, "old-1")
        assert game is not None and game.turn == 3 and game.deadline_at == START + timedelta(days=1)
        assert session.get(TurnRow, 1) is not None
        session.add(ClockRow(game_id="old-1", epoch=0, turn=3))
        notice = NoticeRow(game_id="old-1", epoch=0, turn=4, seat="red", kind="reminder", created_at=START)
        session.add(notice)
        session.commit()
    engine.dispose()


def test_database_made_before_migrations_is_stamped_then_upgraded(db_url: str) -> None:
    engine = create_engine(db_url)
    host_tables = [t for name, t in SQLModel.metadata.tables.items() if name not in CRON_TABLES]
    SQLModel.metadata.create_all(engine, tables=host_tables)  # what the host's connect() did
    with Session(engine) as session:
        _old_game(session)
    assert migrations.current(engine) is None
    assert migrations.upgrade(engine) == HEAD
    with engine.connect() as conn:
        assert conn.execute(text("select count(*) from seat where game_id = 'old-1'")).scalar() == 1
        assert conn.execute(text("select count(*) from cron_notice")).scalar() == 0
    engine.dispose()


def test_hosts_upgrading_at_once_all_reach_head(db_url: str) -> None:
    results: list[str] = []
    errors: list[BaseException] = []

    def run() -> None:
        engine = create_engine(db_url)
        try:
            results.append(migrations.upgrade(engine))
        except BaseException as exc:  # collected for the assertion below
            errors.append(exc)
        finally:
            engine.dispose()

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert results == [HEAD] * 4


def test_head_schema_matches_the_models(db_url: str) -> None:
    # a model changed without a new revision shows here: write the revision (see docs/cron.md)
    engine = create_engine(db_url)
    migrations.upgrade(engine)
    with engine.connect() as conn:
        assert compare_metadata(MigrationContext.configure(conn), SQLModel.metadata) == []
    engine.dispose()


def test_upgrade_to_0003_marks_the_reports_whose_mail_is_queued(db_url: str) -> None:
    engine = create_engine(db_url)
    migrations.upgrade(engine, "0002")
    with Session(engine) as session:
        _old_game(session)  # seat red, with an address
    with Session(engine) as session:
        _old_seat(session, "blue", 1, "")
        _old_seat(session, "green", 2, "g@x.org")
        session.commit()
    with engine.begin() as conn:
        conn.execute(text("insert into observer (game_id, email) values ('old-1', ' Kibitz@Example.org')"))
        reports = [(1, "red"), (2, "red"), (1, "blue"), (1, "green"), (1, ""), (2, "")]
        conn.execute(
            text(
                "insert into report (game_id, epoch, turn, seat, text_z, html_z)"
                " values ('old-1', 0, :t, :s, :z, :z)"
            ),
            [{"t": t, "s": s, "z": b"x"} for t, s in reports],
        )
        mailed = ["report:old-1:0:1:red", "report:old-1:0:1:observer=kibitz@example.org"]
        conn.execute(
            text(
                "insert into outbox (dedupe_key, to_addr, subject, message_z, created_at, status, attempts)"
                " values (:k, 'a@x.org', 's', :z, :at, 'sent', 1)"
            ),
            [{"k": k, "z": b"m", "at": START} for k in mailed],
        )
    assert migrations.upgrade(engine) == HEAD
    with engine.connect() as conn:
        flags = {
            (turn, seat): bool(queued)
            for turn, seat, queued in conn.execute(text("select turn, seat, mail_queued from report"))
        }
    assert flags == {
        (1, "red"): True,  # its mail is in the outbox
        (2, "red"): False,  # not yet
        (1, "blue"): True,  # no address: nothing to send
        (1, "green"): False,
        (1, ""): True,  # the observer has it
        (2, ""): False,
    }
    engine.dispose()
