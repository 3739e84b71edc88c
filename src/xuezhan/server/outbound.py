"""What a table tells its connections: who sits where, the room, each seat's view of the hand,
the clocks, the end of a hand. Built from the table's state; sent through each connection's
outbox (the table never waits for a client)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from ..engine import views
from ..engine.game import Game, Phase
from ..engine.state import RIVER_CLAIMED
from ..explain import seat_names
from ..i18n import LANGS, Lang
from ..match import Hand, Match, RoomConfig, Tier
from ..runtime import HandDriver, Pacer
from ..words import event_words
from .bank import is_bot
from .bystanders import JiaoMa
from .config import ServerConfig
from .conn import Conn, dumps
from .items import TableItems
from .status import Status
from .words import display_name


@dataclass(slots=True)
class DiscardPause:
    """The pause after a discard or an added kong (``[server] discard_pause``): until it ends,
    every seat that may not claim (or rob) the tile and every spectator is shown ``shown``, the
    table just after it (:func:`xuezhan.engine.views.after_discard`), whatever happens meanwhile;
    the seats that may claim it and have not answered see the real table. It ends at ``until`` at
    the earliest, and not before the window it opened (``opened_at``; ``None``: nobody could
    claim) is closed."""

    shown: views.AfterDiscard
    until: float
    opened_at: int | None

    def window_open(self, game: Game) -> bool:
        """The claim window the discard (or the added kong) opened is still open in ``game``."""
        w = game.claim_window
        return w is not None and w.opened_at == self.opened_at


class TableFacts(Protocol):
    """What the messages of a table read of it (:class:`xuezhan.server.play.TablePlay` has it all)."""

    code: str
    name: str
    tier: Tier | None
    room: RoomConfig
    public: bool
    owner: str
    status: Status
    players: list[str | None]
    names: dict[str, str]
    balances: dict[str, int]
    ready: set[int]
    conns: set[Conn]
    seat_conn: dict[int, Conn]
    pacer: Pacer
    version: int
    pause: DiscardPause | None
    hand_key: int
    next_hand_at: float
    last_hand_end: Mapping[Lang, dict[str, Any]] | None
    last_match_end: dict[Lang, dict[str, Any]] | None
    jiao_ma: JiaoMa
    items: TableItems
    tournament: str

    @property
    def config(self) -> ServerConfig: ...
    @property
    def match(self) -> Match | None: ...
    @property
    def hand(self) -> Hand | None: ...
    @property
    def driver(self) -> HandDriver | None: ...
    def hand_no(self) -> int: ...
    def now(self) -> float: ...
    def trustee(self, seat: int) -> bool: ...
    def bot_controls(self, seat: int) -> bool: ...
    def timeout_for(self, seat: int) -> float: ...
    def golden_seats(self) -> list[int]: ...


def marked_entry(entry: dict[str, Any]) -> dict[str, Any]:
    """One seat of a view as the table sends it: each river entry ``{"tile", "claimed"}``,
    ``claimed`` when another seat took the tile (peng, kong), so the page can mark it."""
    river = [{"tile": tile, "claimed": state == RIVER_CLAIMED}
             for tile, state in zip(entry["river"], entry["river_state"], strict=True)]
    return {**entry, "river": river}


def marked_view(view: dict[str, Any]) -> dict[str, Any]:
    """A seat view as the table sends it, every seat marked (:func:`marked_entry`)."""
    return {**view, "seats": [marked_entry(entry) for entry in view["seats"]]}


def view_texts(seen: dict[int | None, dict[str, Any]]) -> dict[int | None, str]:
    """The JSON text of each marked view of ``seen`` (:func:`xuezhan.engine.views.table_views`),
    each seat entry the views share marked and encoded once: the same text as
    ``dumps(marked_view(view))`` up to the order of keys."""
    entries: dict[int, str] = {}  # by id: the views hold every entry alive meanwhile
    out: dict[int | None, str] = {}
    for seat, view in seen.items():
        parts = []
        for entry in view["seats"]:
            text = entries.get(id(entry))
            if text is None:
                text = entries[id(entry)] = dumps(marked_entry(entry))
            parts.append(text)
        rest = dumps({k: v for k, v in view.items() if k != "seats"})
        out[seat] = f'{rest[:-1]},"seats":[{",".join(parts)}]}}'
    return out


class Outbound:
    """The messages of one table."""

    def __init__(self, table: TableFacts) -> None:
        self.table = table
        self._names: dict[tuple[Lang, tuple[str | None, ...], tuple[str | None, ...]], list[str]] = {}

    def seat_json(self, seat: int, brief: bool = False, lang: Lang = "zh-CN") -> dict[str, Any]:
        t = self.table
        player = t.players[seat]
        if player is None:
            return {"seat": seat, "name": None, "bot": False}
        out: dict[str, Any] = {"seat": seat, "name": display_name(player, t.names, lang), "bot": is_bot(player)}
        if brief:
            return out
        out["connected"] = seat in t.seat_conn
        out["trustee"] = t.trustee(seat)
        out["ready"] = seat in t.ready
        out["balance"] = None if is_bot(player) else t.balances.get(player)
        out["points"] = t.match.running.get(player, 0) if t.match is not None else 0
        out["owner"] = player == t.owner
        return out

    def room_message(self, lang: Lang = "zh-CN") -> dict[str, Any]:
        t = self.table
        rules = t.room.rules
        return {
            "type": "room",
            "room": {
                "code": t.code,
                "name": t.name,
                "tier": t.tier.id if t.tier is not None else None,
                "public": t.public,
                "status": str(t.status),
                "hand_no": t.hand_no(),
                "hands": t.room.hands,
                "rules": rules.to_mapping(),
                "base_score": t.room.base_score,
                "coefficient": t.room.coefficient,
                "fee": t.room.fee,
                "seats": [self.seat_json(i, lang=lang) for i in range(4)],
                "spectators": sum(1 for c in t.conns if c.seat is None),
                "bystanders": t.jiao_ma.names(lang),
                "next_hand_ms": self.ms_until(t.next_hand_at) if t.status is Status.BETWEEN else None,
                **self.items_json(),
                **({"tournament": t.tournament} if t.tournament else {}),
            },
        }

    def items_json(self) -> dict[str, Any]:
        """At a table that allows item cards, ``items``: the cards asked for the next deal, as
        everyone may see them (seat and kind), and the seats a golden finger marks; nothing at any
        other table."""
        t = self.table
        if not t.room.items_allowed:
            return {}
        return {"items": {"next_deal": t.items.deal_public(list(t.players)), "golden_fingers": t.golden_seats()}}

    def hello(self, conn: Conn) -> dict[str, Any]:
        t = self.table
        c = t.config
        return {
            "type": "hello",
            "seat": conn.seat,
            "nickname": conn.account.nickname,
            "lang": conn.lang,
            "room": t.code,
            "timeouts": {"turn": c.turn_timeout, "claim": c.claim_timeout, "choice": c.choice_timeout},
        }

    def ms_until(self, when: float, now: float | None = None) -> int:
        """Milliseconds from ``now`` (the table's clock when not given) until ``when``."""
        return max(0, int((when - (self.table.now() if now is None else now)) * 1000))

    def timer_for(self, seat: int | None, now: float | None = None) -> dict[str, Any] | None:
        """The countdown a connection sees: its own decision, or whose turn it is; never who may claim."""
        t = self.table
        driver = t.driver
        if driver is None or t.status is not Status.PLAYING:
            return None
        game = driver.game
        pending = game.pending()
        if seat is not None and seat in pending and not t.bot_controls(seat):
            return {"seat": seat, "remaining_ms": self.ms_until(t.pacer.deadline.get(seat, 0.0), now),
                    "total_ms": int(t.timeout_for(seat) * 1000), "mine": True}
        if game.phase is Phase.TURN and not t.bot_controls(game.turn):
            turn = game.turn
            return {"seat": turn, "remaining_ms": self.ms_until(t.pacer.deadline.get(turn, 0.0), now),
                    "total_ms": int(t.timeout_for(turn) * 1000), "mine": False}
        return None

    def state_text(self, conn: Conn, view_text: str, now: float | None = None, names: list[str] | None = None,
                   paused: bool = False) -> str:
        """The state message of ``conn`` as JSON text, around its view already encoded (:func:`view_texts`);
        its clocks read at ``now`` (the table's clock when not given), its events' seats called
        ``names`` (:meth:`seat_names` in the connection's language when not given); ``paused``: the
        table as the discard pause shows it (:meth:`paused_for`)."""
        return f'{dumps(self._state_fields(conn, now, names, paused))[:-1]},"view":{view_text}}}'

    def _state_fields(self, conn: Conn, now: float | None = None, names: list[str] | None = None,
                      paused: bool = False) -> dict[str, Any]:
        """A state message but its view; moves the connection's count of events sent on. In the
        discard pause (``paused``) the events stop at the discard, and there is no decision and
        no clock: nothing says whether anyone may claim."""
        t = self.table
        assert t.hand is not None
        hand = t.hand
        game: views.HasHand = hand.game
        if paused:
            assert t.pause is not None
            game = t.pause.shown
        reset = conn.hand_key != t.hand_key
        start = 0 if reset else conn.events_sent
        events = self.events_json(conn, start, names, game)
        conn.events_sent = len(game.state.events)
        conn.hand_key = t.hand_key
        return {
            "type": "state",
            "version": t.version,
            "hand_no": hand.hand_no,
            "reset": reset,
            "events": events,
            "decision": None if paused else self.decision_of(conn.seat),
            "timer": None if paused else self.timer_for(conn.seat, now),
            "deadline_ms": None if paused else self.deadline_ms(conn.seat, now),
            "trustee": t.trustee(conn.seat) if conn.seat is not None else False,
            **({"items": hand.seen_items(conn.seat)} if t.room.items_allowed else {}),
        }

    def paused_for(self, seat: int | None) -> bool:
        """In the discard pause, ``seat`` (``None``: a spectator) is shown the table just after the
        discard: every seat but those that may still claim it."""
        t = self.table
        pause = t.pause
        if pause is None or t.hand is None:
            return False
        if seat is None:
            return True
        game = t.hand.game
        return not (pause.window_open(game) and seat in game.pending())

    def shown_game(self, seat: int | None) -> views.HasHand | None:
        """The hand as ``seat`` is shown it now (the discard pause's table, or the real one)."""
        t = self.table
        if t.hand is None:
            return None
        if self.paused_for(seat):
            assert t.pause is not None
            return t.pause.shown
        return t.hand.game

    def seat_names(self, lang: Lang) -> list[str]:
        """How the log names each seat: its player's shown name, "seat N" when it is empty (worked
        out again only when someone else sits down)."""
        t = self.table
        players = tuple(t.players[:4])
        key = (lang, players, tuple(t.names.get(p) for p in players if p is not None))
        names = self._names.get(key)
        if names is None:
            if len(self._names) > 16:
                self._names.clear()
            names = self._names[key] = [seat_names(lang)[s] if p is None else display_name(p, t.names, lang)
                                        for s, p in enumerate(players)]
        return names

    def events_json(self, conn: Conn, start: int, names: list[str] | None = None,
                    game: views.HasHand | None = None) -> list[dict[str, Any]]:
        """The hand's events from ``start`` on as ``conn`` may see them (tiles as text,
        :func:`xuezhan.engine.views.events_for`), each with its sentence in the connection's
        language, ``text`` (:func:`xuezhan.words.event_words`; ``None``: not worth a line);
        those of ``game`` when given (the discard pause's table)."""
        t = self.table
        assert t.hand is not None
        if names is None:
            names = self.seat_names(conn.lang)
        out = []
        for ev in views.visible_events(game if game is not None else t.hand.game, conn.seat, start):
            data = views.event_json(ev)
            data["text"] = event_words(ev, conn.seat, lang=conn.lang, names=names)
            out.append(data)
        return out

    def deadline_ms(self, seat: int | None, now: float | None = None) -> int | None:
        """Milliseconds left for the decision this seat's person must take now (``None``: none,
        or the bot decides for the seat)."""
        t = self.table
        driver = t.driver
        if seat is None or driver is None or t.status is not Status.PLAYING or t.bot_controls(seat):
            return None
        if seat not in driver.game.pending():
            return None
        return self.ms_until(t.pacer.deadline.get(seat, 0.0), now)

    def decision_of(self, seat: int | None) -> int | None:
        """The version at which the seat's open decision began: one answer per decision."""
        t = self.table
        if seat is None or t.hand is None or seat not in t.hand.game.pending():
            return None
        return t.pacer.since.get(seat)

    def send_state(self, conn: Conn, missed: list[dict[str, Any]] | None = None) -> None:
        """The connection's state as its seat is shown the table (the discard pause's table while
        one holds for it); with ``missed`` (what was played for its seat while it was away) too."""
        game = self.shown_game(conn.seat)
        if game is None:
            return
        paused = self.paused_for(conn.seat)
        text = view_texts(views.table_views(game, (conn.seat,)))[conn.seat]
        state = self.state_text(conn, text, paused=paused)
        if missed:
            state = f'{state[:-1]},{dumps({"missed": missed})[1:]}'
        conn.send_text(state)

    def broadcast_state(self) -> None:
        """Every connection's state: each view built and encoded once, shared parts once in all. In
        the discard pause, those who may not claim the discard are shown the table just after it."""
        t = self.table
        if t.hand is None:
            return
        conns = list(t.conns)
        paused = {conn.seat for conn in conns if self.paused_for(conn.seat)}
        texts = view_texts(views.table_views(t.hand.game, {conn.seat for conn in conns} - paused))
        if paused:
            assert t.pause is not None
            shown = view_texts(views.table_views(t.pause.shown, paused))
        now = t.now()  # one reading of the clock for every message of the change
        names: dict[Lang, list[str]] = {}  # the seats' names in each language, once for the change
        for conn in conns:
            lang = conn.lang
            if lang not in names:
                names[lang] = self.seat_names(lang)
            if conn.seat in paused:
                conn.send_text(self.state_text(conn, shown[conn.seat], now, names[lang], paused=True))
            else:
                conn.send_text(self.state_text(conn, texts[conn.seat], now, names[lang]))

    def broadcast_room(self, exclude: Conn | None = None) -> None:
        t = self.table
        texts: dict[Lang, str] = {}
        for conn in list(t.conns):
            if conn is not exclude:
                text = texts.get(conn.lang)
                if text is None:
                    text = texts[conn.lang] = dumps(self.room_message(conn.lang))
                conn.send_text(text)

    def hand_end_for(self, conn: Conn, now: float | None = None) -> dict[str, Any]:
        """The end of the hand as ``conn`` is told it (its clock read at ``now``, the table's when not given)."""
        t = self.table
        assert t.last_hand_end is not None
        msg = dict(t.last_hand_end[conn.lang if conn.lang in LANGS else "zh-CN"])
        msg["next_hand_ms"] = self.ms_until(t.next_hand_at, now) if t.status is Status.BETWEEN else None
        return msg

    def broadcast_hand_end(self) -> None:
        """The end of the hand, and of the match when it is over, to every connection: each message
        encoded once per language (the clock read once for all)."""
        t = self.table
        now = t.now()
        texts: dict[Lang, str] = {}
        match_end: dict[Lang, str] = {}
        for conn in list(t.conns):
            lang = conn.lang
            text = texts.get(lang)
            if text is None:
                text = texts[lang] = dumps(self.hand_end_for(conn, now))
            conn.send_text(text)
            if t.last_match_end is not None:
                end = match_end.get(lang)
                if end is None:
                    end = match_end[lang] = dumps(t.last_match_end[lang])
                conn.send_text(end)
