"""What one seat may see, and the worlds a seat cannot tell from the real one.

The visibility rules live in :mod:`~xuezhan.engine.visibility` (:class:`SeatView`,
:func:`visible_events`, :func:`events_for`, :func:`seat_view_json`, :func:`table_views`,
:func:`after_discard`, :func:`after_bugang`, :func:`window_hidden`;
importable from here, as the server, the terminal and the bots do); :func:`event_json` writes
an event's tiles as text. This module adds, above :class:`~xuezhan.engine.game.Game`, what a
search needs: :func:`sample_world` (a copy of the game with every tile a seat cannot see dealt
afresh) and :func:`reshuffle_wall`.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from ..hand import suit_keys
from ..ids import Reason
from ..scoring import Meld, MeldKind
from .claims import claim_options
from .events import event_json
from .game import Game
from .kongs import rob_options
from .visibility import (
    AfterDiscard,
    HasHand,
    SeatView,
    after_bugang,
    after_discard,
    events_for,
    seat_view_json,
    table_views,
    viewed_state,
    visible_events,
    window_hidden,
)

__all__ = [
    "AfterDiscard",
    "HasHand",
    "SeatView",
    "after_bugang",
    "after_discard",
    "event_json",
    "events_for",
    "reshuffle_wall",
    "sample_world",
    "seat_view_json",
    "table_views",
    "visible_events",
    "window_hidden",
    "world_deal",
]


def reshuffle_wall(game: Game, seed: int) -> None:
    """Put ``game``'s live wall in the order ``random.Random(seed).shuffle`` gives it (the compiled
    core's ``play_out`` with a ``wall_seed`` does the same): another world of a search, the same
    hands, another draw."""
    st = game.state
    head, tail = st.head, st.tail
    live = st.wall[head:tail]
    random.Random(seed).shuffle(live)
    st.wall = [*st.wall[:head], *live, *st.wall[tail:]]  # a new list: copies share the old


def _holds_no_void(void: int | None, river: Sequence[int]) -> bool:
    """Whether a seat holds none of its void suit: its last discard was outside it (it would have had
    to throw those first)."""
    return void is not None and bool(river) and river[-1] // 9 != void


def _draw_rates(weights: Sequence[float], void: int | None, no_void: bool) -> list[float]:
    """The rates of a seat's weighted draws in a world: 1 / weight, infinite (drawn only when nothing
    else is left) for a weight of 0 and for a void tile the seat holds none of."""
    return [math.inf if x <= 0 or (no_void and t // 9 == void) else 1.0 / x for t, x in enumerate(weights)]


def sample_world(view: SeatView, rng: random.Random, visible: Sequence[int] | None = None,
                 weights: Sequence[Sequence[float]] | None = None,
                 hands: Mapping[int, Sequence[int]] | None = None) -> Game:
    """A copy of the game in which every tile ``view``'s seat cannot see is dealt afresh:
    one world the seat cannot tell from the real one (determinization, for search).

    What the seat sees stays: its hand, every meld shown, the rivers, the tiles set aside,
    hands laid down, how many tiles each seat holds, the live wall's length, the voids.
    What it cannot see is drawn from the copies it has not seen, in an order fixed by what
    it sees and ``rng`` only (so two games that look the same to the seat give the same
    worlds): each face-down concealed kong of another seat becomes four copies of a tile
    nobody has seen, outside that seat's void; each other concealed hand gets its number of
    tiles, with none of its void suit once its last discard was outside that suit (it would
    have had to throw them first); the rest is the live wall, in a fresh order, and the
    bystanders' tiles. Secret state of the others (a passed win, a pending choice, answers
    given in an open claim window) is reset, and the window's claimants are worked out
    again from the dealt hands. ``visible`` is ``view.visible_counts()`` when the caller has it
    already (a search samples many worlds of one view). ``weights``, when given, holds for each
    seat a weight per tile kind: that seat's concealed tiles are then drawn in proportion to
    them (without replacement; a weight of 0 is drawn only when nothing else is left), so that
    a world follows what a seat's discards and claims say of its hand. ``hands``, when given, holds
    for some other seats the concealed tiles (counts per kind, from the copies the seat has not seen)
    they hold in the world, the rest being dealt around them: a yardstick that knows more than the
    seat may (``benchmarks/oracle_worlds.py``); a hand that does not fit is a ``ValueError``.

    The compiled core deals the same worlds draw for draw (``xz_deal_world``, for
    :func:`xuezhan.native.search_worlds` from :func:`world_deal`): a change to what is drawn here, or
    in which order, is a change there too (``tests/test_core_worlds.py`` holds the two together)."""
    state = viewed_state(view)
    me = view.seat
    g = Game.from_state(state.copy())
    st = g.state
    unseen = [4 - v for v in (view.visible_counts() if visible is None else visible)]
    seats = st.seats
    hidden = [o for o in range(4) if o != me and not seats[o].revealed]
    given = dict(hands or {})
    for o, held in given.items():
        if o not in hidden or len(held) != 27 or min(held) < 0 or sum(held) != sum(seats[o].counts):
            raise ValueError(f"sample_world: seat {o} cannot be given a hand of {sum(held)} tiles")
        for t, c in enumerate(held):
            unseen[t] -= c
            if unseen[t] < 0:
                raise ValueError(f"sample_world: seat {o}'s given hand holds a copy the seat has seen")
    pool = [t for t in range(27) for _ in range(unseen[t])]
    # face-down kongs: four copies of a tile nobody has seen, outside the seat's void
    for o in hidden:
        s = seats[o]
        melds = s.melds
        for i, m in enumerate(melds):
            if m.kind is not MeldKind.ANGANG:
                continue
            kinds = [t for t in range(27) if unseen[t] == 4 and t // 9 != s.void]
            if not kinds:
                # the kinds left outside this seat's void went to earlier kongs: any kind with four
                # unseen copies keeps the counts (there are at least as many as face-down kongs)
                kinds = [t for t in range(27) if unseen[t] == 4]
            if not kinds:  # only the given hands can have taken them
                raise ValueError("sample_world: the given hands leave no tile for a face-down kong")
            t = rng.choice(kinds)
            unseen[t] = 0
            for _ in range(4):
                pool.remove(t)
            for k in st.kongs:
                if k.seat == o and k.kind is Reason.ANGANG and k.tile == m.tile:
                    k.tile = t
                    break
            melds[i] = Meld(MeldKind.ANGANG, t)
        s.meld_suits = 0
        for m in melds:
            s.meld_suits |= 1 << (m.tile // 9)
    rng.shuffle(pool)
    for o in hidden:
        s = seats[o]
        n = sum(s.counts)
        void = s.void
        no_void = _holds_no_void(s.void, s.river)
        take: list[int] = []
        rest: list[int] = []
        if o in given:
            take, rest = [t for t in range(27) for _ in range(given[o][t])], pool
        elif weights is not None:
            # weighted draws without replacement: the n smallest exponential keys of each rate
            scale = _draw_rates(weights[o], void, no_void)
            log, draw = math.log, rng.random
            keys = [scale[t] * (1e-300 - log(1.0 - draw())) for t in pool]
            order = sorted(range(len(pool)), key=keys.__getitem__)
            chosen = set(order[:n])
            take = [pool[i] for i in order[:n]]
            rest = [t for i, t in enumerate(pool) if i not in chosen]
        elif not no_void:
            take, rest = pool[:n], pool[n:]
        else:
            for t in pool:
                if len(take) < n and t // 9 != void:
                    take.append(t)
                else:
                    rest.append(t)
            if len(take) < n:  # not enough tiles outside the void: fill up with any
                extra = rest[: n - len(take)]
                take.extend(extra)
                rest = rest[len(extra) :]
        pool = rest
        counts = [0] * 27
        for t in take:
            counts[t] += 1
        s.counts = counts
        s.keys = list(suit_keys(counts))
        s.sizes = [sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27])]
        s.wm = -1
        s.pass_hu = set()
        s.pass_hu_any = False
        s.choice = None
    n_by = len(st.bystander_tiles)
    st.bystander_tiles = pool[:n_by]
    live = pool[n_by:]
    head, tail = st.head, st.tail
    if len(live) != tail - head:
        raise AssertionError(f"sample_world: {len(live)} unseen tiles for a live wall of {tail - head}")
    st.wall = [*state.wall[:head], *live, *state.wall[tail:]]
    if st.turn != me:
        st.tsumo = None
    w = st.window
    if w is not None:
        options = rob_options(st, w.source, w.tile) if w.robbing else claim_options(st, w.source, w.tile)
        if me in w.options:
            options[me] = w.options[me]
        w.options = {o: options[o] for o in sorted(options, key=lambda o: (o - w.source) % 4)}
        w.answers = {o: a for o, a in w.answers.items() if o == me}
    st.legal_cache = {}
    return g


def world_deal(view: SeatView, visible: Sequence[int] | None = None,
               weights: Sequence[Sequence[float]] | None = None) -> tuple[Game, list[int], list[float]] | None:
    """What :func:`sample_world` deals afresh, for the compiled core to deal it draw for draw from the
    same generator (:func:`xuezhan.native.search_worlds`): a world of ``view`` whose hidden hands the
    core deals again, the deal as integers (the seat, the hidden seats' count, the bystanders' tiles,
    the copies the seat has not seen, then for each hidden seat its seat, tiles, void or -1 and whether
    it holds none of its void) and the rates of each hidden seat's weighted draws (empty for uniform
    worlds). ``None`` where the core does not deal the world: the seat's own answer already given in
    the open window, an escaped seat."""
    state = viewed_state(view)
    me = view.seat
    seats = state.seats
    hidden = [o for o in range(4) if o != me and not seats[o].revealed]
    w = state.window
    if any(s.escaped for s in seats) or (w is not None and me in w.answers):
        return None
    if visible is None:
        visible = view.visible_counts()
    words = [me, len(hidden), len(state.bystander_tiles), *(4 - v for v in visible)]
    rates: list[float] = []
    for o in hidden:
        s = seats[o]
        no_void = _holds_no_void(s.void, s.river)
        words += [o, sum(s.counts), -1 if s.void is None else s.void, int(no_void)]
        if weights is not None:
            rates += _draw_rates(weights[o], s.void, no_void)
    return sample_world(view, random.Random(0), visible), words, rates
