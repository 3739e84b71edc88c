"""``xuezhan play``: a match against three bots in a full-screen terminal UI (Textual).

The human plays seat 0. The screen shows every seat's panel (void once revealed,
melds, river in order, wins with tile and points), the wall, whose turn it is and
the last action; below, the human's hand (sorted, the drawn tile apart on the right),
a prompt naming the legal choices, compact buttons for them, and the key footer.
The app only offers legal actions: a key that does not fit gets a short message and
changes nothing.

Keys: ←/→ or 1-9 a-e select a tile (click works too); enter/space (or a second press,
or a second click) discards it; h hu, p peng, g gang, x pass; m/p/s choose the void
suit in 定缺; in 换三张 the tile keys mark three tiles and enter passes them; ? hint;
? again shows the hint's next lines when it scrolls; l the log (in the compact layout);
PgUp/PgDn scroll the table; q quit (asks first). The settlement shows the hand at a glance on
one screen (:mod:`xuezhan.tui.settlement`); d there shows every payment, r the review (复盘) of
the player's decisions (:mod:`xuezhan.review`), v the table behind it.

Every sentence is in the player's language (``lang``, from the ``tui.*`` catalog), the
settlement's details from :mod:`xuezhan.explain`. Below 100x28 the layout is compact (see
:func:`~xuezhan.tui.widgets.is_compact`): seats with a one-line title, the log on ``l``,
everything that does not fit scrolls.

Long: the one Textual application, its key bindings and the handler of each key; what it
shows is built elsewhere (:mod:`xuezhan.tui.panels`, :mod:`xuezhan.tui.widgets`,
:mod:`xuezhan.words`) and the match it plays is :class:`~xuezhan.tui.match.TerminalTable`.
"""

from __future__ import annotations

import time
from typing import Any, ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Static

from .. import i18n
from ..engine.actions import Action, ActionType
from ..engine.game import Game, Phase
from ..engine.views import SeatView, visible_events
from ..errors import IllegalActionError
from ..hints import hint_lines
from ..i18n import DEFAULT_LANG, Lang
from ..ids import EventKind
from ..records import parse_record, record_json
from ..review import review_lines, review_record
from ..runtime import Pacer
from ..tiles import Tile, parse_tile, tile_name
from .match import BOT_DELAY, HUMAN, HandResult, TerminalTable, terminal_delays
from .panels import rules_label, scores_text, seat_panel, status_text
from .settlement import HandFacts, details_text, summary_text
from .widgets import (
    CSS,
    HAND_KEYS,
    ActionButton,
    ConfirmScreen,
    GameLog,
    HandBar,
    ReviewPage,
    SeatBox,
    SettlementScreen,
    TileButton,
    is_compact,
    table_widgets,
)
from .words import bot_name, event_words, last_action_words, seat_name, suit_name, tile_label

_SUIT_KEYS = "mps"


def hand_display(view: SeatView) -> tuple[list[Tile], bool]:
    """The human's tiles in display order: sorted, the drawn tile apart at the right end."""
    tiles = view.hand
    drawn = view.drawn
    if drawn is not None and drawn in tiles:
        tiles.remove(drawn)
        tiles.append(drawn)
        return tiles, True
    return tiles, False


class PlayApp(App[int]):
    """A match of N hands against three bots; the human is seat 0."""

    CSS = CSS
    TITLE = "xuezhan 血战到底"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("left", "move(-1)", "select", key_display="←→"),
        Binding("right", "move(1)", "select", show=False),
        *[Binding(k, f"pick({i})", "select", show=False) for i, k in enumerate(HAND_KEYS)],
        Binding("enter", "discard", "discard", key_display="⏎/space"),
        Binding("space", "discard", "discard", show=False),
        Binding("h", "hu", "hu"),
        Binding("p", "peng", "peng"),
        Binding("g", "gang", "gang"),
        Binding("x", "pass", "pass"),
        Binding("m", "void(0)", "void suit", key_display="m/p/s"),
        Binding("s", "void(2)", "void", show=False),
        Binding("question_mark", "hint", "hint", key_display="?"),
        Binding("l", "toggle_log", "log"),
        Binding("pageup", "scroll_table(-1)", show=False),
        Binding("pagedown", "scroll_table(1)", show=False),
        Binding("q", "quit_match", "quit"),
    ]

    def __init__(self, match: TerminalTable, *, glyphs: bool = False, bot_delay: float = BOT_DELAY,
                 lang: Lang = DEFAULT_LANG) -> None:
        super().__init__()
        self.match = match
        self.lang = lang
        self.compact = False
        self._shown_seat: int | None = None
        self._hint_step: int | None = None
        self.glyphs = glyphs
        self.bot_delay = bot_delay
        match.pacer = Pacer(terminal_delays(bot_delay))
        self.selected: int | None = None
        self.marked: set[int] = set()
        self.log_lines: list[str] = []
        self.message = ""
        self._hand_key: tuple[tuple[Tile, ...], bool] | None = None
        self._event_index = 0
        self._timer: Timer | None = None
        self._settled = False
        self._tiles: list[Tile] = []

    # --- layout ----------------------------------------------------------------------------------------
    def t(self, message: str, /, **params: object) -> str:
        """The message ``tui.<message>`` in the player's language."""
        return i18n.t(f"tui.{message}", self.lang, **params)

    def compose(self) -> ComposeResult:
        yield from table_widgets()
        with VerticalScroll(id="hint-box", classes="empty") as box:
            box.can_focus = False
            yield Static("", id="hint")
        yield HandBar(id="hand")
        yield Static("", id="prompt")
        with Horizontal(id="actions"):
            for label, action, ident in (
                (self.t("button.hu"), "hu", "btn-hu"),
                (self.t("button.peng"), "peng", "btn-peng"),
                (self.t("button.gang"), "gang", "btn-gang"),
                (self.t("button.pass"), "pass", "btn-pass"),
                *((self.t("button.void", suit=suit_name(s, self.lang), key=_SUIT_KEYS[s]), f"void({s})",
                   f"btn-void-{s}") for s in range(3)),
                (self.t("button.exchange"), "discard", "btn-exchange"),
                (self.t("button.discard"), "discard", "btn-discard"),
                (self.t("button.hint"), "hint", "btn-hint"),
            ):
                yield ActionButton(label, action, id=ident)
        yield Static("", id="message", classes="empty")
        yield Static(self.t("keys.play"), id="keys")

    def on_mount(self) -> None:
        self._fit(self.size.width, self.size.height)
        if not self.match.started:
            self.match.start_hand()
        self._new_hand_shown()
        self._after_change()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        """The compact layout below 100x28, the full one above."""
        compact = is_compact(width, height)
        self.screen_stack[0].set_class(compact, "-compact")  # the table's screen, under any dialog
        self.query_one("#keys", Static).update(self.t("keys.play" if compact else "keys.play_full"))
        if compact != self.compact:
            self.compact = compact
            if self.match.started:
                self._refresh()

    # --- state shown --------------------------------------------------------------------------------------
    @property
    def game(self) -> Game:
        return self.match.game

    def _new_hand_shown(self) -> None:
        self._event_index = 0
        self._settled = False
        self._hand_key = None
        self.selected = None
        self.marked = set()
        self.sub_title = self.t("status.hand", number=self.match.hand_number, hands=self.match.hands)

    def _after_change(self) -> None:
        """Log new events, redraw, then let the bots act or settle the hand."""
        self._log_new_events()
        self._refresh()
        if self.game.over:
            self._settle()
        else:
            self._schedule_bots()

    def _log_new_events(self) -> None:
        g = self.game
        log = self.query_one("#game-log", GameLog)
        new = visible_events(g, HUMAN, self._event_index)
        self._event_index = g.event_count
        for ev in new:
            words = event_words(ev, HUMAN, glyphs=self.glyphs, lang=self.lang)
            if words is None:
                continue
            self.log_lines.append(words)
            style = "bold yellow" if ev["type"] == EventKind.HU else ("dim" if words.startswith("  ") else "")
            log.add(Text(words, style=style))

    def _refresh(self) -> None:
        g = self.game
        m = self.match
        view = m.view()
        lang = self.lang
        self.query_one("#status", Static).update(
            status_text(g, HUMAN, label=self.t("status.hand", number=m.hand_number, hands=m.hands),
                        rules_name=self._rules_name(), glyphs=self.glyphs, lang=lang,
                        compact=self.compact))
        last = last_action_words(g, HUMAN, glyphs=self.glyphs, lang=lang)
        self.query_one("#last", Static).update(Text(self.t("last", what=last) if last else ""))
        # the totals so far: the current hand counts once it is finished, before that it is added here
        running = list(m.totals) if m.hand_finished else [t + d for t, d in zip(m.totals, g.deltas(), strict=True)]
        turn_seat = g.turn if g.phase is Phase.TURN else None
        for seat in range(4):
            panel = seat_panel(g, seat, HUMAN, glyphs=self.glyphs, totals=running, lang=lang, compact=self.compact)
            self.query_one(f"#seat-{seat}", SeatBox).show(panel, turn=seat == turn_seat, compact=self.compact)
        self._show_acting_seat(turn_seat)
        names = ["", *(bot_name(s, lang) for s in range(1, 4))]
        self.query_one("#scores", Static).update(scores_text(running, g.deltas(), HUMAN, names, lang))
        # the hand
        tiles, drawn_apart = hand_display(view)
        key = (tuple(tiles), drawn_apart)
        if key != self._hand_key:
            self._hand_key = key
            self.marked = set()
            allowed = {a.tile for a in m.human_legal() if a.type is ActionType.DISCARD} if not g.over else set()
            if drawn_apart and (not allowed or tiles[-1] in allowed):
                self.selected = len(tiles) - 1  # the drawn tile, ready to be thrown
            elif allowed and tiles:
                # e.g. void-suit tiles must go first: start on the first one that may go
                self.selected = next(i for i, t in enumerate(tiles) if t in allowed)
            elif tiles:
                self.selected = min(self.selected if self.selected is not None else len(tiles) - 1, len(tiles) - 1)
            else:
                self.selected = None
        self._tiles = tiles
        self.query_one(HandBar).show(tiles, drawn_apart=drawn_apart, selected=self.selected, marked=self.marked,
                                     melds=view.melds(HUMAN), glyphs=self.glyphs, lang=lang)
        self.query_one("#prompt", Static).update(Text(self._prompt()))
        legal = m.human_legal() if not g.over else []
        kinds = {a.type for a in legal}
        shown = {
            "btn-hu": ActionType.HU in kinds,
            "btn-peng": ActionType.PENG in kinds,
            "btn-gang": ActionType.GANG in kinds,
            "btn-pass": ActionType.PASS in kinds,
            "btn-exchange": ActionType.EXCHANGE in kinds,
            "btn-discard": ActionType.DISCARD in kinds,
            "btn-hint": bool(legal),
        }
        for suit in range(3):
            shown[f"btn-void-{suit}"] = any(a.type is ActionType.DINGQUE and a.suit == suit for a in legal)
        for button in self.query(ActionButton):
            button.display = bool(shown.get(button.id or "", False))
        self._show_message()

    def _show_acting_seat(self, turn_seat: int | None) -> None:
        """Scroll the table to the seat that acts (whose discard is offered), when it changes: on a
        small screen the river that matters is then in sight."""
        w = self.game.claim_window
        seat = w.seat if w is not None else turn_seat
        if seat is not None and seat != self._shown_seat:
            self._shown_seat = seat
            self.call_after_refresh(self.query_one(f"#seat-{seat}", SeatBox).scroll_visible, animate=False)

    def _show_message(self) -> None:
        widget = self.query_one("#message", Static)
        widget.update(Text(self.message))
        widget.set_class(not self.message, "empty")

    def _rules_name(self) -> str:
        r = self.match.rules
        return rules_label(r.preset_name, bool(r.to_mapping()["options"]), self.lang)

    def _prompt(self) -> str:
        """What the player may do now, and under it the waits (听牌提示) when there are any."""
        waits = self._waits_line()
        return self._decision_prompt() + ("\n" + waits if waits else "")

    def _waits_line(self) -> str:
        """听牌提示 from the player's view: its waits and the copies it cannot see when ready; on its
        discard decision, the waits the selected tile would leave, or else which discards leave it ready."""
        if self.game.over:
            return ""
        view = self.match.view().to_json()
        lang = self.lang

        def listed(waits: list[dict[str, Any]]) -> str:
            return " ".join(self.t("waits.tile", tile=tile_label(parse_tile(w["tile"]), self.glyphs, lang),
                                   left=w["left"]) for w in waits)

        if view["waits"]:
            return self.t("waits.ready", tiles=listed(view["waits"]))
        by_discard: dict[str, list[dict[str, Any]]] = view["discard_waits"]
        if not by_discard:
            return ""
        picked = self._tiles[self.selected] if self.selected is not None and self.selected < len(self._tiles) else None
        if picked is not None and tile_name(picked) in by_discard:
            return self.t("waits.after", tile=tile_label(picked, self.glyphs, lang),
                          tiles=listed(by_discard[tile_name(picked)]))
        options = " ".join(self.t("waits.discard", tile=tile_label(parse_tile(d), self.glyphs, lang),
                                  live=sum(w["left"] for w in ws)) for d, ws in by_discard.items())
        return self.t("waits.discards", options=options)

    def _decision_prompt(self) -> str:
        g = self.game
        lang = self.lang
        if g.over:
            return self.t("prompt.over")
        legal = self.match.human_legal()
        kinds = {a.type for a in legal}
        me = g.seat_state(HUMAN)
        if not legal:
            if me.won and not g.rules.blood_river:
                return self.t("prompt.won_wait")
            if g.phase is Phase.DINGQUE:
                return self.t("prompt.dingque_wait")
            if g.phase is Phase.EXCHANGE:
                return self.t("prompt.exchange_wait")
            if g.phase is Phase.TURN:
                return self.t("prompt.turn_wait", seat=seat_name(g.turn, HUMAN, lang))
            return self.t("prompt.others_wait")
        if g.phase is Phase.DINGQUE:
            choices = [a.suit for a in legal if a.suit is not None]
            options = " · ".join(f"{_SUIT_KEYS[s]} {suit_name(s, lang)}" for s in choices)
            return self.t("prompt.dingque_forced" if len(choices) == 1 else "prompt.dingque", options=options)
        if g.phase is Phase.EXCHANGE:
            return self.t("prompt.exchange", marked=len(self.marked))
        if g.phase in (Phase.CLAIM, Phase.ROB):
            w = g.claim_window
            assert w is not None
            offer = self.t("prompt.offer_kong" if g.phase is Phase.ROB else "prompt.offer_discard",
                           seat=seat_name(w.seat, HUMAN, lang), tile=tile_label(w.tile, self.glyphs, lang))
            opts = [self.t(f"prompt.key_{name}") for kind, name in (
                (ActionType.HU, "hu"), (ActionType.PENG, "peng"), (ActionType.GANG, "gang"), (ActionType.PASS, "pass"))
                if kind in kinds]
            return self.t("prompt.claim", offer=offer, options=" · ".join(opts))
        parts = []
        if ActionType.DISCARD in kinds:
            parts.append(self.t("prompt.pick"))
        if ActionType.HU in kinds:
            parts.insert(0, self.t("prompt.key_hu_now"))
        gangs = [a for a in legal if a.type is ActionType.GANG]
        if gangs:
            parts.append(self.t("prompt.gang_tiles",
                                tiles=" ".join(tile_label(a.tile or 0, self.glyphs, lang) for a in gangs)))
        void = me.void
        if void is not None and me.holds_void():
            parts.append(self.t("prompt.void_first", suit=suit_name(void, lang)))
        return self.t("prompt.your_turn", parts=" · ".join(parts))

    def _say(self, message: str) -> None:
        self.message = message
        self._show_message()

    # --- bots ------------------------------------------------------------------------------------------
    def _schedule_bots(self) -> None:
        """Let the bots that are due act (the runtime's pacer says when), then wait on a timer for the next."""
        acted, wake = self.match.pace(time.monotonic())
        if acted:
            self._after_change()
        elif wake is not None and self._timer is None:
            self._timer = self.set_timer(max(0.0, wake - time.monotonic()), self._bot_tick)

    def _bot_tick(self) -> None:
        self._timer = None
        if not self.game.over:
            self._schedule_bots()

    # --- the end of a hand -------------------------------------------------------------------------------
    def _settle(self) -> None:
        if self._settled:
            return
        self._settled = True
        result = self.match.finish_hand()
        self._refresh()
        title, summary, details, keys = self.settlement(result)
        self.push_screen(SettlementScreen(title, summary, details, keys, view_table=self.t("settle.view_table"),
                                          view_again=self.t("settle.view_again"),
                                          show_details=self.t("settle.show_details"),
                                          show_summary=self.t("settle.show_summary"),
                                          review=self.review_page()),
                         self._after_settlement)

    def review_page(self) -> ReviewPage:
        """The settlement's 复盘 of the player's own decisions in the hand just finished (its record taken
        now: the next hand may be dealt while the review is worked out)."""
        record = parse_record(record_json(self.game))
        lang = self.lang
        names = [seat_name(s, HUMAN, lang) for s in range(4)]

        def work() -> Text:
            return Text("\n".join(review_lines(review_record(record, [HUMAN]), lang, names=names)))

        return ReviewPage(work, show=self.t("settle.show_review"), back=self.t("settle.review_back"),
                          working=self.t("settle.reviewing"))

    def settlement(self, result: HandResult) -> tuple[str, Text, Text, str]:
        """The settlement of the hand just finished: its title, the summary (after the last hand, with
        the final standings), every payment in words, and its keys (see :mod:`xuezhan.tui.settlement`)."""
        m = self.match
        lang = self.lang
        over = m.match_over
        nd = result.next_dealer
        facts = HandFacts(
            me=HUMAN, totals=result.totals, wins=list(m.wins) if over else None, record_path=result.record_path,
            record_error=result.record_error,
            next_dealer=None if over else (self.t("settle.next_dealer_dice") if nd is None
                                           else self.t("settle.next_dealer", seat=seat_name(nd, HUMAN, lang))),
            again=self.t("settle.again", seed=m.seed, hands=m.hands) if over else None)
        summary = summary_text(self.game, facts, lang, self.glyphs)
        details = details_text(self.game, facts, lang)
        if over:
            return self.t("settle.match_over", count=m.hands), summary, details, self.t("settle.keys_final")
        return self.t("settle.title", number=result.number, hands=m.hands), summary, details, self.t("settle.keys")

    def _after_settlement(self, how: str | None) -> None:
        if self.match.match_over:
            self.exit(0)
            return
        if how == "quit":
            self.action_quit_match()
            return
        self.next_hand()

    def next_hand(self) -> None:
        self.match.start_hand()
        header = self.t("settle.new_hand", number=self.match.hand_number)
        self.log_lines.append(header)
        self.query_one("#game-log", GameLog).add(Text(header, style="bold"))
        self._new_hand_shown()
        self.message = ""
        self._after_change()

    # --- the human's actions ---------------------------------------------------------------------------
    def _play(self, action: Action) -> None:
        try:
            self.match.play(action)
        except IllegalActionError as exc:
            self._say(self.t("msg.not_allowed", reason=exc.message))
            return
        self.message = ""
        self.query_one("#hint", Static).update("")
        self.query_one("#hint-box").add_class("empty")
        self._after_change()

    def _legal(self, kind: ActionType) -> list[Action]:
        if self.game.over:
            return []
        return [a for a in self.match.human_legal() if a.type is kind]

    def _why_not(self, what: str) -> str:
        g = self.game
        word = self.t(f"what.{what}")
        if g.over:
            return self.t("msg.over")
        if not self.match.human_pending():
            if g.seat_state(HUMAN).won and not g.rules.blood_river:
                return self.t("msg.won_already", what=word)
            return self.t("msg.not_your_turn", what=word)
        return self.t("msg.not_now", what=word)

    def action_move(self, step: int) -> None:
        if not self._tiles:
            self._say(self.t("msg.no_tiles"))
            return
        n = len(self._tiles)
        self.selected = ((self.selected if self.selected is not None else -1) + step) % n
        self._refresh_hand()

    def action_pick(self, index: int) -> None:
        if index >= len(self._tiles):
            self._say(self.t("msg.no_tile_under_key", key=repr(HAND_KEYS[index]), count=len(self._tiles)))
            return
        self._tile_chosen(index)

    def on_tile_button_clicked(self, message: TileButton.Clicked) -> None:
        if message.index < len(self._tiles):
            self._tile_chosen(message.index)

    def _tile_chosen(self, index: int) -> None:
        g = self.game
        if g.phase is Phase.EXCHANGE and self._legal(ActionType.EXCHANGE):
            if index in self.marked:
                self.marked.discard(index)
            elif len(self.marked) >= 3:
                self._say(self.t("msg.three_marked"))
                return
            else:
                self.marked.add(index)
            self.selected = index
            self._refresh_hand()
            return
        if self.selected == index and self._legal(ActionType.DISCARD):
            self.action_discard()
            return
        self.selected = index
        self._refresh_hand()

    def _refresh_hand(self) -> None:
        view = self.match.view()
        tiles, drawn_apart = hand_display(view)
        self.query_one(HandBar).show(tiles, drawn_apart=drawn_apart, selected=self.selected, marked=self.marked,
                                     melds=view.melds(HUMAN), glyphs=self.glyphs, lang=self.lang)
        self.query_one("#prompt", Static).update(Text(self._prompt()))  # the waits follow the selected tile

    def action_discard(self) -> None:
        g = self.game
        if g.phase is Phase.EXCHANGE and self._legal(ActionType.EXCHANGE):
            self._exchange()
            return
        discards = self._legal(ActionType.DISCARD)
        if not discards:
            if self.match.human_pending() and g.phase in (Phase.CLAIM, Phase.ROB):
                self._say(self.t("msg.answer_claim"))
            elif self.match.human_pending() and g.phase is Phase.DINGQUE:
                self._say(self.t("msg.dingque_first"))
            else:
                self._say(self._why_not("discard"))
            return
        if self.selected is None or self.selected >= len(self._tiles):
            self._say(self.t("msg.select_first"))
            return
        t = self._tiles[self.selected]
        action = next((a for a in discards if a.tile == t), None)
        if action is None:
            me = g.seat_state(HUMAN)
            if me.void is not None and me.holds_void():
                self._say(self.t("msg.void_first", suit=suit_name(me.void, self.lang)))
            elif me.won:
                self._say(self.t("msg.after_win"))
            else:
                self._say(self.t("msg.cannot_discard", tile=tile_label(t, self.glyphs, self.lang)))
            return
        self._play(action)

    def _exchange(self) -> None:
        if len(self.marked) != 3:
            self._say(self.t("msg.exchange_three", marked=len(self.marked)))
            return
        tiles = tuple(sorted(self._tiles[i] for i in self.marked))
        legal = self._legal(ActionType.EXCHANGE)
        action = next((a for a in legal if tuple(sorted(a.tiles)) == tiles), None)
        if action is None:
            self._say(self.t("msg.exchange_suit"))
            return
        self._play(action)

    def _claim(self, kind: ActionType, what: str) -> None:
        acts = self._legal(kind)
        if not acts:
            self._say(self._why_not(what))
            return
        self._play(acts[0])

    def action_hu(self) -> None:
        self._claim(ActionType.HU, "hu")

    def action_peng(self) -> None:
        if self.game.phase is Phase.DINGQUE and self.match.human_pending():
            self.action_void(1)  # p is also 筒 when choosing the void suit
            return
        self._claim(ActionType.PENG, "peng")

    def action_pass(self) -> None:
        acts = self._legal(ActionType.PASS)
        if not acts and self._legal(ActionType.HU) and self.game.phase in (Phase.CLAIM, Phase.ROB):
            self._say(self.t("msg.must_hu"))
            return
        self._claim(ActionType.PASS, "pass")

    def action_gang(self) -> None:
        gangs = self._legal(ActionType.GANG)
        if not gangs:
            self._say(self._why_not("gang"))
            return
        if len(gangs) > 1 and self.game.phase is Phase.TURN:
            chosen = self._tiles[self.selected] if self.selected is not None and self._tiles else None
            pick = next((a for a in gangs if a.tile == chosen), None)
            if pick is None:
                names = " ".join(tile_label(a.tile or 0, self.glyphs, self.lang) for a in gangs)
                self._say(self.t("msg.several_kongs", tiles=names))
                return
            self._play(pick)
            return
        self._play(gangs[0])

    def action_void(self, suit: int) -> None:
        g = self.game
        if g.phase is not Phase.DINGQUE or not self.match.human_pending():
            if g.phase is Phase.DINGQUE:
                self._say(self.t("msg.void_chosen"))
            else:
                self._say(self.t("msg.void_only_dingque", key=_SUIT_KEYS[suit]))
            return
        legal = self._legal(ActionType.DINGQUE)
        action = next((a for a in legal if a.suit == suit), None)
        if action is None:
            allowed = self.t("msg.or").join(f"{_SUIT_KEYS[a.suit or 0]} {suit_name(a.suit or 0, self.lang)}"
                                            for a in legal)
            self._say(self.t("msg.cannot_give_up", suit=suit_name(suit, self.lang), allowed=allowed))
            return
        self._play(action)

    def action_hint(self) -> None:
        if self.game.over or not self.match.human_pending():
            self._say(self.t("msg.hint_nothing"))
            return
        box = self.query_one("#hint-box", VerticalScroll)
        step = len(self.game.actions)
        if self._hint_step == step and not box.has_class("empty") and box.max_scroll_y > 0:
            # the same hint again: its next lines (a small screen shows a few at a time)
            if box.scroll_y >= box.max_scroll_y:
                box.scroll_home(animate=False)
            else:
                box.scroll_relative(y=max(1, box.size.height), animate=False)
            return
        self._hint_step = step
        lines = hint_lines(self.match.view(), self.match.human_legal(), self.lang,
                           lambda t: tile_label(t, self.glyphs, self.lang))
        self.query_one("#hint", Static).update(Text("\n".join(lines)))
        box.remove_class("empty")
        box.scroll_home(animate=False)

    def action_toggle_log(self) -> None:
        """The compact layout shows the log in place of the table, and back (the full one shows both)."""
        if self.compact:
            self.screen_stack[0].toggle_class("-log")

    def action_scroll_table(self, pages: int) -> None:
        target = self.query_one("#game-log" if self.screen_stack[0].has_class("-log") else "#table")
        target.scroll_relative(y=pages * max(1, target.size.height - 1), animate=False)

    def action_quit_match(self) -> None:
        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        self.push_screen(ConfirmScreen(self.t("msg.quit"), self.t("msg.yes_no")), answer)

    async def on_button_pressed(self, event: ActionButton.Pressed) -> None:
        button = event.button
        if isinstance(button, ActionButton):
            event.stop()
            await self.run_action(button.action_name)

    def on_key(self, event: events.Key) -> None:
        """A printable key with no meaning here: say so, change nothing."""
        if len(self.screen_stack) > 1:
            return  # a dialog is open: its own keys are listed in it
        if event.is_printable and event.character and event.key not in self.active_bindings:
            self._say(self.t("msg.useless_key", key=repr(event.character)))
