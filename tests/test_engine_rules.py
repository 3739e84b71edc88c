"""The rules of one hand (docs/rules.md §2-9 and §14), one test per rule and per option.

Every test is a game record (hands + a wall in draw order, or dice + a wall layout)
replayed with :func:`xuezhan.records.parse_record` and :func:`xuezhan.records.replay`,
and checked against ledger entries ``(from, to, points, reason)`` and deltas worked out
by hand from docs/rules.md. Arithmetic: multiple = 2^(fan - 1); a discard win costs the
discarder base × multiple; a self-drawn win costs each payer base × multiple + base
(``self_draw_bonus = "base"``). ``qq``: base 6, no cap. ``chengdu``: base 1, cap ×8.

:func:`build` fills the wall after the given prefix with every tile not yet placed,
sorted m, p, s by rank (then ``tail``), so a record always holds the 108 tiles. The
inert hands below are two-suited and at least two tiles from ready, and ``tsumogiri`` autoplay
throws what it draws: their hands never change and never win.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from xuezhan.engine.actions import ActionType
from xuezhan.engine.game import Game, Phase
from xuezhan.errors import RecordError
from xuezhan.records import parse_record, replay
from xuezhan.scoring import Meld, MeldKind
from xuezhan.tiles import format_tiles, parse_tile, parse_tiles, tile_name

Act = dict[str, Any]
Entry = tuple[int, int, int, str]

# --- hands -------------------------------------------------------------------------------------
# Inert hands (void m, two tiles from ready). Together they hold one copy of each p tile
# except 5p, and 30 of the 36 s tiles (2s 3s 4s 6s 7s 8s are left).
N1 = "149p1133567789s"
N2 = "248p1245678899s"
N3 = "367p1223445569s"
M1 = "1124578m124578p"  # inert, void s
READY_5P = "123m456m789m123p5p"  # waits 5p only: 123m 456m 789m 123p 55p, ping_hu (1 fan)
KANCHAN_5P = "123m456m789m46p11p"  # waits 5p only: 456p + 11p, ping_hu; holds no 5p


# --- record building ---------------------------------------------------------------------------


def discard(seat: int, tile: str) -> Act:
    return {"seat": seat, "type": "discard", "tile": tile}


def hu(seat: int) -> Act:
    return {"seat": seat, "type": "hu"}


def peng(seat: int) -> Act:
    return {"seat": seat, "type": "peng"}


def gang(seat: int, tile: str) -> Act:
    return {"seat": seat, "type": "gang", "tile": tile}


def pass_(seat: int) -> Act:
    return {"seat": seat, "type": "pass"}


def escape(seat: int) -> Act:
    return {"seat": seat, "type": "escape"}


def dingque(seat: int, suit: str) -> Act:
    return {"seat": seat, "type": "dingque", "suit": suit}


def exchange(seat: int, tiles: str) -> Act:
    return {"seat": seat, "type": "exchange", "tiles": tiles}


def _tiles(text: str) -> list[int]:
    return parse_tiles(text) if text.strip() else []


def _forced_void(hand: str) -> str:
    suits = {t // 9 for t in parse_tiles(hand)}
    if len(suits) != 2:
        raise ValueError(f"{hand}: dealt {len(suits)} suits, give its void")
    return "mps"[({0, 1, 2} - suits).pop()]


def build(
    hands: Sequence[str],
    wall: str = "",
    *,
    tail: str = "",
    rules: str = "qq",
    options: Mapping[str, Any] | None = None,
    dealer: int = 0,
    voids: str | None = None,
    pre: Sequence[Act] = (),
    actions: Sequence[Act] = (),
    autoplay: bool = True,
    lane: tuple[int, str] | None = None,
    exchange_direction: str | None = None,
) -> dict[str, Any]:
    """A record: ``hands`` by seat, the wall = ``wall`` + every other tile (sorted) + ``tail``.

    ``voids``: one suit letter per seat (``""``: no dingque actions; ``None``: the forced
    void of each two-suited hand). ``pre`` comes before the dingque actions (换三张).
    ``lane=(seat, suit)``: the filled tiles that ``seat`` draws, while nobody claims, are of
    ``suit`` as long as there are some.
    """
    placed = [t for h in hands for t in _tiles(h)] + _tiles(wall) + _tiles(tail)
    left = [4] * 27
    for t in placed:
        left[t] -= 1
    if min(left) < 0:
        raise ValueError(f"too many copies of {[tile_name(t) for t in range(27) if left[t] < 0]}")
    rest = [t for t in range(27) for _ in range(left[t])]
    if lane is not None:
        seat, suit = lane
        own = [t for t in rest if "mps"[t // 9] == suit]
        other = [t for t in rest if "mps"[t // 9] != suit]
        start = len(_tiles(wall))
        rest = []
        for j in range(len(own) + len(other)):
            drawer = (dealer + 1 + start + j) % 4
            rest.append(own.pop(0) if (drawer == seat and own) or not other else other.pop(0))
    if voids is None:
        voids = "".join(_forced_void(h) for h in hands)
    rec: dict[str, Any] = {
        "rules": {"preset": rules, "options": dict(options)} if options else rules,
        "dealer": dealer,
        "hands": list(hands),
        "wall": wall + format_tiles(rest, compact=False) + tail,
        "actions": [*pre, *(dingque(i, v) for i, v in enumerate(voids)), *actions],
    }
    if autoplay:
        rec["autoplay"] = "tsumogiri"
    if exchange_direction is not None:
        rec["exchange_direction"] = exchange_direction
    return rec


def then(rec: dict[str, Any], *actions: Act, autoplay: bool | None = None) -> dict[str, Any]:
    """The same record with more actions (and autoplay switched on or off)."""
    out = dict(rec, actions=[*rec["actions"], *actions])
    if autoplay is True:
        out["autoplay"] = "tsumogiri"
    elif autoplay is False:
        out.pop("autoplay", None)
    return out


def wall_discards(rec: Mapping[str, Any], first: int, count: int) -> list[Act]:
    """Draw-and-throw discards for wall tiles ``first`` .. ``first + count - 1``: tile k is
    drawn by seat (dealer + 1 + k) mod 4 while all four seats play and nobody claims."""
    wall = parse_tiles(rec["wall"])
    dealer = int(rec["dealer"])
    return [discard((dealer + 1 + k) % 4, tile_name(wall[k])) for k in range(first, first + count)]


def play(rec: Mapping[str, Any]) -> Game:
    game, complete = replay(parse_record(rec))
    if rec.get("autoplay") == "tsumogiri":
        assert complete and game.over
    return game


def ledger(game: Game) -> list[Entry]:
    return [(e.from_seat, e.to_seat, e.points, e.reason) for e in game.ledger]


def replay_error(rec: Mapping[str, Any]) -> RecordError:
    with pytest.raises(RecordError) as info:
        replay(parse_record(rec))
    return info.value


def T(text: str) -> int:
    return parse_tile(text)


def hand_of(game: Game, seat: int) -> list[int]:
    return sorted(game.seats[seat].tiles())


# =============================================================================================
# docs/rules.md §2: dice, the wall and the deal
# =============================================================================================

# A wall layout in taking order (dealer's wall from its right end, then the previous
# seat's, the opposite's, the next seat's; each stack top then bottom). Stacks 4g..4g+3
# (g = 0..12) hold tile kind 2g on top and 2g+1 below; stacks 52 and 53 hold 9s/9s:
#   st 0-3 1m/2m, 4-7 3m/4m, 8-11 5m/6m, 12-15 7m/8m, 16-19 9m/1p, 20-23 2p/3p,
#   24-27 4p/5p, 28-31 6p/7p, 32-35 8p/9p, 36-39 1s/2s, 40-43 3s/4s, 44-47 5s/6s, 48-51 7s/8s.
LAYOUT = "".join((tile_name(2 * g) + tile_name(2 * g + 1)) * 4 for g in range(13)) + "9s" * 4

# Walls start at stack 0 (dealer, 14 stacks), 14 (previous, 13), 27 (opposite, 14), 41 (next, 13).
# The first stack taken is wall start + min(a, b). Stacks r = 0, 1, 8, 9, 16, 17 (counted from
# it) go to the dealer, then the tops of r = 24 and r = 26 (跳牌); the wall starts at the bottom of r = 26.


@pytest.mark.parametrize(
    ("dice", "dealer_hand", "head"),
    [
        # 1+4 = 5: dealer's wall, skip 1 -> stack 1: st 1,2 (1m2m x2), 9,10 (5m6m x2), 17,18 (9m1p x2),
        # tops of 25 and 27 (4p 4p); head = bottom of 27 = 5p
        ((1, 4), "1122556699m1144p", "5p"),
        ((4, 1), "1122556699m1144p", "5p"),  # min(a, b), whatever the order
        # 3+6 = 9 (001's example): dealer's wall, skip 3 -> stack 3 (the 4th): st 3,4 (1m2m 3m4m),
        # 11,12 (5m6m 7m8m), 19,20 (9m1p 2p3p), tops of 27, 29 (4p 6p); head = bottom of 29 = 7p
        ((3, 6), "123456789m12346p", "7p"),
        # 1+1 = 2: next's wall (starts at 41), skip 1 -> 42: st 42,43 (3s4s x2), 50,51 (7s8s x2),
        # 4,5 (3m4m x2), tops of 12, 14 (7m 7m); head = bottom of 14 = 8m
        ((1, 1), "334477m33447788s", "8m"),
        # 5+5 = 10: next's wall, skip 5 -> 46: st 46,47 (5s6s x2), 0,1 (1m2m x2), 8,9 (5m6m x2),
        # tops of 16, 18 (9m 9m); head = bottom of 18 = 1p
        ((5, 5), "1122556699m5566s", "1p"),
        # 1+2 = 3: opposite's wall (27), skip 1 -> 28: st 28,29 (6p7p x2), 36,37 (1s2s x2),
        # 44,45 (5s6s x2), tops of 52, 0 (9s 1m); head = bottom of 0 = 2m
        ((1, 2), "1m6677p112255669s", "2m"),
        # 3+4 = 7: opposite's wall, skip 3 -> 30: st 30,31 (6p7p x2), 38,39 (1s2s x2), 46,47 (5s6s x2),
        # tops of 0, 2 (1m 1m); head = bottom of 2 = 2m
        ((3, 4), "11m6677p11225566s", "2m"),
        # 1+3 = 4: previous's wall (14), skip 1 -> 15: st 15,16 (7m8m 9m1p), 23,24 (2p3p 4p5p),
        # 31,32 (6p7p 8p9p), tops of 39, 41 (1s 3s); head = bottom of 41 = 4s
        ((1, 3), "789m123456789p13s", "4s"),
        # 6+6 = 12: previous's wall, skip 6 -> 20: st 20,21 (2p3p x2), 28,29 (6p7p x2), 36,37 (1s2s x2),
        # tops of 44, 46 (5s 5s); head = bottom of 46 = 6s
        ((6, 6), "22336677p112255s", "6s"),
    ],
)
def test_dice_choose_the_wall_to_break(dice: tuple[int, int], dealer_hand: str, head: str) -> None:
    deal = parse_record({"dealer": 0, "dice": list(dice), "wall_layout": LAYOUT}).deal
    assert sorted(deal.hands[0]) == sorted(parse_tiles(dealer_hand))
    assert deal.wall[0] == T(head)
    assert len(deal.wall) == 108 - 14 - 3 * 13


def test_deal_in_play_order_with_tiao_pai() -> None:
    # Dice 1+4, dealer 2: start at stack 1. Dealer (2) takes st 1,2; next (3) st 3,4; opposite (0)
    # st 5,6; previous (1) st 7,8; three rounds (+8 stacks each). 跳牌: dealer top of 25 (4p),
    # next bottom of 25 (5p), opposite top of 26 (4p), previous bottom of 26 (5p), dealer top of 27 (4p).
    rec = {"dealer": 2, "dice": [1, 4], "wall_layout": LAYOUT}
    deal = parse_record(rec).deal
    expected = {
        2: "1122556699m1144p",  # st 1,2 9,10 17,18 + 4p 4p: 14 tiles
        3: "123456789m1235p",  # st 3,4 (1m2m 3m4m) 11,12 (5m6m 7m8m) 19,20 (9m1p 2p3p) + 5p
        0: "33447788m22334p",  # st 5,6 (3m4m x2) 13,14 (7m8m x2) 21,22 (2p3p x2) + 4p
        1: "3456789m123455p",  # st 7,8 (3m4m 5m6m) 15,16 (7m8m 9m1p) 23,24 (2p3p 4p5p) + 5p
    }
    for seat, hand in expected.items():
        assert sorted(deal.hands[seat]) == sorted(parse_tiles(hand)), seat
    # the live wall: bottom of st 27 (5p), then st 28 (6p 7p) ... round to st 0 (1m 2m): 55 tiles
    assert (tile_name(deal.wall[0]), tile_name(deal.wall[1]), tile_name(deal.wall[2])) == ("5p", "6p", "7p")
    assert tile_name(deal.wall[-1]) == "2m"
    assert len(deal.wall) == 55
    # play: the dealer discards, the next seat (3) draws the head of the wall
    game = play(
        dict(rec, actions=[dingque(0, "s"), dingque(1, "s"), dingque(2, "s"), dingque(3, "s"), discard(2, "1m")])
    )
    assert (game.turn, game.drawn, game.live) == (3, T("5p"), 54)


# A dealer with a concealed four (1111m); everyone else inert.
KONG_DEALER = "1111m258m369m147p8p"  # two suits, void s


def test_kong_replacement_from_the_head() -> None:
    rec = build([KONG_DEALER, N1, N2, N3], "6p5p", tail="2p", actions=[gang(0, "1m")], autoplay=False)
    game = play(rec)
    assert (game.turn, game.drawn, game.live) == (0, T("6p"), 54)  # the replacement is the head
    game = play(then(rec, discard(0, "2m")))
    assert (game.turn, game.drawn) == (1, T("5p"))  # then seat 1 draws the next tile from the head


def test_kong_draw_from_tail() -> None:
    # Spec decision: the tail (牌尾) of a wall given in draw order is its last tile, so the first
    # replacement from the tail is the record's last wall tile.
    rec = build(
        [KONG_DEALER, N1, N2, N3],
        "6p5p",
        tail="2p",
        options={"kong_draw_from_tail": True},
        actions=[gang(0, "1m")],
        autoplay=False,
    )
    game = play(rec)
    assert (game.turn, game.drawn, game.live) == (0, T("2p"), 54)  # the last tile of the wall
    game = play(then(rec, discard(0, "2m")))
    assert (game.turn, game.drawn) == (1, T("6p"))  # ordinary draws still come from the head


# =============================================================================================
# docs/rules.md §3: the void suit
# =============================================================================================


def test_dingque_is_forced_when_dealt_two_suits() -> None:
    hands = [
        KONG_DEALER,  # m and p: void s, no choice
        N1,  # p and s: void m
        "2233445566778m",  # one suit: either missing suit
        "9m367p122344556s",  # three suits: any suit
    ]
    rec = build(hands, voids="", autoplay=False)
    game = play(rec)
    assert game.phase is Phase.DINGQUE
    choices = [sorted(a.suit or 0 for a in game.legal_actions(seat)) for seat in range(4)]
    assert choices == [[2], [0], [1, 2], [0, 1, 2]]
    err = replay_error(build(hands, voids="", actions=[dingque(1, "s")], autoplay=False))
    assert err.code == "illegal_action" and "actions[0]" in err.message and "forced_dingque" in err.message


def test_void_tiles_must_be_discarded_first() -> None:
    dealer = "1111m258m369m147p8s"  # three suits; it picks s as its void
    rec = build([dealer, N1, N2, N3], voids="smmm", autoplay=False)
    game = play(rec)
    assert [a.tile for a in game.legal_actions(0) if a.type is ActionType.DISCARD] == [T("8s")]
    err = replay_error(then(rec, discard(0, "1p")))
    assert "actions[4]" in err.message and "must_discard_void" in err.message
    game = play(then(rec, discard(0, "8s")))
    assert game.seats[0].river == [T("8s")]


def test_no_peng_or_gang_of_a_void_suit_tile() -> None:
    seat1 = "47m555p11245789s"  # three suits
    hands = [KONG_DEALER[:-2] + "5p", seat1, N2, N3]  # the dealer holds 5p instead of 8p
    # void p: the 5p the dealer throws gives seat 1 nothing; the next seat just draws
    game = play(build(hands, voids="spmm", actions=[discard(0, "5p")], autoplay=False))
    assert (game.phase, game.turn) == (Phase.TURN, 1)
    # void s: the same 5p may be konged or penged
    game = play(build(hands, voids="ssmm", actions=[discard(0, "5p")], autoplay=False))
    assert game.phase is Phase.CLAIM
    assert {a.type for a in game.legal_actions(1)} == {ActionType.GANG, ActionType.PENG, ActionType.PASS}
    # nor a concealed kong of the void suit
    dealer = "5555p111m258m369m8s"
    for void, can_kong in (("p", False), ("s", True)):
        game = play(build([dealer, N1, N2, N3], voids=void + "mmm", autoplay=False))
        assert (ActionType.GANG in {a.type for a in game.legal_actions(0)}) is can_kong


# Seat 1 is dealt thirteen m tiles and picks p as its void. It draws 5p, konges 1111m, and the
# replacement is the second 5p: 1111m 234m 567m 888m 55p is a complete two-suit shape.
VOID_KONGER = "1111m234m567m888m"


def test_no_hu_while_holding_a_void_tile() -> None:
    rec = build(
        [N1 + "9p", VOID_KONGER, N2, N3],
        "5p5p",
        voids="mpmm",
        actions=[discard(0, "9p"), gang(1, "1m")],
        autoplay=False,
    )
    game = play(rec)
    assert game.turn == 1 and game.drawn == T("5p")
    legal = game.legal_actions(1)
    assert ActionType.HU not in {a.type for a in legal}
    assert {a.tile for a in legal} == {T("5p")}  # and it must throw a void tile
    assert ledger(game) == [(0, 1, 12, "angang"), (2, 1, 12, "angang"), (3, 1, 12, "angang")]


def test_dingque_off_allows_any_discard_and_still_needs_two_suits() -> None:
    # Without dingque the same seat wins: ping_hu 1 + gen 1 (1111m) + gang_shang_hua 1 = 3 fan x4 = 24,
    # + 6 self-draw bonus = 30 from each other seat.
    rec = build(
        [N1 + "9p", VOID_KONGER, N2, N3],
        "5p5p",
        voids="",
        options={"dingque": False},
        actions=[discard(0, "9p"), gang(1, "1m"), hu(1)],
        autoplay=False,
    )
    game = play(rec)
    assert ledger(game) == [
        (0, 1, 12, "angang"),
        (2, 1, 12, "angang"),
        (3, 1, 12, "angang"),
        (0, 1, 30, "zimo"),
        (2, 1, 30, "zimo"),
        (3, 1, 30, "zimo"),
    ]
    # A three-suit dealer may throw any tile; a complete three-suit shape is no win.
    dealer = "145789m1258p3467s"
    seat2 = "123m456p789s55m11p"  # 55m + 5m would be complete in m, p and s
    rec = build(
        [dealer, N2, seat2, N3], voids="", options={"dingque": False}, actions=[discard(0, "5m")], autoplay=False
    )
    first = play(build([dealer, N2, seat2, N3], voids="", options={"dingque": False}, autoplay=False))
    assert first.phase is Phase.TURN  # no dingque phase at all
    assert {a.tile for a in first.legal_actions(0)} == set(parse_tiles(dealer))
    game = play(rec)
    assert game.phase is Phase.CLAIM
    assert {a.type for a in game.legal_actions(2)} == {ActionType.PENG, ActionType.PASS}
    assert (
        replay_error(
            build([dealer, N2, seat2, N3], voids="", options={"dingque": False}, actions=[dingque(0, "m")])
        ).code
        == "illegal_action"
    )


# =============================================================================================
# 换三张 (exchange_three)
# =============================================================================================

# Each seat gives away the only copies of a tile kind in play: 111m, 999p, 111s, 999m.
EXCHANGE_HANDS = ["111m234p567p234m88s", "999p234m567m234s5s", "111s567s88m234p56p", "999m678p678s345m2s"]
EXCHANGE_GIVES = [exchange(0, "111m"), exchange(1, "999p"), exchange(2, "111s"), exchange(3, "999m")]


def holders(game: Game) -> list[int]:
    """Which seat holds 111m, 999p, 111s, 999m (the tiles seats 0, 1, 2, 3 gave)."""
    out = []
    for tile in ("1m", "9p", "1s", "9m"):
        (seat,) = [i for i in range(4) if game.seats[i].counts[T(tile)] == 3]
        out.append(seat)
    return out


@pytest.mark.parametrize(
    ("direction", "expected"),
    [
        ("counter", [1, 2, 3, 0]),  # to the next seat in play order
        ("opposite", [2, 3, 0, 1]),
        ("clockwise", [3, 0, 1, 2]),  # to the previous seat
    ],
)
def test_exchange_three(direction: str, expected: list[int]) -> None:
    rec = build(EXCHANGE_HANDS, voids="", options={"exchange_three": direction}, pre=EXCHANGE_GIVES, autoplay=False)
    game = play(rec)
    assert game.phase is Phase.DINGQUE  # 换三张 comes before 定缺
    assert holders(game) == expected


def test_exchange_three_random_uses_the_records_direction() -> None:
    rec = build(
        EXCHANGE_HANDS,
        voids="",
        options={"exchange_three": "random"},
        pre=EXCHANGE_GIVES,
        autoplay=False,
        exchange_direction="opposite",
    )
    assert holders(play(rec)) == [2, 3, 0, 1]
    del rec["exchange_direction"]
    assert replay_error(rec).code == "bad_record"
    # three tiles of one suit only
    bad = build(
        EXCHANGE_HANDS,
        voids="",
        options={"exchange_three": "counter"},
        pre=[exchange(0, "11m2p"), *EXCHANGE_GIVES[1:]],
        autoplay=False,
    )
    assert "actions[0]" in replay_error(bad).message


# =============================================================================================
# docs/rules.md §4: turns and claims
# =============================================================================================


def test_peng_then_discard_without_drawing() -> None:
    seat2 = "123m456m789m12p55p"
    rec = build([N2 + "5p", N1, seat2, N3], "7m", actions=[discard(0, "5p"), peng(2)], autoplay=False)
    game = play(rec)
    assert (game.phase, game.turn, game.live) == (Phase.TURN, 2, 55)  # nothing drawn
    assert game.seats[2].melds == [Meld(MeldKind.PENG, T("5p"))]
    assert sum(game.seats[2].counts) == 11  # 13 - 2, no draw
    assert {a.type for a in game.legal_actions(2)} == {ActionType.DISCARD}
    game = play(then(rec, discard(2, "1p")))
    assert (game.turn, game.drawn, game.live) == (3, T("7m"), 54)  # the next seat draws the head
    assert ledger(game) == []


@pytest.mark.parametrize("claim", ["peng", "gang"])
def test_hu_beats_peng_and_gang(claim: str) -> None:
    seat1 = "123m456m789m12p55p" if claim == "peng" else "123m456m789m1p555p"
    act = peng(1) if claim == "peng" else gang(1, "5p")
    rec = build([N2 + "5p", seat1, N3, KANCHAN_5P], "7m", actions=[discard(0, "5p"), act, hu(3)], autoplay=False)
    game = play(rec)
    assert ledger(game) == [(0, 3, 6, "hu")]  # ping_hu 1 fan x1 x6
    assert game.seats[1].melds == []  # the claim lapsed
    assert (game.turn, game.drawn) == (0, T("7m"))  # the next seat after the winner draws


def test_no_kong_once_the_wall_is_empty() -> None:
    dealer = "367p1223445569s9p"  # N3 + 9p
    seat1 = "999m1123356689p"  # 999m: it may peng the last tile, not kong it
    seat3 = "7777s13889s2458p"  # a concealed four it never konges
    rec = build([dealer, seat1, M1, seat3], tail="9m", voids="mssm", autoplay=False)
    rec = then(rec, discard(0, "9p"))
    # seat 3 may kong 7777s on its first turn (wall tile 2)...
    early = play(then(rec, *wall_discards(rec, 0, 2)))
    assert early.turn == 3 and ActionType.GANG in {a.type for a in early.legal_actions(3)}
    # ...but not on the last tile (wall tile 54, drawn by seat (1 + 54) mod 4 = 3)
    last = play(then(rec, *wall_discards(rec, 0, 54)))
    assert (last.turn, last.live, last.drawn) == (3, 0, T("9m"))
    assert ActionType.GANG not in {a.type for a in last.legal_actions(3)}
    # and the last discard may be penged, not konged
    after = play(then(rec, *wall_discards(rec, 0, 55)))
    assert {a.type for a in after.legal_actions(1)} == {ActionType.PENG, ActionType.PASS}


# 过水不胡: seat 2 waits 2p or 5p. It passes the dealer's 5p; seat 1 draws 8p and throws 5p or 2p.
PASS_HU_HANDS = [N2 + "5p", "12459p11335677s", "123m456m789m34p99p", N3]
PASS_HU_START = [discard(0, "5p"), pass_(2)]


@pytest.mark.parametrize(
    ("scope", "tile", "blocked"),
    [
        ("same_tile", "5p", True),  # the same tile kind: blocked until its own next draw
        ("same_tile", "2p", False),  # another tile kind it may win
        ("any_tile", "5p", True),
        ("any_tile", "2p", True),  # every discard win blocked
    ],
)
def test_pass_hu_scope(scope: str, tile: str, blocked: bool) -> None:
    rec = build(
        PASS_HU_HANDS,
        "8p",
        options={"pass_hu_scope": scope},
        actions=[*PASS_HU_START, discard(1, tile)],
        autoplay=False,
    )
    game = play(rec)
    if blocked:
        assert (game.phase, game.turn) == (Phase.TURN, 2)  # no claim window: seat 2 just draws
    else:
        game = play(then(rec, hu(2)))
        assert ledger(game) == [(1, 2, 6, "hu")]


@pytest.mark.parametrize("scope", ["same_tile", "any_tile"])
def test_pass_hu_lasts_until_the_own_next_draw(scope: str) -> None:
    # seat 1 throws 5p (blocked); seat 2 draws 7m and throws it; seat 3 draws 5p and throws it: won.
    rec = build(
        PASS_HU_HANDS,
        "8p7m5p",
        options={"pass_hu_scope": scope},
        actions=[*PASS_HU_START, discard(1, "5p"), discard(2, "7m"), discard(3, "5p"), hu(2)],
        autoplay=False,
    )
    assert ledger(play(rec)) == [(3, 2, 6, "hu")]


# 最后四张必须胡: seat 2 waits 5p; the only 5p of the wall is tile 50, drawn by seat 3 leaving 4 live
# tiles. Its discard must be won with must_hu_last_four; otherwise autoplay passes and seat 2 is
# paid its 大叫 (ping_hu, base x1) by each of the three others when the wall runs out.
LAST_FOUR_HANDS = [N2 + "9p", N1, READY_5P, N3]


@pytest.mark.parametrize(
    ("preset", "options", "expected"),
    [
        ("qq", {}, [(0, 2, 6, "cha_jiao"), (1, 2, 6, "cha_jiao"), (3, 2, 6, "cha_jiao")]),
        ("qq", {"must_hu_last_four": True}, [(3, 2, 6, "hu")]),
        ("chengdu", {}, [(3, 2, 1, "hu")]),
        (
            "chengdu",
            {"must_hu_last_four": False},
            [(0, 2, 1, "cha_jiao"), (1, 2, 1, "cha_jiao"), (3, 2, 1, "cha_jiao")],
        ),
    ],
)
def test_must_hu_last_four(preset: str, options: dict[str, Any], expected: list[Entry]) -> None:
    rec = build(LAST_FOUR_HANDS, tail="5p2s3s4s6s", rules=preset, options=options)
    assert parse_tiles(rec["wall"])[50] == T("5p")
    rec = then(rec, discard(0, "9p"), *wall_discards(rec, 0, 51))
    game = play(rec)
    assert ledger(game) == expected
    if len(expected) == 1:  # the win was forced: passing is not allowed
        err = replay_error(then(rec, pass_(2), autoplay=False))
        assert "must_hu" in err.message and f"actions[{len(rec['actions'])}]" in err.message


def test_must_hu_last_four_not_with_five_tiles_left() -> None:
    # As above with seats 2 and 3 swapped and the 5p one tile earlier: seat 2 draws it as wall tile
    # 49, leaving five live tiles, and throws it; seat 3 may pass, and is paid its 大叫 at the end.
    rec = build([N2 + "9p", N1, N3, READY_5P], tail="5p2s3s4s6s8s", options={"must_hu_last_four": True})
    assert parse_tiles(rec["wall"])[49] == T("5p")
    game = play(then(rec, discard(0, "9p"), *wall_discards(rec, 0, 50)))
    assert ledger(game) == [(0, 3, 6, "cha_jiao"), (1, 3, 6, "cha_jiao"), (2, 3, 6, "cha_jiao")]


# 最后四张必须胡 for robbing a bugang too. The dealer (KANCHAN_5P, waits 5p) throws 7s; seats draw and
# throw from the wall until seat 1 (123m456m789m19p55p) pengs the 5p that ends the wall's ``head``
# and throws 9p; then all throw what they draw until seat 1 draws the fourth 5p (the first of the
# ``tail``) and adds it to its peng. Thrown by seat 3 (wall tile 2): seat 1 draws wall tile 50, four
# live tiles are left, the dealer must rob. Thrown by seat 2 (tile 1): tile 49, five left, it may pass.
@pytest.mark.parametrize(
    ("options", "head", "tail", "forced"),
    [
        ({"must_hu_last_four": True}, "1m2m5p", "5p2s3s4s6s", True),
        ({"must_hu_last_four": True}, "1m5p", "5p2s3s4s6s8s", False),
        ({}, "1m2m5p", "5p2s3s4s6s", False),
    ],
)
def test_must_hu_last_four_robbing_a_bugang(options: dict[str, Any], head: str, tail: str, forced: bool) -> None:
    hands = [KANCHAN_5P + "7s", "123m456m789m19p55p", N1, N3]
    rec = build(hands, head, tail=tail, voids="ssmm", options=options, autoplay=False)
    wall = [tile_name(t) for t in parse_tiles(rec["wall"])]
    k0, bugang_at = len(parse_tiles(head)) - 1, len(wall) - len(parse_tiles(tail))
    assert wall[k0] == wall[bugang_at] == "5p"
    before = [discard((1 + k) % 4, wall[k]) for k in range(k0 + 1)]
    after = [discard((2 + k - k0 - 1) % 4, wall[k]) for k in range(k0 + 1, bugang_at)]
    rec = then(rec, discard(0, "7s"), *before, peng(1), discard(1, "9p"), *after, gang(1, "5p"))
    game = play(rec)
    assert (game.phase, game.live) == (Phase.ROB, 54 - bugang_at)
    assert {a.type for a in game.legal_actions(0)} == ({ActionType.HU} if forced else {ActionType.HU, ActionType.PASS})
    assert ledger(play(then(rec, hu(0)))) == [(1, 0, 6, "hu")]  # ping_hu x1 x6, paid by the konger
    if forced:
        err = replay_error(then(rec, pass_(0)))
        assert "must_hu" in err.message and f"actions[{len(rec['actions'])}]" in err.message
    else:
        assert ledger(play(then(rec, pass_(0)))) == [(0, 1, 6, "bugang"), (2, 1, 6, "bugang"), (3, 1, 6, "bugang")]


# =============================================================================================
# docs/rules.md §7: payments
# =============================================================================================


@pytest.mark.parametrize(("preset", "points"), [("qq", 6), ("chengdu", 1)])
def test_discard_win_discarder_alone_pays(preset: str, points: int) -> None:
    # 123m 456m 789m 123p 55p: ping_hu 1 fan x1 = one base
    rec = build([N2 + "5p", N1, READY_5P, N3], "7m", rules=preset, actions=[discard(0, "5p"), hu(2)], autoplay=False)
    game = play(rec)
    assert ledger(game) == [(0, 2, points, "hu")]
    assert [(w.seat, w.from_seat, w.tile) for w in game.winners] == [(2, 0, T("5p"))]
    assert (game.turn, game.drawn) == (3, T("7m"))  # the next seat after the winner draws
    game = play(then(rec, autoplay=True))  # nobody else ready, no kong: nothing more to pay
    assert ledger(game) == [(0, 2, points, "hu")]
    assert game.deltas() == [-points, 0, points, 0]


def test_base_score_option() -> None:
    rec = build([N2 + "5p", N1, READY_5P, N3], options={"base_score": 2}, actions=[discard(0, "5p"), hu(2)])
    assert ledger(play(rec)) == [(0, 2, 2, "hu")]


# Seat 1 waits 5p; it throws its first draw (1m), and its second draw (wall tile 4) is 5p.
SELF_DRAW = build(
    [N2 + "9p", READY_5P, N1, N3],
    "1m2m3m4m5p6m",
    autoplay=False,
    actions=[discard(0, "9p"), discard(1, "1m"), discard(2, "2m"), discard(3, "3m"), discard(0, "4m"), hu(1)],
)


@pytest.mark.parametrize(
    ("preset", "options", "points", "extras"),
    [
        ("qq", {}, 12, {}),  # ping_hu x1 x6 + 6 bonus
        ("chengdu", {}, 2, {}),  # 1 + 1 bonus
        ("qq", {"self_draw_bonus": "fan"}, 12, {"zi_mo_jia_fan": 1}),  # 2 fan x2 x6, no bonus
        ("qq", {"self_draw_bonus": "none"}, 6, {}),
    ],
)
def test_self_drawn_win_every_other_seat_pays(
    preset: str, options: dict[str, Any], points: int, extras: dict[str, int]
) -> None:
    rec = dict(SELF_DRAW, rules={"preset": preset, "options": options})
    game = play(rec)
    assert ledger(game) == [(0, 1, points, "zimo"), (2, 1, points, "zimo"), (3, 1, points, "zimo")]
    assert [(w.seat, w.from_seat) for w in game.winners] == [(1, None)]
    assert game.winners[0].score.extras_dict == extras
    assert (game.turn, game.drawn) == (2, T("6m"))  # the next seat after the winner draws


@pytest.mark.parametrize(("preset", "points"), [("qq", 12), ("chengdu", 2)])
def test_angang_pays_twice_base_from_every_other_seat(preset: str, points: int) -> None:
    game = play(build([KONG_DEALER, N1, N2, N3], rules=preset, actions=[gang(0, "1m")], autoplay=False))
    assert ledger(game) == [(1, 0, points, "angang"), (2, 0, points, "angang"), (3, 0, points, "angang")]
    assert game.deltas() == [3 * points, -points, -points, -points]
    assert game.seats[0].melds == [Meld(MeldKind.ANGANG, T("1m"))]


ZHIGANG_HANDS = [N2 + "5p", N1, "555p123m456m789m1p", N3]


@pytest.mark.parametrize(
    ("preset", "options", "expected"),
    [
        ("qq", {}, [(0, 2, 12, "zhigang")]),  # 2 x base from the discarder
        ("chengdu", {}, [(0, 2, 2, "zhigang")]),
        # 家家有: plus 1 x base from every other active seat
        ("qq", {"zhigang_payment": "everyone"}, [(0, 2, 12, "zhigang"), (1, 2, 6, "zhigang"), (3, 2, 6, "zhigang")]),
    ],
)
def test_zhigang_payment(preset: str, options: dict[str, Any], expected: list[Entry]) -> None:
    rec = build(
        ZHIGANG_HANDS, "7m", rules=preset, options=options, actions=[discard(0, "5p"), gang(2, "5p")], autoplay=False
    )
    game = play(rec)
    assert ledger(game) == expected
    assert game.seats[2].melds == [Meld(MeldKind.GANG, T("5p"))]
    assert (game.turn, game.drawn) == (2, T("7m"))  # the replacement, then seat 2 acts


# Seat 2 pengs the dealer's 5p and throws 9p; seats 3, 0, 1 throw wall tiles 0-2; seat 2 draws the
# fourth 5p (wall tile 3). It konges at once (the drawn tile), or keeps it, throws 1p, and konges on
# its next turn (wall tile 7: 9m) with the tile kept in hand (late).
BUGANG_HANDS = [N2 + "5p", N1, "123m456m789m19p55p", N3]
BUGANG_START = [discard(0, "5p"), peng(2), discard(2, "9p"), discard(3, "2m"), discard(0, "3m"), discard(1, "4m")]
BUGANG_NOW = [*BUGANG_START, gang(2, "5p")]
BUGANG_LATE = [*BUGANG_START, discard(2, "1p"), discard(3, "6m"), discard(0, "7m"), discard(1, "8m"), gang(2, "5p")]


@pytest.mark.parametrize(
    ("preset", "late", "points"),
    [
        ("qq", False, 6),  # 1 x base from each other seat
        ("qq", True, 6),  # late_bugang_pays = true: late or not
        ("chengdu", False, 1),  # late_bugang_pays = false, but the fourth tile was just drawn
        ("chengdu", True, 0),  # late: legal, pays nothing
    ],
)
def test_bugang_and_late_bugang_pays(preset: str, late: bool, points: int) -> None:
    rec = build(
        BUGANG_HANDS, "2m3m4m5p6m7m8m9m1m", rules=preset, actions=BUGANG_LATE if late else BUGANG_NOW, autoplay=False
    )
    game = play(rec)
    assert game.seats[2].melds == [Meld(MeldKind.GANG, T("5p"))]
    assert (game.turn, game.drawn) == (2, T("1m") if late else T("6m"))  # the replacement
    assert ledger(game) == (
        [(0, 2, points, "bugang"), (1, 2, points, "bugang"), (3, 2, points, "bugang")] if points else []
    )


def test_late_bugang_pays_option_alone() -> None:
    rec = build(
        BUGANG_HANDS, "2m3m4m5p6m7m8m9m1m", options={"late_bugang_pays": False}, actions=BUGANG_LATE, autoplay=False
    )
    assert ledger(play(rec)) == []


@pytest.mark.parametrize(
    ("preset", "points", "extras"),
    [
        ("qq", 6, {}),  # ping_hu x1; qiang_gang_hu is 0 fan in qq
        ("chengdu", 2, {"qiang_gang_hu": 1}),  # ping_hu 1 + qiang_gang_hu 1 = 2 fan x2 x1
    ],
)
def test_robbing_a_bugang(preset: str, points: int, extras: dict[str, int]) -> None:
    # As above, but seat 3 waits 5p (456p 11p). It passes the dealer's 5p (seat 2 pengs), draws
    # again (the pass no longer binds) and robs the bugang: seat 2 pays as the discarder.
    hands = [N2 + "5p", N1, "123m456m789m19p55p", KANCHAN_5P]
    rec = build(hands, "2m3m4m5p6m", rules=preset, actions=[*BUGANG_NOW, hu(3)], autoplay=False)
    game = play(rec)
    assert ledger(game) == [(2, 3, points, "hu")]  # the kong earns nothing
    assert game.seats[2].melds == [Meld(MeldKind.PENG, T("5p"))]  # it stays a peng
    (win,) = game.winners
    assert (win.seat, win.from_seat, win.tile, win.robbed) == (3, 2, T("5p"), True)
    assert win.score.extras_dict == extras
    assert (game.turn, game.drawn) == (0, T("6m"))  # the next seat after the winner draws


@pytest.mark.parametrize(
    ("preset", "win_seats", "expected", "next_turn"),
    [
        # seat 1 ping_hu (x1), seat 3 dui_dui_hu 111m 999m 111p 555p 99p (2 fan x2)
        ("qq", [1, 3], [(0, 1, 6, "hu"), (0, 3, 12, "hu")], 0),
        ("chengdu", [1, 3], [(0, 1, 1, "hu"), (0, 3, 2, "hu")], 0),
    ],
)
def test_several_winners_on_one_discard(
    preset: str, win_seats: list[int], expected: list[Entry], next_turn: int
) -> None:
    # 一炮多响: each winner paid by the discarder; the next draw follows the winner farthest from
    # the discarder in play order (seat 3), so seat 0 draws, not seat 2.
    hands = [N2 + "5p", READY_5P, N3, "111m999m111p99p55p"]
    rec = build(hands, "7m", rules=preset, actions=[discard(0, "5p"), hu(1), hu(3)], autoplay=False)
    game = play(rec)
    assert sorted(ledger(game)) == expected
    assert sorted(w.seat for w in game.winners) == win_seats
    assert (game.turn, game.drawn) == (next_turn, T("7m"))


# 杠上炮 and call transfer: seat 1 draws the fourth 9p, konges (12 from each other seat = 36),
# draws 7s and throws 5p; seat 3 (and seat 2 in the two-winner case) wins on it:
# ping_hu 1 + gang_shang_pao 1 = 2 fan x2 x6 = 12.
TRANSFER_KONGER = "5999p113346689s"
TRANSFER_ACTIONS = [discard(0, "3p"), gang(1, "9p"), discard(1, "5p")]
KONG_PAID = [(0, 1, 12, "angang"), (2, 1, 12, "angang"), (3, 1, 12, "angang")]


def transfer_record(options: Mapping[str, Any], two_winners: bool = False, autoplay: bool = False) -> dict[str, Any]:
    hands = [N2 + "3p", TRANSFER_KONGER, KANCHAN_5P if two_winners else N3, READY_5P]
    winners = [hu(2), hu(3)] if two_winners else [hu(3)]
    return build(hands, "9p7s", options=options, actions=[*TRANSFER_ACTIONS, *winners], autoplay=autoplay)


def test_call_transfer() -> None:
    game = play(transfer_record({}))
    assert ledger(game) == [*KONG_PAID, (1, 3, 12, "hu"), (1, 3, 36, "call_transfer")]
    assert game.winners[0].score.extras_dict == {"gang_shang_pao": 1}
    assert game.deltas() == [-12, -12, -12, 36]


def test_call_transfer_with_two_winners_each_gets_the_full_amount() -> None:
    game = play(transfer_record({}, two_winners=True))
    assert ledger(game) == [
        *KONG_PAID,
        (1, 2, 12, "hu"),
        (1, 2, 36, "call_transfer"),
        (1, 3, 12, "hu"),
        (1, 3, 36, "call_transfer"),
    ]
    assert game.deltas() == [-12, 36 - 24 - 72, 36, 36]  # the konger pays the extra copy itself


def test_call_transfer_off() -> None:
    game = play(transfer_record({"call_transfer": False}))
    assert ledger(game) == [*KONG_PAID, (1, 3, 12, "hu")]
    assert game.winners[0].score.extras_dict == {"gang_shang_pao": 1}  # still 杠上炮


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        # 杠上花 on a zhigang: 5555p kong + 123m 456m 789m 11p: ping_hu 1 + gen 1 +
        # gang_shang_hua 1 = 3 fan x4 x6 = 24; as a self-drawn win + 6 bonus = 30 from each other seat
        ("self_draw", [(0, 2, 12, "zhigang"), (0, 2, 30, "zimo"), (1, 2, 30, "zimo"), (3, 2, 30, "zimo")]),
        # 点杠花 as a discard win: the seat whose 5p was konged pays 24 alone
        ("discard", [(0, 2, 12, "zhigang"), (0, 2, 24, "hu")]),
    ],
)
def test_dian_gang_hua(mode: str, expected: list[Entry]) -> None:
    rec = build(
        ZHIGANG_HANDS,
        "1p",
        options={"dian_gang_hua": mode},
        actions=[discard(0, "5p"), gang(2, "5p"), hu(2)],
        autoplay=False,
    )
    game = play(rec)
    assert ledger(game) == expected
    assert game.winners[0].score.extras_dict == {"gen": 1, "gang_shang_hua": 1}


# =============================================================================================
# docs/rules.md §6 in play: 天胡, 地胡, 海底, seven pairs, the cap, fan options
# =============================================================================================


@pytest.mark.parametrize(
    ("preset", "points"),
    [
        ("qq", 198),  # tian_hu 6 fan x32 x6 = 192 + 6
        ("chengdu", 9),  # tian_hu = cap: x8 x1 + 1
    ],
)
def test_tian_hu(preset: str, points: int) -> None:
    game = play(build(["123m456m789m123p55p", N1, N2, N3], rules=preset, actions=[hu(0)], autoplay=False))
    assert ledger(game) == [(1, 0, points, "zimo"), (2, 0, points, "zimo"), (3, 0, points, "zimo")]
    assert game.winners[0].score.base == "tian_hu"


def test_tian_hu_after_the_exchange_took_the_dealers_fourteenth_tile() -> None:
    # 换三张 (counter): the dealer passes on 236s, its last dealt tile 6s among them, and gets 123p from
    # seat 3: 123m 456m 789m 123p 55p. With no drawn tile left, the win names its highest tile, 5p.
    hands = ["123m456m789m55p236s", N1, N2, "123p1223445569s"]
    gives = [exchange(0, "236s"), exchange(1, "149p"), exchange(2, "248p"), exchange(3, "123p")]
    rec = build(hands, options={"exchange_three": "counter", "dingque": False}, voids="", pre=gives,
                actions=[hu(0)], autoplay=False)
    game = play(rec)
    (win,) = game.winners
    assert (win.seat, win.tile, win.score.base) == (0, T("5p"), "tian_hu")
    assert ledger(game) == [(1, 0, 198, "zimo"), (2, 0, 198, "zimo"), (3, 0, 198, "zimo")]  # 6 fan x32 x6 + 6


@pytest.mark.parametrize(
    ("preset", "claim_first", "points", "base"),
    [
        ("qq", False, 198, "di_hu"),  # 6 fan x32 x6 + 6
        ("chengdu", False, 9, "di_hu"),  # cap x8 x1 + 1
        ("qq", True, 12, "ping_hu"),  # a peng came first: a plain self-drawn win, x1 x6 + 6
    ],
)
def test_di_hu(preset: str, claim_first: bool, points: int, base: str) -> None:
    # Seat 1 is ready from the deal and its first draw is 5p. In the last case seat 3 pengs the
    # dealer's 2s first (and throws 9s), so seat 1's first draw comes after a claim.
    hands = [N2 + "2s", READY_5P, N1, N3]
    if claim_first:
        rec = build(
            hands,
            "8m5p",
            rules=preset,
            autoplay=False,
            actions=[discard(0, "2s"), peng(3), discard(3, "9s"), discard(0, "8m"), hu(1)],
        )
    else:
        rec = build(hands, "5p", rules=preset, autoplay=False, actions=[discard(0, "2s"), hu(1)])
    game = play(rec)
    assert ledger(game)[-3:] == [(0, 1, points, "zimo"), (2, 1, points, "zimo"), (3, 1, points, "zimo")]
    assert game.winners[0].score.base == base


def test_di_hu_not_after_a_kong() -> None:
    # Spec decision: docs/rules.md §6.1 says "no claim made before it by anyone"; a concealed kong is no
    # claim, but it breaks the first go-around (the konger draws out of turn), so as a Chengdu
    # table plays it, a first-draw win after anyone's kong is no 地胡. The dealer konges 9999p
    # (12 from each), throws its replacement 3s; seat 1 self-draws 5p: ping_hu x1 x6 + 6 = 12 each.
    dealer = "9999p248p1245678s"
    rec = build(
        [dealer, READY_5P, M1, N3],
        "3s5p",
        voids="mssm",
        autoplay=False,
        actions=[gang(0, "9p"), discard(0, "3s"), hu(1)],
    )
    game = play(rec)
    assert ledger(game) == [
        (1, 0, 12, "angang"),
        (2, 0, 12, "angang"),
        (3, 0, 12, "angang"),
        (0, 1, 12, "zimo"),
        (2, 1, 12, "zimo"),
        (3, 1, 12, "zimo"),
    ]
    assert game.winners[0].score.base == "ping_hu"


@pytest.mark.parametrize(
    ("preset", "options", "self_drawn", "expected"),
    [
        # self-drawn on the last tile (wall tile 54, seat 3): qq hai_di 0 fan: x1 x6 + 6
        ("qq", {}, True, [(0, 3, 12, "zimo"), (1, 3, 12, "zimo"), (2, 3, 12, "zimo")]),
        # chengdu: ping_hu 1 + hai_di 1 = 2 fan x2 x1 + 1
        ("chengdu", {}, True, [(0, 3, 3, "zimo"), (1, 3, 3, "zimo"), (2, 3, 3, "zimo")]),
        # fan option hai_di = 1 in qq: 2 fan x2 x6 + 6
        ("qq", {"fan": {"hai_di": 1}}, True, [(0, 3, 18, "zimo"), (1, 3, 18, "zimo"), (2, 3, 18, "zimo")]),
        # the last tile thrown by seat 3 and won by seat 2: chengdu 2 fan x2 x1
        ("chengdu", {}, False, [(3, 2, 2, "hu")]),
        ("qq", {}, False, [(3, 2, 6, "hu")]),
    ],
)
def test_hai_di(preset: str, options: dict[str, Any], self_drawn: bool, expected: list[Entry]) -> None:
    hands = [N2 + "9p", N1, N3, READY_5P] if self_drawn else [N2 + "9p", N1, READY_5P, N3]
    rec = build(hands, tail="5p", rules=preset, options=options)
    first = [discard(0, "9p"), *wall_discards(rec, 0, 54 if self_drawn else 55)]
    game = play(then(rec, *first, hu(3) if self_drawn else hu(2)))
    assert ledger(game) == expected
    assert game.live == 0 and game.over
    assert game.winners[0].tile == T("5p")


@pytest.mark.parametrize(
    ("preset", "options", "points", "base"),
    [
        # 11 22 44 44 55 77 99: qq long_qi_dui 5 fan x16 x6 (4444m is not a gen again)
        ("qq", {}, 96, "long_qi_dui"),
        # roots: qi_dui 3 + gen 1 = 4 fan x8 x6
        ("qq", {"long_qi_dui_mode": "roots"}, 48, "qi_dui"),
        ("chengdu", {}, 8, "qi_dui"),  # 4 fan x8 x1 (= the cap)
    ],
)
def test_seven_pairs_with_a_four_and_long_qi_dui_mode(
    preset: str, options: dict[str, Any], points: int, base: str
) -> None:
    rec = build(
        [N2 + "9p", N1, "11224444m5577p9p", N3],
        rules=preset,
        options=options,
        actions=[discard(0, "9p"), hu(2)],
        autoplay=False,
    )
    game = play(rec)
    assert ledger(game) == [(0, 2, points, "hu")]
    assert game.winners[0].score.base == base


@pytest.mark.parametrize(
    ("preset", "options", "points"),
    [
        ("qq", {}, 96),  # 11 22 33 55 77 88 99 m: qing_qi_dui 5 fan x16 x6, no cap
        ("qq", {"cap_multiple": 4}, 24),
        ("chengdu", {}, 8),  # capped at x8
        ("chengdu", {"cap_multiple": 16}, 16),
    ],
)
def test_cap_multiple(preset: str, options: dict[str, Any], points: int) -> None:
    rec = build(
        [N2 + "9m", N1, "1122335577889m", N3],
        rules=preset,
        options=options,
        voids="mmpm",
        actions=[discard(0, "9m"), hu(2)],
        autoplay=False,
    )
    assert ledger(play(rec)) == [(0, 2, points, "hu")]


@pytest.mark.parametrize(("options", "points"), [({}, 6), ({"fan": {"jue_zhang": 1}}, 12)])
def test_jue_zhang_fan_option(options: dict[str, Any], points: int) -> None:
    # Seat 2 waits on 5p holding none. It passes the dealer's 5p; seat 1 draws and throws 5p
    # (blocked: 过水); seat 2 draws 9m and throws it; it passes seat 3's 5p; after a round of 1m 2m 3m
    # seat 3 draws and throws the last 5p: the other three copies all lie in rivers, so the win is
    # 绝张: +1 fan when it counts.
    # (A hand holding one of its winning tiles never scores it: tests/test_clarifications.py.)
    rec = build(
        [N2 + "5p", N1, KANCHAN_5P, N3],
        "5p9m5p1m2m3m5p",
        options=options,
        autoplay=False,
        actions=[discard(0, "5p"), pass_(2), discard(1, "5p"), discard(2, "9m"), discard(3, "5p"), pass_(2),
                 discard(0, "1m"), discard(1, "2m"), discard(2, "3m"), discard(3, "5p"), hu(2)],
    )
    assert ledger(play(rec)) == [(3, 2, points, "hu")]


# =============================================================================================
# docs/rules.md §8: the end of the hand
# =============================================================================================

THREE_WAITING = [N2 + "5p", KANCHAN_5P, READY_5P, "123m456m789m67p99p"]  # all three wait 5p


def test_three_winners_end_the_hand() -> None:
    rec = build(THREE_WAITING, actions=[discard(0, "5p"), hu(1), hu(2), hu(3)], autoplay=False)
    game = play(rec)
    assert game.over and game.live == 55  # over with the wall untouched
    assert ledger(game) == [(0, 1, 6, "hu"), (0, 2, 6, "hu"), (0, 3, 6, "hu")]  # ping_hu x1 each


def test_a_winner_is_out() -> None:
    # Seat 2 wins on the dealer's 5p. Seat 3 then self-draws 6s (123m 456m 789m 456s 22s, ping_hu
    # x1 x6 + 6): only the seats still in the hand pay (0 and 1, not 2). The dealer then draws the
    # fourth 8s and konges: 2 x 6 from seat 1 alone. Seat 1 throws; seat 0 is the next seat in play.
    dealer = "2458p1367788899s"
    rec = build(
        [dealer, N3, READY_5P, "123m456m789m45s22s"],
        "6s8s1m2m",
        autoplay=False,
        actions=[discard(0, "5p"), hu(2), hu(3), gang(0, "8s"), discard(0, "1m"), discard(1, "2m")],
    )
    game = play(rec)
    assert ledger(game) == [(0, 2, 6, "hu"), (0, 3, 12, "zimo"), (1, 3, 12, "zimo"), (1, 0, 12, "angang")]
    assert game.deltas() == [-6, -24, 6, 24]
    assert (game.turn, game.phase) == (0, Phase.TURN)  # after seat 1, skipping seats 2 and 3


def test_blood_river_winners_stay_and_win_again() -> None:
    # Seat 2 wins on the dealer's 5p, keeps its 13 tiles and self-draws the next 5p (wall tile 3):
    # x1 x6 + 6 from each of the three others, itself included in nobody's payment.
    rec = build(
        [N2 + "5p", N1, READY_5P, N3],
        "1m2m3m5p",
        options={"blood_river": True},
        actions=[discard(0, "5p"), hu(2), discard(3, "1m"), discard(0, "2m"), discard(1, "3m"), hu(2)],
    )
    game = play(rec)
    assert ledger(game) == [(0, 2, 6, "hu"), (0, 2, 12, "zimo"), (1, 2, 12, "zimo"), (3, 2, 12, "zimo")]
    assert [w.seat for w in game.winners] == [2, 2]
    assert game.live == 0  # the hand ran to the end of the wall


def test_blood_river_three_winners_do_not_end_the_hand() -> None:
    rec = build(
        THREE_WAITING, options={"blood_river": True}, actions=[discard(0, "5p"), hu(1), hu(2), hu(3)], autoplay=False
    )
    game = play(rec)
    assert not game.over and game.turn == 0  # after the farthest winner (3): the dealer draws
    game = play(then(rec, autoplay=True))
    assert game.live == 0
    assert ledger(game) == [(0, 1, 6, "hu"), (0, 2, 6, "hu"), (0, 3, 6, "hu")]


def test_end_on_first_win() -> None:
    # Seats 1 and 2 win on the same discard (seat 3 passes): both win, then the hand ends.
    acts = [discard(0, "5p"), hu(1), hu(2), pass_(3)]
    game = play(build(THREE_WAITING, options={"end_on_first_win": True}, actions=acts, autoplay=False))
    assert game.over and game.live == 55
    assert ledger(game) == [(0, 1, 6, "hu"), (0, 2, 6, "hu")]
    game = play(build(THREE_WAITING, actions=acts, autoplay=False))
    assert not game.over and game.turn == 3  # blood battle: it goes on


# --- 流局: the exhaustive-draw settlement -------------------------------------------------------------

# A flower pig: seat 1 is dealt m, p and s and picks m as its void; every tile it draws is an m
# tile (lane), so it throws one and keeps one m tile to the end.
PIG = "5m11223344556p2s"


@pytest.mark.parametrize(
    ("preset", "options", "points"),
    [
        ("qq", {}, 96),  # hua_zhu_multiple 16 x base 6
        ("chengdu", {}, 8),  # "cap": cap_multiple 8 x base 1
        ("qq", {"hua_zhu_multiple": 4}, 24),
        ("qq", {"dingque": False}, 96),  # no void: three suits make the pig
    ],
)
def test_hua_zhu(preset: str, options: dict[str, Any], points: int) -> None:
    voids = "" if options.get("dingque") is False else "mmmm"
    rec = build(
        [N1 + "8p", PIG, N2, N3], rules=preset, options=options, voids=voids, lane=(1, "m"), actions=[discard(0, "8p")]
    )
    game = play(rec)
    assert game.winners == []
    assert ledger(game) == [(1, 0, points, "hua_zhu"), (1, 2, points, "hua_zhu"), (1, 3, points, "hua_zhu")]


def test_a_flower_pig_pays_the_pig_penalty_not_da_jiao() -> None:
    # Seat 3 is ready (waits 5p, ping_hu x1 x6). The pig pays 96 to each non-pig seat, seat 3
    # included, and no 大叫; the two seats neither ready nor pigs pay seat 3 its 大叫.
    rec = build([N1 + "8p", PIG, N2, READY_5P], voids="mmms", lane=(1, "m"), actions=[discard(0, "8p")])
    assert ledger(play(rec)) == [
        (1, 0, 96, "hua_zhu"),
        (1, 2, 96, "hua_zhu"),
        (1, 3, 96, "hua_zhu"),
        (0, 3, 6, "cha_jiao"),
        (2, 3, 6, "cha_jiao"),
    ]


# Seat 2: 123m 789m 123p 78p 99p waits 6p (ping_hu x1) or 9p (123m 789m 123p 789p 99p: dai_yao_jiu
# 3 fan x4). The three others are not ready and pay it at the end.
@pytest.mark.parametrize(
    ("preset", "pays", "points"),
    [("qq", "max", 24), ("qq", "min", 6), ("chengdu", "max", 4), ("chengdu", "min", 1)],
)
def test_cha_da_jiao(preset: str, pays: str, points: int) -> None:
    rec = build(
        [N2 + "5p", N1, "123m789m123p78p99p", N3],
        rules=preset,
        options={"cha_jiao_pays": pays},
        actions=[discard(0, "5p")],
    )
    game = play(rec)
    assert ledger(game) == [(0, 2, points, "cha_jiao"), (1, 2, points, "cha_jiao"), (3, 2, points, "cha_jiao")]
    assert (game.da_jiao(2), game.da_jiao(0)) == (points, 0)  # a seat not ready has no 大叫


@pytest.mark.parametrize(
    ("counts", "expected"),
    [
        # seat 2's 5p: one in its hand, three thrown from the wall: a dead wait, still ready
        (True, [(0, 2, 6, "cha_jiao"), (0, 3, 6, "cha_jiao"), (1, 2, 6, "cha_jiao"), (1, 3, 6, "cha_jiao")]),
        # not ready: seat 2 pays seat 3 (123s 456s 789s 11p 88p, waits 1p/8p with copies unseen) too
        (False, [(0, 3, 6, "cha_jiao"), (1, 3, 6, "cha_jiao"), (2, 3, 6, "cha_jiao")]),
    ],
)
def test_dead_wait_counts(counts: bool, expected: list[Entry]) -> None:
    rec = build(
        [N2 + "2p", N1, READY_5P, "123s456s789s11p88p"],
        options={"dead_wait_counts": counts},
        actions=[discard(0, "2p")],
    )
    assert ledger(play(rec)) == expected


def test_a_wait_on_a_fifth_copy_is_no_wait() -> None:
    # seat 2: 1111m 234p 567p 789p would need a fifth 1m: not ready, it pays seat 3 (234m 567m 888m
    # 345p 5p: waits 2p or 5p, ping_hu x1) like the others.
    rec = build([N2 + "6s", N1, "1111m234p567p789p", "234m567m888m345p5p"], actions=[discard(0, "6s")])
    assert ledger(play(rec)) == [(0, 3, 6, "cha_jiao"), (1, 3, 6, "cha_jiao"), (2, 3, 6, "cha_jiao")]


@pytest.mark.parametrize(
    ("konger", "throw", "settlement"),
    [
        # not ready at the end: all 36 goes back
        ("5999p113346689s", "5p", [(1, 0, 12, "tui_shui"), (1, 2, 12, "tui_shui"), (1, 3, 12, "tui_shui")]),
        # ready (123m 456m 789m 5p + 9999p: tanki 5p): it keeps the kong money and is paid its 大叫,
        # ping_hu 1 + gen 1 = 2 fan x2 x6 = 12, by each of the three others
        ("123m456m789m5p999p", "7s", [(0, 1, 12, "cha_jiao"), (2, 1, 12, "cha_jiao"), (3, 1, 12, "cha_jiao")]),
    ],
)
def test_tui_shui(konger: str, throw: str, settlement: list[Entry]) -> None:
    rec = build([N2 + "3p", konger, N3, M1], "9p7s", actions=[discard(0, "3p"), gang(1, "9p"), discard(1, throw)])
    assert ledger(play(rec)) == [*KONG_PAID, *settlement]


def test_tui_shui_not_twice_after_call_transfer() -> None:
    # the transferred kong money is not refunded again when the konger ends not ready
    game = play(transfer_record({}, autoplay=True))
    assert ledger(game) == [*KONG_PAID, (1, 3, 12, "hu"), (1, 3, 36, "call_transfer")]
    game = play(transfer_record({"call_transfer": False}, autoplay=True))
    assert ledger(game) == [
        *KONG_PAID,
        (1, 3, 12, "hu"),
        (1, 0, 12, "tui_shui"),
        (1, 2, 12, "tui_shui"),
        (1, 3, 12, "tui_shui"),
    ]
    assert game.deltas() == [0, -12, 0, 12]


def test_tui_shui_not_to_an_escaped_seat() -> None:
    # Seat 1 konges (12 from each). Seat 3 wins on seat 2's 5p (wall tile 2), then leaves: qq takes
    # its win back. At the end seat 1 is not ready: it refunds seats 0 and 2, not seat 3.
    rec = build(
        [N2 + "3p", TRANSFER_KONGER, N3, READY_5P],
        "9p7s5p",
        actions=[discard(0, "3p"), gang(1, "9p"), discard(1, "7s"), discard(2, "5p"), hu(3), escape(3)],
    )
    game = play(rec)
    assert ledger(game) == [
        *KONG_PAID,
        (2, 3, 6, "hu"),
        (3, 2, 6, "escape"),
        (1, 0, 12, "tui_shui"),
        (1, 2, 12, "tui_shui"),
    ]
    assert game.deltas() == [0, 12, 0, -12]


# =============================================================================================
# docs/rules.md §10: escapes
# =============================================================================================


@pytest.mark.parametrize(("preset", "points", "win"), [("qq", 96, 6), ("chengdu", 16, 1)])
def test_escape_of_an_active_seat_ends_the_hand(preset: str, points: int, win: int) -> None:
    # seat 2 has won; seat 1 leaves while seat 3 is to act: 16 x base to each seat still in the hand
    rec = build(
        [N2 + "5p", N1, READY_5P, N3], rules=preset, actions=[discard(0, "5p"), hu(2), escape(1)], autoplay=False
    )
    game = play(rec)
    assert game.over
    assert ledger(game) == [(0, 2, win, "hu"), (1, 0, points, "escape"), (1, 3, points, "escape")]
    assert game.next_dealer() is None  # the people at the table change: dice


@pytest.mark.parametrize(
    ("thrown", "passes", "options", "live", "seat2_takes"),
    [
        # 5 tiles left: 16 x 6 to everyone, whether seat 2 (1122334455666m) holds the tile it drew
        # or has thrown it (2s, which seat 3 may peng) and is ready
        (49, [], {}, 5, 96),
        (50, [], {}, 5, 96),
        # 4 tiles left (seat 3 passes the 2s and draws): seat 2 takes its 大叫 if higher: 6m makes
        # 11 22 33 44 55 66 66, qing_long_qi_dui 6 fan x32 x6 = 192 > 96
        (50, [pass_(3)], {}, 4, 192),
        # its best wait still when cha_jiao_pays = "min" would settle an exhaustive draw with its
        # lowest (1m to 5m, e.g. 111 234 234 666 55m: qing_yi_se 3 fan x4 x6 = 24 < 96)
        (50, [pass_(3)], {"cha_jiao_pays": "min"}, 4, 192),
    ],
)
def test_escape_in_the_last_four_tiles_pays_da_jiao_if_higher(
    thrown: int, passes: list[Act], options: dict[str, Any], live: int, seat2_takes: int
) -> None:
    rec = build([N2 + "9p", N1, "1122334455666m", N3], voids="mmpm", options=options)
    rec = then(rec, discard(0, "9p"), *wall_discards(rec, 0, thrown), *passes, escape(1), autoplay=False)
    game = play(rec)
    assert game.live == live and game.is_ready(2) == (thrown == 50)
    assert ledger(game) == [(1, 0, 96, "escape"), (1, 2, seat2_takes, "escape"), (1, 3, 96, "escape")]


@pytest.mark.parametrize(
    ("preset", "options", "expected"),
    [
        ("qq", {}, [(0, 2, 6, "hu"), (2, 0, 6, "escape")]),  # forfeits: its win is not paid at all
        ("chengdu", {}, [(0, 2, 1, "hu")]),  # kept, credited at the end
        ("qq", {"escaped_winner_forfeits": False}, [(0, 2, 6, "hu")]),
    ],
)
def test_escaped_winner(preset: str, options: dict[str, Any], expected: list[Entry]) -> None:
    rec = build(
        [N2 + "5p", N1, READY_5P, N3],
        rules=preset,
        options=options,
        actions=[discard(0, "5p"), hu(2), escape(2)],
        autoplay=False,
    )
    game = play(rec)
    assert not game.over and game.turn == 3  # the hand goes on
    game = play(then(rec, autoplay=True))
    assert ledger(game) == expected
    assert game.next_dealer() is None


# =============================================================================================
# docs/rules.md §9: the dealer of the next hand
# =============================================================================================


def _discard_win(rules: str, options: Mapping[str, Any]) -> dict[str, Any]:
    return build([N2 + "5p", N1, READY_5P, N3], rules=rules, options=options, actions=[discard(0, "5p"), hu(2)])


def _self_drawn_win(rules: str, options: Mapping[str, Any]) -> dict[str, Any]:
    return dict(SELF_DRAW, rules={"preset": rules, "options": dict(options)}, autoplay="tsumogiri")


def _multiple_win(rules: str, options: Mapping[str, Any]) -> dict[str, Any]:
    # the dealer throws 8p; seat 1 draws 5p and throws it; seats 2 and 3 both win on it
    hands = [N2 + "8p", N3, READY_5P, "111m999m111p99p55p"]
    return build(hands, "5p", rules=rules, options=options, actions=[discard(0, "8p"), discard(1, "5p"), hu(2), hu(3)])


def _nobody_wins(rules: str, options: Mapping[str, Any]) -> dict[str, Any]:
    return build([N1, N2, N3 + "9p", M1], rules=rules, options=options, dealer=2, actions=[discard(2, "9p")])


@pytest.mark.parametrize(
    ("rules", "options", "expected"),
    [
        # first_winner (chengdu): the first winner; after 一炮多响 the discarder; nobody: the dealer stays
        ("chengdu", {}, {"discard": 2, "self": 1, "multiple": 1, "nobody": 2}),
        ("qq", {"dealer_rule": "first_winner"}, {"discard": 2, "self": 1, "multiple": 1, "nobody": 2}),
        # discarder: after a discard win the discarder, after a self-drawn win the winner
        ("qq", {"dealer_rule": "discarder"}, {"discard": 0, "self": 1, "multiple": 1, "nobody": 2}),
        # dice (qq): thrown anew
        ("qq", {}, {"discard": None, "self": None, "multiple": None, "nobody": None}),
    ],
)
def test_next_dealer(rules: str, options: dict[str, Any], expected: dict[str, int | None]) -> None:
    makers = {"discard": _discard_win, "self": _self_drawn_win, "multiple": _multiple_win, "nobody": _nobody_wins}
    got = {}
    for name, make in makers.items():
        game = play(make(rules, options))
        assert game.over
        got[name] = game.next_dealer()
    assert got == expected


def test_multiple_win_record_is_what_the_dealer_test_assumes() -> None:
    game = play(_multiple_win("qq", {}))
    # seat 2 ping_hu x1 x6, seat 3 dui_dui_hu x2 x6, both from seat 1
    assert ledger(game) == [(1, 2, 6, "hu"), (1, 3, 12, "hu")]
    assert [w.order for w in game.winners] == [1, 1]


# =============================================================================================
# Replay errors (docs/interfaces.md §2.4 and §2.6)
# =============================================================================================


def test_an_illegal_action_stops_the_replay_naming_its_index() -> None:
    rec = build([N2 + "5p", N1, READY_5P, N3], actions=[discard(0, "5p"), hu(2), discard(3, "1m")])
    # actions 0-3 are the dingque picks; 4 the discard; 5 the win; seat 3 drew 1m, so 6 is legal
    assert play(rec).over
    err = replay_error(then(rec, discard(2, "1m")))  # seat 2 has won: nothing to do
    assert err.code == "illegal_action" and "actions[7]" in err.message
    err = replay_error(build([N2 + "5p", N1, READY_5P, N3], actions=[discard(0, "1m")]))
    assert "actions[4]" in err.message and "tile_not_in_hand" in err.message
    err = replay_error(build([N2 + "5p", N1, READY_5P, N3], actions=[hu(2)]))
    assert "actions[4]" in err.message


def test_actions_after_the_end_and_wrong_tile_sets() -> None:
    rec = build(THREE_WAITING, actions=[discard(0, "5p"), hu(1), hu(2), hu(3), discard(0, "1p")])
    assert replay_error(rec).code == "actions_after_end"
    rec = build([N2 + "5p", N1, READY_5P, N3])
    rec["wall"] = rec["wall"][:-2] + "5p"  # one 8s short, one 5p too many
    with pytest.raises(RecordError) as info:
        parse_record(rec)
    assert info.value.code == "not_108_tiles"
