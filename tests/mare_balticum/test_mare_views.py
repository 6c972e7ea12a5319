"""What each seat may see (rules file, "What each player may see")."""

from __future__ import annotations

from games.mare_balticum import GAME

from .helpers import position


def secrets():
    state = position(
        options={"contracts": True},
        hold={"red": {"cod": 2}, "blue": {"salmon": 1}},
        warehouse={"red": {"herring": 2}, "blue": {"flatfish": 3, "amber": 1}},
    )
    state.players["blue"].market = {"flatfish": "x3"}
    state.players["blue"].tokens = ["x2", "x1", "x0"]
    state.players["blue"].tax_paid = True
    state.players["blue"].contract = 3
    state.pile.remove(3)
    return state


def test_holds_are_public_and_warehouses_only_counts_for_others() -> None:
    view = GAME.view(secrets(), "red")
    blue = view["players"]["blue"]
    assert blue["hold"] == ["salmon"]
    assert blue["warehouse_count"] == 4 and blue["warehouse"] is None
    assert view["players"]["red"]["warehouse"] == ["herring", "herring"]


def test_company_tokens_only_for_their_owner_but_filled_slots_and_tax_for_all() -> None:
    state = secrets()
    red_view = GAME.view(state, "red")["players"]["blue"]
    assert red_view["market"] is None and red_view["tokens"] is None
    assert red_view["market_filled"] == ["flatfish"] and red_view["tax_played"] is True
    own = GAME.view(state, "blue")["players"]["blue"]
    assert own["market"]["flatfish"] == "x3" and own["tokens"] == ["x2", "x1", "x0"]


def test_contracts_only_for_their_owner() -> None:
    state = secrets()
    assert GAME.view(state, "red")["players"]["blue"] == GAME.view(state, None)["players"]["blue"]
    assert GAME.view(state, "red")["players"]["blue"]["contract"] is None
    assert GAME.view(state, "red")["players"]["blue"]["has_contract"] is True
    assert GAME.view(state, "blue")["players"]["blue"]["contract"]["card"] == 3
    assert GAME.view(state, None)["contract_pile"] == 5


def test_observer_sees_no_secret() -> None:
    view = GAME.view(secrets(), None)
    assert all(p["warehouse"] is None and p["market"] is None for p in view["players"].values())
    assert view["colours"] == {"red": "red", "blue": "blue", "green": "green"}


def test_everything_is_revealed_at_the_end() -> None:
    state = secrets()
    state.phase = "over"
    view = GAME.view(state, None)
    assert view["players"]["blue"]["warehouse"] == ["flatfish", "flatfish", "flatfish", "amber"]
    assert view["players"]["blue"]["contract"]["goods"] == ["salmon", "flatfish", "herring", "cod"]
    assert view["players"]["blue"]["score"]["total"] == 10


def test_views_show_the_board_the_bag_and_the_time_track() -> None:
    state = secrets()
    view = GAME.view(state, None)
    assert len(view["areas"]) == 24 and len(view["ports"]) == 5
    assert view["bag_size"] == 35 + 6 and view["time_in_bag"] == 6 and view["time_track"] == 0
    assert view["ports"][0]["ships"] == ["red", "blue", "green"]  # every seat starts in kobenhavn here
    assert sum(len(a["goods"]) for a in view["areas"]) == 33
