"""Rules section 3, action 7: algae on the algae space and on coral tiles (locks), and action 6 and 8
exchanges."""

from __future__ import annotations

from typing import Any

from games.reef_encounter.data import TILES
from games.reef_encounter.reef import face

from .conftest import check_invariants, make_state, rejected, turn

TAKE = {"take": "white"}


def alga(pay: str, colour: str, to: str) -> dict[str, Any]:
    return {"algae": {"pay": pay, "colour": colour, "to": to}}


def position(fed: int = 1, **kw: Any):  # -> State
    return make_state(
        fronts={"purple": {"orange": 3, "pink": 1}},
        fish={"purple": {"grey": 1}},
        fed={"purple": fed},
        **kw,
    )


def large(colour: str, state: Any) -> list[str]:
    return sorted(t for t in TILES if t not in state.locks and face(state, t).large == colour)


def test_an_alga_on_the_algae_space_turns_every_unlocked_tile_of_its_large_colour() -> None:
    state = position(fed=0)
    greens = large("green", state)
    assert greens == ["grey-pink", "orange-pink", "white-yellow"]
    after, events = turn(state, [alga("orange", "green", "space"), TAKE])
    assert after.algae_space == "green" and after.algae_supply["green"] == 4
    assert all(after.up[t] is False for t in greens) and after.players["purple"].front["orange"] == 2
    assert all(after.up[t] for t in TILES if t not in greens)
    assert events[0].startswith("purple paid an eaten orange polyp for one green alga on the algae space")


def test_the_token_already_on_the_algae_space_returns_to_the_supply() -> None:
    state = position(fed=0)
    after, _ = turn(state, [alga("orange", "green", "space"), alga("orange", "red", "space"), TAKE])
    assert after.algae_space == "red" and after.algae_supply["green"] == 5 and after.algae_supply["red"] == 4
    check_invariants(after)


def test_locking_a_tile_needs_a_shrimp_on_the_open_sea() -> None:
    err = rejected(position(fed=0), [alga("orange", "purple", "yellow-pink"), TAKE])
    assert (err.code, err.step, err.action) == ("algae.no_key", 0, "7")
    after, _ = turn(position(), [alga("orange", "purple", "yellow-pink"), TAKE])
    assert after.locks == {"yellow-pink": "purple"}


def test_locking_turns_the_other_unlocked_tiles_of_that_large_colour() -> None:
    state = position()
    state.locks["white-grey"] = "red"  # a locked tile never turns
    state.algae_supply["red"] -= 1
    after, _ = turn(state, [alga("orange", "red", "white-orange"), TAKE])
    assert after.up["white-orange"] is True and after.locks["white-orange"] == "red"
    assert after.up["white-grey"] is True
    check_invariants(after)


def test_the_tile_must_show_the_alga_as_its_large_one_and_be_unlocked() -> None:
    err = rejected(position(), [alga("orange", "blue", "yellow-pink"), TAKE])
    assert (err.code, err.action) == ("algae.colour", "7")
    state = position()
    state.locks["yellow-pink"] = "purple"
    state.algae_supply["purple"] -= 1
    err = rejected(state, [alga("orange", "purple", "yellow-pink"), TAKE])
    assert err.code == "algae.locked"


def test_one_lock_per_turn_but_any_number_on_the_algae_space() -> None:
    state = position()
    err = rejected(
        state, [alga("orange", "purple", "yellow-pink"), alga("orange", "red", "white-orange"), TAKE]
    )
    assert (err.code, err.step) == ("algae.one_lock", 1)
    turn(
        state,
        [
            alga("orange", "purple", "yellow-pink"),
            alga("orange", "red", "space"),
            alga("pink", "blue", "space"),
            TAKE,
        ],
    )


def test_an_alga_costs_an_eaten_polyp_and_must_be_in_the_supply() -> None:
    err = rejected(position(), [alga("white", "red", "space"), TAKE])
    assert err.code == "algae.no_eaten"
    state = position()
    state.algae_space = "red"
    state.locks.update(dict.fromkeys(("white-orange", "white-grey", "yellow-orange", "orange-pink"), "red"))
    state.algae_supply["red"] = 0
    check_invariants(state)
    err = rejected(state, [alga("orange", "red", "space"), TAKE])
    assert err.code == "algae.supply"


def test_the_last_lock_needs_two_eaten_polyps_in_the_parrotfish() -> None:
    state = position()
    others = [t for t in TILES if t != "yellow-pink"]
    for t in others:
        state.locks[t] = face(state, t).large
    for a in state.algae_supply:
        state.algae_supply[a] = 5 - sum(v == a for v in state.locks.values())
    check_invariants(state)
    err = rejected(state, [alga("orange", "purple", "yellow-pink"), TAKE])
    assert (err.code, err.action) == ("algae.last_lock", "7")
    state.players["purple"].parrotfish["grey"] = 2
    state.bag["grey"] -= 1
    after, _ = turn(state, [alga("orange", "purple", "yellow-pink")])
    assert after.phase == "final" and after.active == "green"
    assert after.end_reason == "every coral tile is locked by an alga"
    err = rejected(state, [alga("orange", "purple", "yellow-pink"), TAKE])
    assert (err.code, err.step) == ("turn.game_over", 1)


def test_an_eaten_polyp_for_a_larva_cube() -> None:
    state = position()
    after, events = turn(state, [{"larva_for_polyp": "orange"}, TAKE])
    assert after.players["purple"].larvae["orange"] == 1 and after.players["purple"].front["orange"] == 2
    assert events[0] == "purple exchanged an eaten orange polyp for one orange larva cube"
    err = rejected(state, [{"larva_for_polyp": "white"}, TAKE])
    assert (err.code, err.action) == ("exchange.no_eaten", "6")
    state.players["green"].larvae["orange"] = state.larva_supply["orange"]
    state.larva_supply["orange"] = 0
    err = rejected(state, [{"larva_for_polyp": "orange"}, TAKE])
    assert (err.code, err.action) == ("exchange.no_larva", "6")


def test_a_larva_cube_for_a_polyp_from_the_bag() -> None:
    state = make_state(larvae={"purple": {"white": 1}})
    after, _ = turn(state, [{"polyp_for_larva": "white"}, {"take": "pink"}])
    assert after.players["purple"].screen["white"] >= 1 and after.players["purple"].larvae["white"] == 0
    err = rejected(state, [{"polyp_for_larva": "grey"}, TAKE])
    assert (err.code, err.action) == ("exchange.no_larva_cube", "8")
    state.players["green"].screen["white"] += state.bag["white"]
    state.bag["white"] = 0
    err = rejected(state, [{"polyp_for_larva": "white"}, TAKE])
    assert (err.code, err.action) == ("exchange.bag", "8")


def test_the_rulebooks_algae_example() -> None:
    """Hungarian rules p. 10 (Czech "Destičky korálů a žetony řas"): from the setup (starfish side up), a
    blue alga on the algae space turns the blue tiles (1); then a red alga locking a tile turns every
    other unlocked tile showing a large red alga (2), some of them just turned by the blue one."""
    state = position()
    after, _ = turn(state, [alga("orange", "blue", "space"), TAKE])
    ones = sorted(t for t in TILES if not after.up[t])
    assert ones == ["orange-grey", "yellow-grey", "yellow-orange"]
    reds = large("red", after)
    assert reds == ["white-grey", "white-orange", "yellow-grey", "yellow-orange"]
    after.active = "purple"
    final, _ = turn(after, [alga("orange", "red", "white-orange"), TAKE])
    assert final.locks == {"white-orange": "red"} and final.up["white-orange"]
    twos = sorted(t for t in reds if t != "white-orange")
    assert all(final.up[t] != after.up[t] for t in twos)
    assert all(final.up[t] == after.up[t] for t in TILES if t not in twos)
