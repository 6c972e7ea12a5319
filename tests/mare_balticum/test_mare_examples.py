"""The rulebook's worked examples (shared/seeds/002_4416865070ddf1ca.txt), set up as positions.

The published map is not on record; where an example depends on it, its situation is mapped onto our
board (shared/rules/mare-balticum.md) as each test's docstring says.
"""

from __future__ import annotations

from games.mare_balticum import GAME
from games.mare_balticum.scoring import score

from .helpers import position, rules_error, turn

PURPLE_SEATS = ("purple", "orange", "green")


def test_fleet_move_example() -> None:
    """Példa 1: three ships in a line, one in a port. The port ship may go to the three places ticked
    green; the middle ship may not move (the fleet would break up); the right-hand ship may move, but
    only to the north-west.

    Mapped onto our board: the port ship in gdansk, the middle one on gdansk-bay, the right-hand one on
    curonian-coast (gdansk-deep lies north-west of it). Five players, so three ships each, all out."""
    seats = ("purple", "orange", "green", "black", "red")
    state = position(seats, ships={"purple": ["gdansk-bay", "curonian-coast", "gdansk"]})

    def targets(origin: str) -> set[str]:
        found = set()
        for to in GAME.view(state, None)["areas"] + GAME.view(state, None)["ports"]:
            data = [{"sail": {"from": origin, "to": to["name"]}}]
            model = GAME.order_model(GAME.pending(state)["purple"]).model_validate(data)
            try:
                GAME.check(state, "purple", model)
            except Exception as err:
                assert getattr(err, "code", None) in ("sail.fleet", "sail.own_ship_there"), err
            else:
                found.add(to["name"])
        return found

    # the port ship: the three green ticks
    assert targets("gdansk") == {"gdansk-deep", "eastern-gotland", "irbe-strait"}
    # the middle ship cannot move
    assert targets("gdansk-bay") == set()
    assert (
        rules_error(state, "purple", [{"sail": {"from": "gdansk-bay", "to": "gdansk-deep"}}]).code
        == "sail.fleet"
    )
    # the right-hand ship only to the north-west
    assert targets("curonian-coast") == {"gdansk-deep"}


def test_gdansk_unloading_example() -> None:
    """The orange player sails a ship into Gdańsk, where herring and flatfish are taken. The hold
    holds 5 fish: 2 herring, 1 flatfish and 2 salmon. Unloading moves the herring and the flatfish
    into the warehouse; the salmon stay in the hold until a port that takes salmon.

    Mapped: orange's fleet lies around gdansk (gdansk-deep, gdansk-bay, ...) and sails from
    pomeranian-bay into gdansk."""
    ships = ["pomeranian-bay", "gdansk-deep", "gdansk-bay", "curonian-coast"]
    state = position(
        ("orange", "black", "green", "purple"),
        ships={"orange": ships},
        hold={"orange": {"herring": 2, "flatfish": 1, "salmon": 2}},
        demand={"gdansk": ["herring", "flatfish"]},
    )
    err = rules_error(
        state,
        "orange",
        [
            {"sail": {"from": "pomeranian-bay", "to": "gdansk"}},
            {"unload": {"port": "gdansk", "fish": ["herring", "herring", "flatfish", "salmon"]}},
        ],
    )
    assert err.code == "unload.not_demanded" and err.step == 1
    after, _ = turn(
        state,
        {"sail": {"from": "pomeranian-bay", "to": "gdansk"}},
        {"unload": {"port": "gdansk", "fish": ["herring", "herring", "flatfish"]}},
    )
    orange = after.players["orange"]
    assert orange.warehouse == {"herring": 2, "flatfish": 1}
    assert orange.hold == {"salmon": 2}


def test_gdansk_unloading_example_of_variant_1() -> None:
    """Variant 1: the black player sails to Gdańsk with 3 salmon and 2 herring in the hold. No demand
    token lies in Gdańsk yet, so black chooses: a salmon token on the 0 slot, unloading 3 salmon into
    the warehouse; then a herring token on the -1 slot, unloading 2 herring of which one is discarded.
    From then on Gdańsk takes only salmon and herring. (One unloading action, as in the rulebook:
    `slot: 0` puts the first-named new fish, salmon, on 0 and herring goes on the other slot.)"""
    ships = ["pomeranian-bay", "gdansk-deep", "gdansk-bay", "curonian-coast"]
    state = position(
        ("black", "orange", "green", "purple"),
        options={"demand": "placed"},
        ships={"black": ships},
        hold={"black": {"salmon": 3, "herring": 2}},
    )
    after, _ = turn(
        state,
        {"sail": {"from": "pomeranian-bay", "to": "gdansk"}},
        {
            "unload": {
                "port": "gdansk",
                "fish": ["salmon", "salmon", "salmon", "herring", "herring"],
                "slot": 0,
            }
        },
    )
    black = after.players["black"]
    assert after.demand["gdansk"] == ["salmon", "herring"]
    assert black.warehouse == {"salmon": 3, "herring": 1} and black.hold == {}
    assert after.discarded == {"herring": 1}
    # the same in two unloading actions, naming each slot
    after2, _ = turn(
        state,
        {"sail": {"from": "pomeranian-bay", "to": "gdansk"}},
        {"unload": {"port": "gdansk", "fish": ["salmon", "salmon", "salmon"], "slot": 0}},
        {"unload": {"port": "gdansk", "fish": ["herring", "herring"], "slot": -1}},
    )
    assert GAME.dump_state(after2)["players"] == GAME.dump_state(after)["players"]
    # from now on gdansk takes only salmon and herring
    later = after.copy()
    later.players["black"].hold = {"cod": 2}
    later.turns_done = 0
    assert (
        rules_error(later, "black", [{"unload": {"port": "gdansk", "fish": ["cod", "cod"]}}]).code
        == "unload.no_free_slot"
    )


def test_purple_scoring_example_scores_21() -> None:
    """The purple player turns up the company tokens: salmon 3, herring 2, flatfish 1, cod 0; the
    warehouse holds 3 salmon (9), 4 herring (8), 1 flatfish (1) and 3 amber (3): 21 points. Fish
    still in the hold are lost."""
    state = position(
        PURPLE_SEATS,
        warehouse={"purple": {"salmon": 3, "herring": 4, "flatfish": 1, "amber": 3}},
        hold={"purple": {"cod": 2, "salmon": 1}},
    )
    state.players["purple"].market = {"salmon": "x3", "herring": "x2", "flatfish": "x1", "cod": "x0"}
    sheet = score(state, "purple")
    assert {line["goods"]: line["points"] for line in sheet["lines"]} == {
        "salmon": 9, "herring": 8, "flatfish": 1, "cod": 0, "amber": 3,
    }  # fmt: skip
    assert sheet["total"] == 21 and sheet["hold_lost"] == 3


def test_contract_example_worth_14() -> None:
    """Variant 2: at the end green holds a contract for 1 salmon, 1 herring and 2 amber and sets 8
    goods aside on it: 2 salmon, 2 herring and 4 amber, filling it twice for 14 points. Goods left in
    the warehouse score by the company tokens as usual (here 1 cod at 2)."""
    state = position(
        ("green", "purple", "orange"),
        options={"contracts": True},
        warehouse={"green": {"salmon": 2, "herring": 2, "amber": 4, "cod": 1}},
    )
    green = state.players["green"]
    green.contract = 1  # salmon, herring, amber, amber: the card from the rulebook's example
    green.market = {"salmon": "x1", "herring": "x0", "cod": "x2", "flatfish": "x3"}
    sheet = score(state, "green")
    assert sheet["contract_sets"] == 2 and sheet["contract_points"] == 14
    assert sheet["total"] == 14 + 2


def test_green_fishing_example() -> None:
    """Példa 2: a ship of the green player stands on a space with a salmon token; fishing takes it
    and puts it face up on a free place of the hold. (Mapped: green's ship on bornholm.)"""
    state = position(
        ("green", "purple", "orange"),
        ships={"green": ["gdansk", "gdansk-deep", "bornholm"]},
        board={"bornholm": {"salmon": 1, "amber": 1}},
        hold={"green": {"cod": 2}},
    )
    after, _ = turn(state, {"fish": {"at": "bornholm", "goods": "salmon"}})
    assert after.players["green"].hold == {"cod": 2, "salmon": 1}
    assert after.board["bornholm"] == {"amber": 1}
