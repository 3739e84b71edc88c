"""Bounds of the numeric options (docs/options.md): each bound is accepted, one past it is
refused with a stable code, and the largest hand they allow settles on SQLite and PostgreSQL.

Every test that takes ``url`` or ``store`` runs on a SQLite file and on a fresh database of
the PostgreSQL server the test session starts (as in test_store.py; never skipped).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from starlette.testclient import TestClient

from xuezhan.bots import make_bot
from xuezhan.cli import main
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import SeatView
from xuezhan.errors import RulesError
from xuezhan.match import (
    MAX_COEFFICIENT,
    MAX_FEE,
    MAX_HANDS,
    BystanderBet,
    HandResult,
    Match,
    MatchError,
    RoomConfig,
    Transfer,
)
from xuezhan.match.room import (
    SeatLoss,
    worst_case_coins,
    worst_case_escape,
    worst_case_multiple,
    worst_case_payments,
    worst_case_points,
    worst_case_seat,
    worst_case_seat_loss,
)
from xuezhan.rules import BASE_PATTERNS, EXTRAS, MAX_BASE_SCORE, MAX_FAN, MAX_MULTIPLE, Rules, max_fan
from xuezhan.runtime import HandDriver, Seat
from xuezhan.scoring import ESCAPE_MULTIPLE, hand_points
from xuezhan.server import ServerConfig, create_app
from xuezhan.store import Store

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

INT64_MAX = 2**63 - 1


def code_of(exc: pytest.ExceptionInfo[Any]) -> str:
    return str(exc.value.code)


# --- the bounds themselves --------------------------------------------------------------------------------


def test_the_documented_bounds() -> None:
    assert (MAX_BASE_SCORE, MAX_FAN, MAX_MULTIPLE) == (1000, 20, 2**19)
    assert (MAX_COEFFICIENT, MAX_FEE, MAX_HANDS) == (10_000, 1_000_000, 128)


def test_the_worst_case_fits_in_half_a_signed_64_bit_column() -> None:
    # docs/options.md, step by step
    b, m = MAX_BASE_SCORE, MAX_MULTIPLE
    wins = 3 * (55 + 1 + 16 + 16) * (b * m + b)
    settlement = 3 * b * m  # the hand ends once: 花猪, 查大叫 or an escape, to three seats
    kongs = 12 * 2 * b + 3 * 4 * 6 * b + 4 * 6 * b
    forfeits = 12 * 6 * b  # 呼叫转移 received and given back by a winner who escapes
    loss = wins + settlement + kongs + forfeits
    assert worst_case_payments(b, m) == SeatLoss(wins, settlement, kongs, forfeits)
    assert worst_case_seat_loss() == loss == b * (267 * m + 456) == 139_985_352_000
    assert worst_case_points() == 14 * loss == 1_959_794_928_000
    total = MAX_HANDS * (14 * loss * MAX_COEFFICIENT + MAX_FEE)
    assert worst_case_coins() == total == 2_508_537_507_968_000_000
    assert total < 2**62 < INT64_MAX
    # one step past any bound and the same arithmetic no longer leaves the margin
    assert worst_case_coins(hands=2 * MAX_HANDS) > 2**62


def test_the_bound_under_given_rules_is_the_same_model() -> None:
    """One model, item by item, for the room's bound and a tier's: the rules give the base, the
    largest multiple of a hand, what a flower pig pays and whether winners play on."""
    qq, chengdu = Rules(), Rules.preset("chengdu")
    assert worst_case_multiple(qq) == 2 ** (13 - 1)  # no cap: the table's most fan, 13
    assert worst_case_multiple(chengdu) == 8
    assert worst_case_multiple(qq.with_options({"cap_multiple": 64})) == 64
    # chengdu: base 1, cap 8, the pig pays the cap; without blood river three wins at most
    seat = worst_case_seat(chengdu)
    assert seat == SeatLoss(wins=3 * (8 + 1), settlement=3 * 16, kongs=120, forfeits=72)
    assert (seat.lost, seat.paid) == (195, 267)
    # a flower pig paying more than any hand sets the end of the hand
    pig = chengdu.with_options({"hua_zhu_multiple": 64})
    assert worst_case_seat(pig).settlement == 3 * 64
    # blood river: a payment at each moment a tile can be won
    river = chengdu.with_options({"blood_river": True})
    assert worst_case_seat(river).wins == 3 * (55 + 1 + 16 + 16) * (8 + 1)
    assert worst_case_seat(river.with_options({"base_score": 5})) == worst_case_payments(5, 8, 5 * 8)
    # an escape: 16 × base to three seats, or a 大叫 that without a cap may reach the table's most fan
    assert worst_case_escape(chengdu) == 3 * 16
    assert worst_case_escape(qq) == 3 * 6 * 4096
    # the room's bound is the same model at the bounds, blood river included
    top = Rules().with_options({"base_score": MAX_BASE_SCORE, "cap_multiple": MAX_MULTIPLE,
                                "hua_zhu_multiple": MAX_MULTIPLE, "blood_river": True})
    assert worst_case_seat(top).paid == worst_case_seat_loss()


def test_an_escape_costs_what_the_bound_counts() -> None:
    rules = Rules.preset("chengdu").with_options({"base_score": 5})
    game = Game.new(rules, seed=3)
    driver = HandDriver(game, [Seat.of_bot(make_bot("random", random.Random(s))) for s in range(4)], seed=3)
    assert driver.escape(0)  # at the start: no 大叫 yet, 16 × base to each other seat
    paid = [e.points for e in game.ledger if e.reason == "escape"]
    assert paid == [hand_points(rules, ESCAPE_MULTIPLE)] * 3 == [80] * 3
    assert sum(paid) == worst_case_escape(rules)


_BOUND_RULES = {
    "chengdu": Rules.preset("chengdu"),
    "blood_river": Rules.preset("chengdu").with_options({"blood_river": True, "zhigang_payment": "everyone"}),
    "small_cap": Rules().with_options({"cap_multiple": 2, "base_score": 3, "hua_zhu_multiple": 1}),
}
_KONGS = ("angang", "bugang", "zhigang", "call_transfer", "tui_shui")


@pytest.mark.parametrize("name", sorted(_BOUND_RULES))
def test_played_hands_stay_inside_the_bound_item_by_item(name: str) -> None:
    rules = _BOUND_RULES[name]
    bound = worst_case_seat(rules)
    for seed in range(8):
        rng = random.Random(seed)
        game = Game.new(rules, seed=seed)
        driver = HandDriver(game, [Seat.of_bot(make_bot(("random", "heuristic")[(seed + s) % 2],
                                                        random.Random(seed * 4 + s))) for s in range(4)], seed=seed)
        escape_at = 20 + 11 * seed if seed % 2 else None
        steps = 0
        while not game.over:
            if steps == escape_at:
                driver.escape(rng.randrange(4))
            else:
                driver.act(driver.deciding()[0])
            steps += 1
        for seat in range(4):
            paid = [e for e in game.ledger if e.from_seat == seat]
            assert sum(e.points for e in paid if e.reason in ("hu", "zimo")) <= bound.wins
            assert sum(e.points for e in paid if e.reason in _KONGS) <= bound.kongs
            assert sum(e.points for e in paid if e.reason in ("hua_zhu", "cha_jiao")) <= bound.settlement
            assert sum(e.points for e in paid) <= bound.paid
            assert -game.deltas()[seat] <= bound.lost


# --- rules: each bound works, one past it is bad_option ------------------------------------------------


def _refused(options: dict[str, Any], *, preset: str = "qq") -> RulesError:
    with pytest.raises(RulesError) as exc:
        Rules.preset(preset).with_options(options)
    assert code_of(exc) == "bad_option"
    return exc.value


def test_base_score_bounds() -> None:
    assert Rules().with_options({"base_score": 1}).base_score == 1
    assert Rules().with_options({"base_score": MAX_BASE_SCORE}).base_score == 1000
    for bad in (0, MAX_BASE_SCORE + 1, 10**30):
        assert "1000" in _refused({"base_score": bad}).message


def test_cap_multiple_bounds() -> None:
    assert Rules().with_options({"cap_multiple": 1}).cap_multiple == 1
    assert Rules().with_options({"cap_multiple": MAX_MULTIPLE}).cap_multiple == 524288
    assert Rules().with_options({"cap_multiple": "none"}).cap_multiple is None
    for bad in (0, MAX_MULTIPLE + 1, 2**64):
        assert "524288" in _refused({"cap_multiple": bad}).message


def test_hua_zhu_multiple_bounds() -> None:
    assert Rules().with_options({"hua_zhu_multiple": 0}).hua_zhu_points == 0
    top = Rules().with_options({"hua_zhu_multiple": MAX_MULTIPLE, "base_score": MAX_BASE_SCORE})
    assert top.hua_zhu_points == 524288 * 1000
    capped = Rules().with_options({"cap_multiple": MAX_MULTIPLE, "hua_zhu_multiple": "cap"})
    assert capped.hua_zhu_points == 6 * 524288
    for bad in (-1, MAX_MULTIPLE + 1):
        _refused({"hua_zhu_multiple": bad})


def _table(base: int, extras: dict[str, Any]) -> dict[str, Any]:
    return {**dict.fromkeys(BASE_PATTERNS, base), **dict.fromkeys(EXTRAS, 0), **extras}


def test_fan_values_and_the_whole_table_are_bounded() -> None:
    assert max_fan(dict(Rules().fan)) == 13  # 6 + 4 gen + gang_shang_hua, gang_shang_pao, zi_mo_jia_fan
    assert max_fan(dict(Rules.preset("chengdu").fan)) == 16
    # a base pattern at the bound, with no extras: 20 fan
    at_bound = Rules().with_options({"fan": _table(MAX_FAN, {})})
    assert max_fan(dict(at_bound.fan)) == 20 and at_bound.fan_of("ping_hu") == 20
    _refused({"fan": _table(MAX_FAN + 1, {})})
    _refused({"fan": {"hai_di": MAX_FAN + 1}})
    # an extra at the bound works only when nothing else adds up past 20 fan
    assert Rules().with_options({"fan": _table(1, {"hai_di": 19})}).fan_of("hai_di") == 19
    _refused({"fan": _table(1, {"hai_di": 20})})
    # gen counts four times: 4 + 4 × 4 = 20 works, one more fan anywhere does not
    assert max_fan(dict(Rules().with_options({"fan": _table(4, {"gen": 4})}).fan)) == 20
    error = _refused({"fan": _table(4, {"gen": 4, "jue_zhang": 1})})
    assert "21 fan" in error.message and "20" in error.message
    _refused({"fan": _table(5, {"gen": 4})})
    # "cap" patterns score cap_multiple and take no extras: they do not count
    chengdu = Rules.preset("chengdu").with_options({"fan": _table(1, {"tian_hu": "cap", "gen": 4, "hai_di": 3})})
    assert max_fan(dict(chengdu.fan)) == 20


BOUND_FILE = (
    f'preset = "qq"\nbase_score = {MAX_BASE_SCORE}\nhua_zhu_multiple = {MAX_MULTIPLE}\n'
    '[fan]\n' + "".join(f"{p} = {MAX_FAN}\n" for p in BASE_PATTERNS) + "".join(f"{e} = 0\n" for e in EXTRAS)
)


def test_a_rules_file_at_the_bounds_loads(tmp_path: Path) -> None:
    path = tmp_path / "top.toml"
    path.write_text(BOUND_FILE, encoding="utf-8")
    rules = Rules.load(path)
    assert (rules.base_score, rules.cap_multiple, rules.hua_zhu_multiple) == (1000, None, 524288)
    capped = tmp_path / "capped.toml"
    capped.write_text(f'preset = "chengdu"\ncap_multiple = {MAX_MULTIPLE}\n', encoding="utf-8")
    assert Rules.load(capped).cap_multiple == MAX_MULTIPLE


def _xz(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, Any]:
    rc = main([*args])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err
    return rc, json.loads(out)


def test_cli_rules_at_the_bound_and_one_past(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    top = tmp_path / "top.toml"
    top.write_text(BOUND_FILE, encoding="utf-8")
    rc, data = _xz(capsys, "score", "--json", "123m456m789m123p55p", "--win", "5p", "--rules", str(top))
    assert rc == 0
    assert (data["fan"], data["multiple"], data["points"]) == (20, 524288, 524_288_000)
    past = [
        f"base_score = {MAX_BASE_SCORE + 1}\n",
        f"cap_multiple = {MAX_MULTIPLE + 1}\n",
        f"hua_zhu_multiple = {MAX_MULTIPLE + 1}\n",
        f"[fan]\nping_hu = {MAX_FAN + 1}\n",
        "[fan]\ngen = 4\nhai_di = 4\n",  # 6 + 16 + 3 + 4 = 29 fan in one hand
        "base_score = 100000000000000000000000\n",
    ]
    for i, body in enumerate(past):
        path = tmp_path / f"past{i}.toml"
        path.write_text(body, encoding="utf-8")
        for command in (["score", "--json", "123m456m789m123p55p", "--win", "5p"],
                        ["waits", "--json", "123m456m789m123p5p"]):
            rc, data = _xz(capsys, *command, "--rules", str(path))
            assert rc == 2, body
            assert data["error"]["code"] == "bad_option", body


# --- rooms: each bound works, one past it is bad_room ---------------------------------------------------


def test_room_bounds() -> None:
    top = RoomConfig(Rules().with_options({"base_score": MAX_BASE_SCORE}), coefficient=MAX_COEFFICIENT,
                     fee=MAX_FEE, hands=MAX_HANDS)
    assert RoomConfig.from_mapping(top.to_mapping()) == top
    assert RoomConfig(coefficient=0, fee=0, hands=1).hands == 1
    for field, bad in [("coefficient", MAX_COEFFICIENT + 1), ("coefficient", -1), ("fee", MAX_FEE + 1),
                       ("fee", -1), ("hands", MAX_HANDS + 1), ("hands", 0), ("base_score", MAX_BASE_SCORE + 1)]:
        with pytest.raises(MatchError) as exc:
            RoomConfig.from_mapping({"rules": "qq", field: bad})
        assert code_of(exc) == "bad_room", field
        assert field in exc.value.message


# --- the server's own limits ------------------------------------------------------------------------------


def test_server_limits_stay_within_the_bounds() -> None:
    ServerConfig(max_base_score=MAX_BASE_SCORE, max_cap_multiple=MAX_MULTIPLE, max_hua_zhu_multiple=MAX_MULTIPLE,
                 max_coefficient=MAX_COEFFICIENT, max_fee=MAX_FEE, max_hands=MAX_HANDS)
    for name, bad in [("max_base_score", MAX_BASE_SCORE + 1), ("max_cap_multiple", MAX_MULTIPLE + 1),
                      ("max_hua_zhu_multiple", MAX_MULTIPLE + 1), ("max_coefficient", MAX_COEFFICIENT + 1),
                      ("max_fee", MAX_FEE + 1), ("max_hands", MAX_HANDS + 1), ("max_hands", 0)]:
        with pytest.raises(ValueError, match=name):
            ServerConfig.fast(**{name: bad})


@pytest.fixture
def lobby(tmp_path: Path) -> Iterator[Any]:
    apps: list[tuple[Any, TestClient]] = []

    def build(**limits: Any) -> tuple[Any, TestClient]:
        app = create_app(f"sqlite:///{tmp_path / f'xz{len(apps)}.sqlite3'}", config=ServerConfig.fast(**limits))
        client = TestClient(app)
        client.__enter__()
        assert client.post("/api/login", json={"name": "quin"}).status_code == 200
        apps.append((app, client))
        return app, client

    yield build
    for _, client in apps:
        client.__exit__(None, None, None)


def _rooms_in_db(app: Any) -> int:
    with app.state.bank.store.engine.connect() as conn:
        return int(conn.execute(text("SELECT COUNT(*) FROM rooms")).scalar_one())


def _assert_refused(app: Any, client: TestClient, body: dict[str, Any], words: str) -> None:
    before = (dict(app.state.lobby.tables), _rooms_in_db(app))
    r = client.post("/api/rooms", json=body)
    assert r.status_code == 400, (body, r.text)
    error = r.json()["error"]
    assert set(error) == {"code", "message"} and error["code"] == "bad_room", body
    assert words in error["message"], (body, error)
    assert (dict(app.state.lobby.tables), _rooms_in_db(app)) == before  # nothing created


def test_server_rooms_at_the_default_limits_and_one_past(lobby: Any) -> None:
    app, client = lobby()
    cfg: ServerConfig = app.state.config
    options = {"base_score": cfg.max_base_score, "cap_multiple": cfg.max_cap_multiple,
               "hua_zhu_multiple": cfg.max_hua_zhu_multiple}
    at_limits: dict[str, Any] = {"preset": "qq", "options": options,
                                 "coefficient": cfg.max_coefficient, "fee": 0, "hands": cfg.max_hands, "public": False}
    r = client.post("/api/rooms", json=at_limits)
    assert r.status_code == 200, r.text
    assert _rooms_in_db(app) == 1
    for key, value in [("base_score", cfg.max_base_score + 1), ("cap_multiple", cfg.max_cap_multiple + 1),
                       ("hua_zhu_multiple", cfg.max_hua_zhu_multiple + 1)]:
        _assert_refused(app, client, {**at_limits, "options": {**options, key: value}},
                        "server's limit")
    _assert_refused(app, client, {**at_limits, "hands": cfg.max_hands + 1}, "server's limit")
    # the default coefficient and fee limits are the room bounds themselves
    for key, value in [("coefficient", cfg.max_coefficient + 1), ("fee", cfg.max_fee + 1)]:
        _assert_refused(app, client, {**at_limits, key: value}, key)


def test_server_rooms_at_the_bounds_and_one_past(lobby: Any) -> None:
    app, client = lobby(max_base_score=MAX_BASE_SCORE, max_cap_multiple=MAX_MULTIPLE,
                        max_hua_zhu_multiple=MAX_MULTIPLE, max_coefficient=MAX_COEFFICIENT, max_fee=MAX_FEE,
                        max_hands=MAX_HANDS, starting_coins=2 * MAX_FEE)
    top = {"preset": "qq", "options": {"base_score": MAX_BASE_SCORE, "hua_zhu_multiple": MAX_MULTIPLE},
           "coefficient": MAX_COEFFICIENT, "fee": MAX_FEE, "hands": MAX_HANDS, "public": False}
    r = client.post("/api/rooms", json=top)
    assert r.status_code == 200, r.text
    capped = {**top, "options": {"cap_multiple": MAX_MULTIPLE}}
    assert client.post("/api/rooms", json=capped).status_code == 200
    for body in [{**top, "options": {"base_score": MAX_BASE_SCORE + 1}},
                 {**top, "options": {"cap_multiple": MAX_MULTIPLE + 1}},
                 {**top, "options": {"hua_zhu_multiple": MAX_MULTIPLE + 1}},
                 {**top, "options": {"base_score": 10**40}},
                 {**top, "coefficient": MAX_COEFFICIENT + 1},
                 {**top, "fee": MAX_FEE + 1},
                 {**top, "hands": MAX_HANDS + 1}]:
        _assert_refused(app, client, body, "must be")


# --- the largest hands settle on SQLite and PostgreSQL -----------------------------------------------------

SEATS = ("ann", "bo", "cai", "dan")
BYSTANDERS = ("eve", "fu", "gus", "hal")


def _top_room(rules: Rules) -> RoomConfig:
    return RoomConfig(rules, coefficient=MAX_COEFFICIENT, fee=MAX_FEE, hands=MAX_HANDS, items_allowed=True)


def test_the_largest_hand_allowed_settles(store: Store) -> None:
    """The worst case of docs/options.md as one hand's transfers: ann receives 14 L points, the
    most any participant can, after 127 hands that each brought her as much."""
    loss = worst_case_seat_loss()
    # bo, cai and dan each pay ann L and L again for a double card; the four bystanders all
    # bet on bo and repeat his 2 L (jiao_ma)
    transfers = [Transfer(p, "ann", loss, "zimo") for p in SEATS[1:]]
    transfers += [Transfer(p, "ann", loss, "double_card", "zimo") for p in SEATS[1:]]
    transfers += [Transfer(b, "ann", loss, "jiao_ma", reason) for b in BYSTANDERS for reason in ("zimo", "zimo")]
    bets = tuple(BystanderBet(b, 1, 1) for b in BYSTANDERS)
    result = HandResult(hand_no=1, seed=1, dealer=0, seating=SEATS, bets=bets, transfers=tuple(transfers),
                        items=(), escaped=(), next_dealer=None, record={"note": "worst case"})
    points = result.points()
    assert points["ann"] == worst_case_points()
    gain = points["ann"] * MAX_COEFFICIENT - MAX_FEE
    earlier = (MAX_HANDS - 1) * gain  # what the match's other hands could have brought her
    store.accounts.create_account("ann", earlier)
    for p in (*SEATS[1:], *BYSTANDERS):
        store.accounts.create_account(p, -points[p] * MAX_COEFFICIENT + MAX_FEE)  # enough to pay in full
    store.rooms.create_room("top", _top_room(Rules().with_options({"base_score": MAX_BASE_SCORE})))
    match_id, _ = store.rooms.start_match("top", [*SEATS, *BYSTANDERS], seed=1)
    issued = store.ledger.audit()["issued"]
    settled = store.settle_hand(match_id, result)
    assert settled.points == points
    assert settled.changes["ann"] == gain
    for p in (*SEATS[1:], *BYSTANDERS):
        fee = MAX_FEE if p in SEATS else 0
        assert settled.changes[p] == points[p] * MAX_COEFFICIENT - fee
    assert sum(settled.changes.values()) == -settled.house == -4 * MAX_FEE
    final = store.ledger.balance("ann")
    assert final == MAX_HANDS * gain == worst_case_coins() - MAX_HANDS * 2 * MAX_FEE
    assert final < 2**62
    audit = store.ledger.audit()
    assert audit["issued"] == issued and audit["players"] + audit["house"] == issued
    assert store.settle_hand(match_id, result).replayed  # read back from the database as it was written


def _play(match: Match, seed: int) -> HandResult:
    hand = match.start_hand(double=[p for p in match.seats if p is not None])
    game = hand.game
    bots = [make_bot("heuristic", random.Random(seed * 4 + k)) for k in range(4)]
    while not game.over:
        if game.phase is Phase.TURN:
            seat = game.turn
            game.apply(bots[seat].choose(SeatView(game, seat), game.legal_actions(seat)))
            continue
        for seat in game.pending():
            if game.over:
                break
            legal = game.legal_actions(seat)
            if legal:
                game.apply(bots[seat].choose(SeatView(game, seat), legal))
    return match.finish_hand(hand)


def test_a_played_hand_at_the_bounds_settles(store: Store) -> None:
    """Rules at the bounds where every payment is large: every base pattern 20 fan (×524288)
    and no cap, base score 1000, flower pigs pay ×524288; blood river, double cards for every
    seat and four bystanders; coefficient, fee and hands at their bounds."""
    rules = Rules().with_options({
        "base_score": MAX_BASE_SCORE, "hua_zhu_multiple": MAX_MULTIPLE, "blood_river": True,
        "zhigang_payment": "everyone", "fan": _table(MAX_FAN, {}),
    })
    people = [*SEATS, *BYSTANDERS]
    rich = 10**17  # every loser pays in full: a played hand stays far below the worst case
    for p in people:
        store.accounts.create_account(p, rich)
    store.rooms.create_room("top", _top_room(rules))
    match_id, match = store.rooms.start_match("top", people, seed=7)
    largest = 0
    for seed in range(1, 4):
        result = _play(match, seed)
        points = result.points()
        largest = max(largest, *(abs(v) for v in points.values()))
        assert all(abs(v) <= worst_case_points() for v in points.values())
        before = store.ledger.balances(result.participants)
        settled = store.settle_hand(match_id, result, match)
        fees = {p: (MAX_FEE if p in result.seating else 0) for p in result.participants}
        assert settled.changes == {p: points[p] * MAX_COEFFICIENT - fees[p] for p in result.participants}
        assert sum(settled.changes.values()) == -settled.house
        after = store.ledger.balances(result.participants)
        assert all(after[p] == before[p] + settled.changes[p] for p in result.participants)
    assert largest >= MAX_BASE_SCORE * MAX_MULTIPLE  # at least one ×524288 payment really happened
    audit = store.ledger.audit()
    assert audit["issued"] == len(people) * rich and audit["players"] + audit["house"] == audit["issued"]
