"""The match layer (docs/rules.md §9-13): rooms, dealer rotation, escapes, bystander bets, item cards."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Sequence

import pytest

from xuezhan.bots import Bot, make_bot
from xuezhan.coins import settle_detailed
from xuezhan.engine.actions import Action, ActionType
from xuezhan.engine.deal import Deal, throw_for_dealer
from xuezhan.engine.game import Game, Phase
from xuezhan.engine.views import SeatView
from xuezhan.errors import IllegalActionError
from xuezhan.match import (
    DOUBLE_CARD,
    JIAO_MA,
    Hand,
    HandResult,
    ItemKind,
    Match,
    MatchError,
    RoomConfig,
    hand_seed,
    jiao_ma_seat,
)
from xuezhan.records import parse_record, replay, tsumogiri
from xuezhan.rules import Rules
from xuezhan.runtime.incidents import play_match_hand
from xuezhan.selfplay import play_hand
from xuezhan.tiles import full_set, parse_tile, parse_tiles

PEOPLE = ["ann", "bo", "cai", "dan", "eve", "fu", "gu", "hua", "ivy"]


def room(preset: str = "qq", *, hands: int = 8, items: bool = False, **options: object) -> RoomConfig:
    return RoomConfig(Rules.preset(preset).with_options(options), coefficient=10, fee=3, hands=hands,
                      items_allowed=items)


def bots(seed: int, kind: str | Sequence[str] = "heuristic") -> list[Bot]:
    kinds = [kind] * 4 if isinstance(kind, str) else list(kind)
    return [make_bot(kinds[k], random.Random(seed * 4 + k)) for k in range(4)]


def play(hand: Hand, seed: int = 0, kind: str | Sequence[str] = "heuristic") -> HandResult:
    play_hand(hand.game, bots(seed, kind))
    return hand.match.finish_hand(hand)


def step(game: Game, players: Sequence[Bot]) -> None:
    """One decision of the bots (the turn seat, or every seat of a claim window)."""
    if game.phase is Phase.TURN:
        s = game.turn
        game.apply(players[s].choose(SeatView(game, s), game.legal_actions(s)))
        return
    for s in game.pending():
        if game.over:
            break
        legal = game.legal_actions(s)
        if legal:
            game.apply(players[s].choose(SeatView(game, s), legal))


def make_deal(dealer: int, fixed: dict[int, str], tail: str = "", seed: int = 0) -> Deal:
    """A deal where the seats in ``fixed`` hold the given tiles and the live wall ends with ``tail``;
    everything else is shuffled by ``seed``."""
    rest = full_set()
    hands: dict[int, list[int]] = {}
    for seat, text in fixed.items():
        hands[seat] = parse_tiles(text)
        for t in hands[seat]:
            rest.remove(t)
    tail_tiles = parse_tiles(tail) if tail else []
    for t in tail_tiles:
        rest.remove(t)
    random.Random(seed).shuffle(rest)
    for seat in range(4):
        if seat not in hands:
            n = 14 if seat == dealer else 13
            hands[seat], rest = rest[:n], rest[n:]
    return Deal(tuple(tuple(hands[s]) for s in range(4)), tuple(rest + tail_tiles))


def seat_points(result: HandResult, player: str, *, exclude: Callable[[str], bool] = lambda r: False) -> int:
    total = 0
    for t in result.transfers:
        if exclude(t.reason):
            continue
        if t.payer == player:
            total -= t.points
        if t.payee == player:
            total += t.points
    return total


# --- rooms ----------------------------------------------------------------------------------------------------


def test_room_round_trips_and_validates() -> None:
    r = RoomConfig.from_mapping({"rules": "chengdu", "base_score": 5, "coefficient": 200, "fee": 400,
                                 "hands": 4, "items_allowed": True, "ticket_required": True})
    assert r.base_score == 5 and r.rules.cap_multiple == 8
    assert RoomConfig.from_mapping(json.loads(json.dumps(r.to_mapping()))) == r
    assert RoomConfig().rules == Rules.preset("qq") and not RoomConfig().items_allowed  # items off by default
    for bad in ({"coefficient": -1}, {"fee": 1.5}, {"hands": 0}, {"items_allowed": 1}, {"colour": "red"},
                {"rules": {"preset": "nope"}}, {"base_score": 0}):
        with pytest.raises(MatchError) as exc:
            RoomConfig.from_mapping(bad)
        assert exc.value.code == "bad_room"


def test_people_at_a_table() -> None:
    with pytest.raises(MatchError, match="4 to 8"):
        Match(room(), PEOPLE[:3], seed=1)
    with pytest.raises(MatchError, match="4 to 8"):
        Match(room(), PEOPLE[:9], seed=1)
    with pytest.raises(MatchError):
        Match(room(), ["a", "a", "b", "c"], seed=1)
    m = Match(room(), PEOPLE[:8], seed=1)
    assert m.seats == PEOPLE[:4] and m.bystanders == tuple(PEOPLE[4:8])
    with pytest.raises(MatchError) as exc:
        m.join("zed")
    assert exc.value.code == "table_full"


# --- docs/rules.md §9: a match and its dealers -----------------------------------------------------------------


def test_a_match_hand_is_the_engine_hand_of_its_seed() -> None:
    m = Match(room(), PEOPLE[:4], seed=42)
    hand = m.start_hand()
    seed = hand_seed(42, 1)
    game = Game.new(Rules.preset("qq"), rng=random.Random(seed))
    assert hand.game.deal == game.deal and hand.dealer == game.dealer
    assert hand.dealer == throw_for_dealer(random.Random(seed))  # the first dealer by dice


def expected_dealer(rule: str, prev: HandResult, seed: int, hand_no: int) -> int:
    """docs/rules.md §9, from the previous hand's record alone."""
    if rule == "dice" or prev.escaped:
        return throw_for_dealer(random.Random(hand_seed(seed, hand_no)))
    winners = prev.record["result"]["winners"]
    if not winners:
        return prev.dealer  # 连庄
    first = [w for w in winners if w["order"] == 1]
    seat: int = first[0]["seat"]
    source: int | None = first[0]["from"]
    if rule == "first_winner":
        return source if len(first) > 1 and source is not None else seat
    return seat if source is None else source  # discarder


@pytest.mark.parametrize("end_on_first_win", [False, True])
@pytest.mark.parametrize("rule", ["first_winner", "dice", "discarder"])
def test_dealer_of_each_next_hand(rule: str, end_on_first_win: bool) -> None:
    seen: set[str] = set()
    for seed in range(12):
        m = Match(room(hands=8, dealer_rule=rule, end_on_first_win=end_on_first_win), PEOPLE[:4], seed=seed)
        prev: HandResult | None = None
        while not m.finished:
            hand = m.start_hand()
            if prev is not None:
                assert hand.dealer == expected_dealer(rule, prev, seed, hand.hand_no)
            # some random bots, so that some hands end with nobody winning
            prev = play(hand, seed * 100 + hand.hand_no, "random" if seed % 3 == 0 else "heuristic")
            winners = prev.record["result"]["winners"]
            first = [w for w in winners if w["order"] == 1]
            seen.add("none" if not first else "multi" if len(first) > 1 else "zimo" if first[0]["from"] is None
                     else "hu")
        assert m.hands_played == 8
        with pytest.raises(MatchError) as exc:
            m.start_hand()
        assert exc.value.code == "match_over"
    assert seen == {"none", "multi", "zimo", "hu"}


def test_a_change_of_seated_players_means_dice() -> None:
    for seed in range(50):
        m = Match(room(dealer_rule="first_winner"), PEOPLE[:5], seed=seed)
        result = play(m.start_hand(), seed)
        assert result.next_dealer is not None
        dice = throw_for_dealer(random.Random(hand_seed(seed, 2)))
        if dice == result.next_dealer:
            continue  # the dice would agree: try a seed where they differ
        # a bystander coming and going does not change the table
        m.join("zed")
        m.leave("zed")
        assert m.next_hand_dealer() == result.next_dealer
        # a seated player leaving (the bystander takes the seat) does
        m.leave(PEOPLE[1])
        assert m.seats == [PEOPLE[0], PEOPLE[4], PEOPLE[2], PEOPLE[3]]
        assert m.start_hand().dealer == dice
        return
    pytest.fail("no seed where the dice differ from the rule")


def test_empty_seat_waits_for_a_player() -> None:
    m = Match(room(), PEOPLE[:4], seed=3)
    m.leave(PEOPLE[2])
    assert m.seats[2] is None
    with pytest.raises(MatchError) as exc:
        m.start_hand()
    assert exc.value.code == "seat_empty"
    m.join("zed")
    assert m.seats[2] == "zed"
    hand = m.start_hand()
    with pytest.raises(MatchError) as exc:
        m.join("yan")
    assert exc.value.code == "hand_in_progress"
    with pytest.raises(MatchError):
        m.finish_hand(hand)  # not over yet
    play(hand)


def test_running_points_and_state_round_trip() -> None:
    m = Match(room(hands=6, items=True), PEOPLE[:6], seed=7)
    totals: dict[str, int] = dict.fromkeys(PEOPLE[:6], 0)
    for k in range(3):
        res = play(m.start_hand(), k)
        for p, v in res.points().items():
            totals[p] += v
        assert sum(res.points().values()) == 0
    m.use_golden_finger(PEOPLE[0])
    assert m.running == totals and sum(m.running.values()) == 0
    state = json.loads(json.dumps(m.state_json()))
    copy = Match.from_state(m.room, state)
    assert copy.state_json() == m.state_json()
    a, b = m.start_hand(), copy.start_hand()
    assert a.game.deal == b.game.deal and a.dealer == b.dealer and a.bets == b.bets
    ra, rb = play(a, 9), play(b, 9)
    assert ra == rb


def test_hand_result_json_round_trip_and_record_replays() -> None:
    m = Match(room(items=True), PEOPLE[:7], seed=11)
    hand = m.start_hand(double=[PEOPLE[1]], flush={PEOPLE[2]: None})
    play_match_hand(hand, bots(3), random.Random(3), item_rate=0.2)
    result = m.finish_hand(hand)
    again = HandResult.from_json(json.loads(json.dumps(result.to_json())))
    assert again == result and again.record == result.record
    game, complete = replay(parse_record(json.loads(json.dumps(result.record))))
    assert complete
    assert game.ledger == hand.game.ledger


# --- docs/rules.md §10: escapes ------------------------------------------------------------------------------


def test_an_active_seat_escaping_ends_and_settles_the_hand() -> None:
    m = Match(room("qq", hands=2), PEOPLE[:4], seed=5)
    hand = m.start_hand()
    game = hand.game
    players = bots(5)
    while game.live > 30:
        step(game, players)
    escaper = next(s for s in range(4) if game.contending(s))
    before = list(game.ledger)
    active = [s for s in range(4) if s != escaper and game.active(s)]
    hand.escape(escaper)
    assert game.over
    assert game.ledger[: len(before)] == before  # wins and kongs so far stand
    penalties = game.ledger[len(before):]
    assert [(e.from_seat, e.to_seat, e.points, e.reason) for e in penalties] == [
        (escaper, o, 16 * 6, "escape") for o in active
    ]
    result = m.finish_hand(hand)
    assert result.escaped == (PEOPLE[escaper],)
    assert PEOPLE[escaper] not in m.people  # the escaper has left the table
    assert result.next_dealer is None  # people changed: dice


def test_escape_in_the_last_four_tiles_pays_da_jiao_if_higher() -> None:
    m = Match(room("qq", hands=1), PEOPLE[:4], seed=8)
    dealer = m.next_hand_dealer()
    big = (dealer + 1) % 4
    # seat `big` waits on 6p with 清龙七对 (qq: 6 fan, x32 = 192 points > 16 x 6 = 96);
    # the other copies of 6p lie at the end of the wall, so nobody draws them before the last four tiles
    deal = make_deal(dealer, {big: "1111223344556p"}, tail="666p", seed=8)
    hand = m.start_hand(deal=deal)
    game = hand.game
    while game.live > 4:
        game.apply(tsumogiri(game, game.pending()[0]))
    assert game.is_ready(big) and game.da_jiao(big) == 192
    escaper = (big + 1) % 4
    others = [s for s in range(4) if s != escaper and game.active(s)]
    n = len(game.ledger)
    hand.escape(escaper)
    paid = {e.to_seat: e.points for e in game.ledger[n:]}
    assert paid[big] == 192
    for s in others:
        expect = max(96, game.da_jiao(s)) if game.is_ready(s) else 96
        assert paid[s] == expect
    result = m.finish_hand(hand)
    assert result.points()[PEOPLE[escaper]] == -sum(paid.values()) + seat_points(result, PEOPLE[escaper],
                                                                                  exclude=lambda r: r == "escape")


def _escaped_winner_hands(preset: str, seeds: range) -> list[tuple[Match, Hand, int, int]]:
    """Hands where the first winner leaves right after winning: (match, hand, escaper, ledger length then)."""
    out = []
    for seed in seeds:
        m = Match(room(preset, hands=2), PEOPLE[:5], seed=seed)
        hand = m.start_hand()
        game = hand.game
        players = bots(seed, ["heuristic" if (seed >> k) & 1 else "random" for k in range(4)])
        escaper = -1
        mark = 0
        while not game.over:
            step(game, players)
            if escaper < 0 and game.winners and not game.over:
                escaper = game.winners[0].seat
                hand.escape(escaper)
                mark = len(game.ledger)
                assert not game.over or sum(game.contending(s) for s in range(4)) <= 1  # the hand goes on
        if escaper >= 0:
            out.append((m, hand, escaper, mark))
        else:
            m.finish_hand(hand)
    return out


def test_escaped_winner_forfeits_its_gains_in_qq() -> None:
    cases = _escaped_winner_hands("qq", range(30))
    assert len(cases) >= 10
    for m, hand, escaper, mark in cases:
        game = hand.game
        won = sum(e.points for e in game.ledger[:mark] if e.to_seat == escaper and e.reason in ("hu", "zimo",
                                                                                               "call_transfer"))
        returned = sum(e.points for e in game.ledger[:mark] if e.from_seat == escaper and e.reason == "escape")
        assert won > 0 and returned == won  # "不给予所赢番数": paid back at once
        assert all(e.to_seat != escaper for e in game.ledger[mark:])  # nothing more, no 退税 refund
        result = m.finish_hand(hand)
        # what it keeps: kong money (刮风下雨 is not 番数), less what it paid before it won
        kong_in = sum(e.points for e in game.ledger[:mark] if e.to_seat == escaper and e.reason in
                      ("angang", "bugang", "zhigang"))
        paid = sum(e.points for e in game.ledger[:mark] if e.from_seat == escaper and e.reason != "escape")
        assert seat_points(result, PEOPLE[escaper], exclude=lambda r: r == JIAO_MA) == kong_in - paid
        assert result.escaped == (PEOPLE[escaper],) and m.seats[escaper] == PEOPLE[4]  # the bystander sits down
        assert m.next_hand_dealer() == throw_for_dealer(random.Random(hand_seed(m.seed, 2)))


def test_escaped_winner_is_credited_at_the_end_without_refund_in_chengdu() -> None:
    cases = _escaped_winner_hands("chengdu", range(400))
    refunds_withheld = 0
    for m, hand, escaper, mark in cases:
        game = hand.game
        assert not any(e.reason == "escape" for e in game.ledger)  # gains stand
        assert all(e.to_seat != escaper for e in game.ledger[mark:])
        result = m.finish_hand(hand)
        at_escape = sum(e.points for e in game.ledger[:mark] if e.to_seat == escaper) - sum(
            e.points for e in game.ledger[:mark] if e.from_seat == escaper)
        # credited when the hand is settled (bystander side bets aside)
        assert seat_points(result, PEOPLE[escaper], exclude=lambda r: r == JIAO_MA) == at_escape
        # a seat refunding kong money (退税) refunds everyone but the escaped winner
        paid_to = {e.to_seat for e in game.ledger if e.from_seat == escaper and e.reason in
                   ("angang", "bugang", "zhigang")}
        for konger in paid_to:
            refunded = {e.to_seat for e in game.ledger if e.from_seat == konger and e.reason == "tui_shui"}
            if refunded:
                assert escaper not in refunded
                refunds_withheld += 1
    assert len(cases) >= 100 and refunds_withheld >= 1


# --- docs/rules.md §11: coins of a hand --------------------------------------------------------------------------


def test_hand_coins_fee_for_seats_only() -> None:
    m = Match(RoomConfig(Rules.preset("qq"), coefficient=200, fee=400, hands=1), PEOPLE[:6], seed=2)
    result = play(m.start_hand(), 2)
    balances = {p: 10**7 for p in result.participants}
    coins = result.coins(m.room, balances)
    pts = result.points()
    assert result.participants == tuple(PEOPLE[:6])
    assert list(coins.changes[:4]) == [pts[p] * 200 - 400 for p in PEOPLE[:4]]
    assert list(coins.changes[4:]) == [pts[p] * 200 for p in PEOPLE[4:6]]  # bystanders pay no fee
    assert coins.house == 1600 and sum(coins.changes) == -1600
    poor = dict(balances, **{PEOPLE[0]: 0, PEOPLE[5]: 50})
    assert result.coins(m.room, poor) == settle_detailed(
        [pts[p] for p in result.participants], [poor[p] for p in result.participants], 200, [400] * 4 + [0, 0])


# --- docs/rules.md §12: bystander bets (叫马) ----------------------------------------------------------------------


@pytest.mark.parametrize("dealer", range(4))
def test_jiao_ma_seat_counts_from_the_dealer(dealer: int) -> None:
    for rank, offset in zip(range(1, 10), [0, 1, 2, 3, 0, 1, 2, 3, 0], strict=True):
        for suit in "mps":
            assert jiao_ma_seat(parse_tile(f"{rank}{suit}"), dealer) == (dealer + offset) % 4


@pytest.mark.parametrize("people", [5, 6, 7, 8])
def test_bystanders_draw_from_the_tail_and_mirror_their_seat(people: int) -> None:
    for seed in range(6):
        m = Match(room("chengdu", items=True), PEOPLE[:people], seed=seed)
        plain = Game.new(m.room.rules, rng=random.Random(hand_seed(seed, 1)))
        hand = m.start_hand(double=[PEOPLE[seed % 4]] if seed % 2 else [])
        game = hand.game
        k = people - 4
        assert [b.player for b in hand.bets] == PEOPLE[4:people]
        # each in turn takes the top tile of the last stack at the tail, and leaves the wall
        assert [b.tile for b in hand.bets] == list(reversed(plain.deal.wall))[:k]
        assert all(b.seat == jiao_ma_seat(b.tile, hand.dealer) for b in hand.bets)
        assert game.live == len(plain.deal.wall) - k and game.tile_total() == 108
        play_hand(game, bots(seed))
        assert game.tile_total() == 108
        result = m.finish_hand(hand)
        assert sum(result.points().values()) == 0
        for bet in result.bets:
            seat_player = result.seating[bet.seat]
            # the bystander wins or loses exactly what its seat does in the hand (side bets aside)
            assert result.points()[bet.player] == seat_points(result, seat_player, exclude=lambda r: r == JIAO_MA)
            mirrored = sorted((t.payer, t.payee, t.points, t.basis) for t in result.transfers
                              if t.reason == JIAO_MA and bet.player in (t.payer, t.payee))
            own = sorted(
                (bet.player if t.payer == seat_player else t.payer,
                 bet.player if t.payee == seat_player else t.payee, t.points, t.reason)
                for t in result.transfers if t.reason != JIAO_MA and seat_player in (t.payer, t.payee))
            assert mirrored == own
        # two bystanders never pay each other
        assert not any(t.payer in m.bystanders and t.payee in m.bystanders for t in result.transfers)


def test_bystanders_bet_on_every_hand_and_may_sit_down() -> None:
    m = Match(room(hands=3), PEOPLE[:6], seed=4)
    r1 = play(m.start_hand(), 1)
    assert [b.player for b in r1.bets] == PEOPLE[4:6]
    m.leave(PEOPLE[0])  # the longest-waiting bystander sits down
    hand = m.start_hand()
    assert hand.seating == (PEOPLE[4], *PEOPLE[1:4]) and [b.player for b in hand.bets] == [PEOPLE[5]]
    play(hand, 2)


# --- docs/rules.md §13: item cards ------------------------------------------------------------------------------


def test_items_only_in_rooms_that_allow_them() -> None:
    m = Match(room(items=False), PEOPLE[:4], seed=1)
    with pytest.raises(MatchError) as exc:
        m.start_hand(double=[PEOPLE[0]])
    assert exc.value.code == "items_not_allowed"
    with pytest.raises(MatchError) as exc:
        m.start_hand(flush={PEOPLE[0]: None})
    assert exc.value.code == "items_not_allowed"
    hand = m.start_hand()
    with pytest.raises(MatchError) as exc:
        m.use_golden_finger(PEOPLE[0])
    assert exc.value.code == "items_not_allowed"
    game = hand.game
    while game.phase is not Phase.TURN:
        game.apply(tsumogiri(game, game.pending()[0]))
    seat, tile = game.turn, game.seats[game.turn].tiles()[0]
    uses: list[Callable[[], object]] = [
        lambda: hand.swap(seat, tile, game.live_wall[0]),
        lambda: hand.random_swap(seat, tile),
        lambda: hand.seek(seat, 0),
    ]
    for use in uses:
        with pytest.raises(MatchError) as exc:
            use()
        assert exc.value.code == "items_not_allowed"


def test_bystanders_use_no_items() -> None:
    m = Match(room(items=True), PEOPLE[:5], seed=1)
    with pytest.raises(MatchError) as exc:
        m.start_hand(double=[PEOPLE[4]])
    assert exc.value.code == "not_seated"
    with pytest.raises(MatchError):
        m.use_golden_finger(PEOPLE[4])


def test_double_card_counts_the_seat_result_twice() -> None:
    for seed in range(8):
        doubled = PEOPLE[seed % 4]
        plain_m = Match(room(items=True), PEOPLE[:4], seed=seed)
        plain = play(plain_m.start_hand(), seed)
        m = Match(room(items=True), PEOPLE[:4], seed=seed)
        result = play(m.start_hand(double=[doubled]), seed)
        assert [u.kind for u in result.items] == [ItemKind.DOUBLE]
        assert result.points()[doubled] == 2 * plain.points()[doubled]
        extra = [t for t in result.transfers if t.reason == DOUBLE_CARD]
        assert sorted((t.payer, t.payee, t.points, t.basis) for t in extra) == sorted(
            (t.payer, t.payee, t.points, t.reason) for t in plain.transfers if doubled in (t.payer, t.payee))
    # both sides of an entry doubled: it counts twice, not four times
    m = Match(room(items=True), PEOPLE[:4], seed=3)
    plain = play(Match(room(items=True), PEOPLE[:4], seed=3).start_hand(), 3)
    result = play(m.start_hand(double=PEOPLE[:4]), 3)
    assert result.points() == {p: 2 * v for p, v in plain.points().items()}
    with pytest.raises(MatchError) as exc:
        Match(room(items=True), PEOPLE[:4], seed=3).start_hand(double=[PEOPLE[0], PEOPLE[0]])
    assert exc.value.code == "item_used"


@pytest.mark.parametrize("suit", [None, 0, 1, 2])
def test_flush_card_deals_close_to_one_suit(suit: int | None) -> None:
    for seed in range(10):
        people = 4 + seed % 5
        m = Match(room(items=True), PEOPLE[:people], seed=seed)
        plain = Match(room(items=True), PEOPLE[:people], seed=seed).start_hand()
        player = PEOPLE[seed % 4]
        hand = m.start_hand(flush={player: suit})
        seat = hand.seating.index(player)
        (use,) = hand.items
        assert use.kind is ItemKind.FLUSH and use.seat == seat
        if suit is not None:
            assert use.suit == suit
        else:  # its longest suit
            held = [sum(1 for t in plain.game.deal.hands[seat] if t // 9 == x) for x in range(3)]
            assert held[use.suit or 0] == max(held)
        tiles = hand.game.deal.hands[seat]
        assert sum(1 for t in tiles if t // 9 == use.suit) == len(tiles) - 2  # all but two
        # only that seat's hand and the live wall changed; 108 tiles; the bystanders' tiles untouched
        for s in range(4):
            if s != seat:
                assert hand.game.deal.hands[s] == plain.game.deal.hands[s]
        before = sorted(plain.game.deal.hands[seat] + plain.game.deal.wall)
        assert sorted(tiles + hand.game.deal.wall) == before
        assert hand.bets == plain.bets
        assert hand.game.tile_total() == 108
        play(hand, seed)


def _to_turn(hand: Hand) -> int:
    game = hand.game
    while game.phase is not Phase.TURN:
        game.apply(tsumogiri(game, game.pending()[0]))
    return game.turn


def test_swap_card_on_the_seats_turn() -> None:
    m = Match(room(items=True), PEOPLE[:5], seed=6)
    hand = m.start_hand()
    game = hand.game
    seat = _to_turn(hand)
    other = (seat + 1) % 4
    give = game.seats[seat].tiles()[0]
    want = next(t for t in game.live_wall if t != give)
    with pytest.raises(IllegalActionError) as exc:
        hand.swap(other, game.seats[other].tiles()[0], want)
    assert exc.value.code == "not_your_turn"
    pos = game.wall_positions(want)[0]
    held = game.seats[seat].counts[:]
    use = hand.swap(seat, give, want)
    assert (use.tile, use.wanted, use.kind) == (give, want, ItemKind.SWAP)
    assert game.seats[seat].counts[want] == held[want] + 1 and game.seats[seat].counts[give] == held[give] - 1
    assert game.live_wall[pos] == give  # the tile given up takes the wanted tile's place
    assert game.tile_total() == 108
    with pytest.raises(MatchError) as exc2:
        hand.swap(seat, want, give)
    assert exc2.value.code == "item_used"
    result = play(hand, 6)
    assert result.items == (use,)
    game2, _ = replay(parse_record(result.record))  # the record replays the swap
    assert game2.ledger == game.ledger


def test_random_swap_card_takes_a_random_live_tile() -> None:
    got = set()
    for seed in range(12):
        m = Match(room(items=True), PEOPLE[:4], seed=seed)
        hand = m.start_hand()
        game = hand.game
        seat = _to_turn(hand)
        give = game.seats[seat].tiles()[-1]
        live_before = sorted(game.live_wall)
        use = hand.random_swap(seat, give)
        assert use.wanted is not None and use.wanted != give and use.wanted in live_before
        assert sorted(game.live_wall) == sorted(_swap_out(live_before, use.wanted, give))
        assert game.tile_total() == 108
        got.add(use.wanted)
        # the same seed gives the same tile
        again = Match(room(items=True), PEOPLE[:4], seed=seed).start_hand()
        _to_turn(again)
        assert again.random_swap(seat, give).wanted == use.wanted
    assert len(got) > 3  # really random


def _swap_out(live: list[int], wanted: int, give: int) -> list[int]:
    out = list(live)
    out.remove(wanted)
    return [*out, give]


def test_seek_card_tells_the_quarters() -> None:
    m = Match(room(items=True), PEOPLE[:6], seed=9)
    hand = m.start_hand()
    game = hand.game
    seat = _to_turn(hand)
    for tile in range(27):
        positions = game.wall_positions(tile)
        quarters = [0, 0, 0, 0]
        for p in positions:
            quarters[p * 4 // game.live] += 1
        if tile == 5:
            use = hand.seek(seat, tile)
            assert use.quarters == tuple(quarters) and use.tile == 5
    assert sum(use.quarters or ()) == len(game.wall_positions(5))
    with pytest.raises(MatchError) as exc:
        hand.seek(seat, 6)
    assert exc.value.code == "item_used"
    # a seat that has won gets no use of it; after the hand nobody does
    players = bots(9)
    while not game.winners:
        step(game, players)
    assert not game.over
    with pytest.raises(MatchError) as exc:
        hand.seek(game.winners[0].seat, 0)
    assert exc.value.code == "not_playing"
    play_hand(game, players)
    with pytest.raises(MatchError) as exc:
        hand.seek((seat + 1) % 4, 0)
    assert exc.value.code == "hand_over"


def test_golden_finger_is_cosmetic_and_lasts_while_at_the_table() -> None:
    a = Match(room(items=True), PEOPLE[:5], seed=12)
    b = Match(room(items=True), PEOPLE[:5], seed=12)
    a.use_golden_finger(PEOPLE[1])
    with pytest.raises(MatchError) as exc:
        a.use_golden_finger(PEOPLE[1])
    assert exc.value.code == "item_already_used"
    ra, rb = play(a.start_hand(), 1), play(b.start_hand(), 1)
    assert ra == rb  # no effect on play
    assert PEOPLE[1] in a.golden_fingers  # still shown next hand
    a.leave(PEOPLE[1])
    assert PEOPLE[1] not in a.golden_fingers
    a.join(PEOPLE[1])
    assert PEOPLE[1] not in a.golden_fingers


def test_match_ticket_is_a_room_option() -> None:
    r = RoomConfig(Rules.preset("qq"), ticket_required=True)
    assert RoomConfig.from_mapping(r.to_mapping()).ticket_required
    assert ItemKind("match_ticket") is ItemKind.MATCH_TICKET  # spent by the store when a match starts


def test_items_keep_108_tiles_through_random_matches() -> None:
    for seed in range(10):
        rng = random.Random(seed)
        m = Match(room("chengdu", hands=3, items=True), PEOPLE[: 4 + seed % 5], seed=seed)
        while not m.finished:
            seated = [p for p in m.seats if p is not None]
            hand = m.start_hand(double=rng.sample(seated, rng.randint(0, 2)),
                                flush={p: rng.choice([None, 0, 1, 2]) for p in rng.sample(seated, rng.randint(0, 2))})
            assert hand.game.tile_total() == 108
            play_match_hand(hand, bots(seed), rng, item_rate=0.3)
            assert hand.game.tile_total() == 108
            kinds = [(u.seat, u.kind) for u in hand.items]
            assert len(kinds) == len(set(kinds))  # one of each kind per seat per hand
            result = m.finish_hand(hand)
            game, complete = replay(parse_record(json.loads(json.dumps(result.record))))
            assert complete and game.ledger == hand.game.ledger


def test_actions_are_the_engines() -> None:
    m = Match(room(), PEOPLE[:4], seed=2)
    hand = m.start_hand()
    seat = hand.game.pending()[0]
    with pytest.raises(IllegalActionError):
        hand.apply(Action(seat, ActionType.DISCARD, tile=0))  # dingque comes first
    hand.apply(Action(seat, ActionType.DINGQUE, suit=0))
