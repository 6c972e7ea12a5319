"""The board and component data files (rules file, "Components" and "Board")."""

from __future__ import annotations

import copy

import pytest
import yaml

from games.mare_balticum import board as b


def _raw(name: str) -> dict:
    with (b._DATA / name).open(encoding="utf-8") as fh:
        return yaml.safe_load(fh)


def test_board_has_24_areas_and_5_ports() -> None:
    assert len(b.AREAS) == 24
    assert b.PORTS == ("kobenhavn", "gdansk", "riga", "stockholm", "sankt-peterburg")


def test_board_has_15_shallow_and_9_deep_areas_taking_33_goods() -> None:
    deep = [a.name for a in b.BOARD.areas if a.deep]
    assert len(deep) == 9 and len(b.AREAS) - len(deep) == 15
    assert sum(a.capacity for a in b.BOARD.areas) == 33
    assert set(deep) == {
        "skagerrak", "bornholm", "gdansk-deep", "eastern-gotland", "gotland-deep", "landsort-deep",
        "northern-baltic", "bothnian-sea", "gulf-of-finland-west",
    }  # fmt: skip


def test_adjacency_is_symmetric_and_matches_the_rules_table() -> None:
    for space, neighbours in b.ADJACENT.items():
        for other in neighbours:
            assert space in b.ADJACENT[other], (space, other)
    assert b.ADJACENT["gotland-deep"] == {
        "western-gotland", "eastern-gotland", "irbe-strait", "landsort-deep", "northern-baltic",
    }  # fmt: skip
    assert b.ADJACENT["kobenhavn"] == {"oresund", "arkona"}
    assert b.ADJACENT["bothnian-bay"] == {"bothnian-sea"}


def test_ports_have_eight_demand_slots() -> None:
    assert {p: port.slots for p, port in b.BOARD.ports.items()} == {
        "kobenhavn": (0,), "gdansk": (0, -1), "riga": (0, -1), "stockholm": (0, -1), "sankt-peterburg": (0,),
    }  # fmt: skip


def test_board_order_is_the_rules_table_order() -> None:
    assert b.AREAS[:4] == ("skagerrak", "kattegat", "oresund", "arkona")
    assert b.AREAS[-2:] == ("gulf-of-finland-west", "gulf-of-finland-east")


def test_components_match_the_rules() -> None:
    c = b.COMPONENTS
    assert c.goods == {"salmon": 12, "flatfish": 12, "herring": 12, "cod": 12, "amber": 20}
    assert c.time_tokens == 6 and c.ships == {3: 5, 4: 4, 5: 3}
    assert c.company_tokens == ("x3", "x2", "x1", "x0", "tax")
    assert ("salmon", "herring", "amber", "amber") in c.contracts and len(c.contracts) == 6


def test_asymmetric_adjacency_is_refused() -> None:
    raw = copy.deepcopy(_raw("board.yaml"))
    raw["areas"][0]["adjacent"].append("bothnian-bay")
    with pytest.raises(b.BoardDataError, match="not symmetric"):
        b.load_board(raw)


def test_wrong_depth_count_is_refused() -> None:
    raw = copy.deepcopy(_raw("board.yaml"))
    raw["areas"][1]["depth"] = "D"
    with pytest.raises(b.BoardDataError, match="15 shallow"):
        b.load_board(raw)


def test_missing_area_is_refused() -> None:
    raw = copy.deepcopy(_raw("board.yaml"))
    del raw["areas"][-1]
    with pytest.raises(b.BoardDataError, match="24 areas"):
        b.load_board(raw)


def test_wrong_goods_total_is_refused() -> None:
    raw = copy.deepcopy(_raw("components.yaml"))
    raw["goods"]["amber"] = 19
    with pytest.raises(b.BoardDataError, match="68 goods"):
        b.load_components(raw)
