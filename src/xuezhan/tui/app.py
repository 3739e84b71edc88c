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
q quit (asks first).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.timer import Timer
from textual.widgets import Footer, RichLog, Static

from ..engine.actions import Action, ActionType
from ..engine.game import Game, Phase
from ..engine.views import SeatView, visible_events
from ..errors import IllegalActionError
from ..tiles import Tile
from .hints import hint_lines
from .match import HUMAN, HandResult, TerminalTable
from .panels import scores_text, seat_panel, status_text
from .widgets import (
    CSS,
    HAND_KEYS,
    ActionButton,
    ConfirmScreen,
    HandBar,
    SeatBox,
    SettlementScreen,
    TileButton,
    table_widgets,
)
from .words import (
    deltas_words,
    event_words,
    last_action_words,
    ledger_lines,
    seat_name,
    signed,
    suit_name,
    tile_label,
    win_words,
)

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
        Binding("q", "quit_match", "quit"),
    ]

    def __init__(self, match: TerminalTable, *, glyphs: bool = False, bot_delay: float = 0.45) -> None:
        super().__init__()
        self.match = match
        self.glyphs = glyphs
        self.bot_delay = bot_delay
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
    def compose(self) -> ComposeResult:
        yield from table_widgets()
        yield Static("", id="hint", classes="empty")
        yield HandBar(id="hand")
        yield Static("", id="prompt")
        with Horizontal(id="actions"):
            for label, action, ident in (
                ("胡 Hu h", "hu", "btn-hu"),
                ("碰 Peng p", "peng", "btn-peng"),
                ("杠 Gang g", "gang", "btn-gang"),
                ("过 Pass x", "pass", "btn-pass"),
                ("缺万 m", "void(0)", "btn-void-0"),
                ("缺筒 p", "void(1)", "btn-void-1"),
                ("缺条 s", "void(2)", "btn-void-2"),
                ("换 Pass 3 ⏎", "discard", "btn-exchange"),
                ("打 Discard ⏎", "discard", "btn-discard"),
                ("? Hint", "hint", "btn-hint"),
            ):
                yield ActionButton(label, action, id=ident)
        yield Static("", id="message")
        yield Footer()

    def on_mount(self) -> None:
        if not self.match.started:
            self.match.start_hand()
        self._new_hand_shown()
        self._after_change()

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
        self.sub_title = f"hand {self.match.hand_number}/{self.match.hands}"

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
        log = self.query_one("#game-log", RichLog)
        new = visible_events(g, HUMAN, self._event_index)
        self._event_index = g.event_count
        for ev in new:
            words = event_words(ev, HUMAN, glyphs=self.glyphs)
            if words is None:
                continue
            self.log_lines.append(words)
            style = "bold yellow" if ev["type"] == "hu" else ("dim" if words.startswith("  ") else "")
            log.write(Text(words, style=style))

    def _refresh(self) -> None:
        g = self.game
        m = self.match
        view = m.view()
        self.query_one("#status", Static).update(
            status_text(g, HUMAN, label=f"Hand {m.hand_number}/{m.hands}", rules_name=self._rules_name(),
                        glyphs=self.glyphs))
        last = last_action_words(g, HUMAN, glyphs=self.glyphs)
        self.query_one("#last", Static).update(Text(f"last: {last}" if last else ""))
        # the totals so far: the current hand counts once it is finished, before that it is added here
        running = list(m.totals) if m.hand_finished else [t + d for t, d in zip(m.totals, g.deltas(), strict=True)]
        turn_seat = g.turn if g.phase is Phase.TURN else None
        for seat in range(4):
            panel = seat_panel(g, seat, HUMAN, glyphs=self.glyphs, totals=running)
            self.query_one(f"#seat-{seat}", SeatBox).show(panel, turn=seat == turn_seat)
        names = ["", *([m.bot_name] * 3)]
        self.query_one("#scores", Static).update(scores_text(running, g.deltas(), HUMAN, names))
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
                                     melds=view.melds(HUMAN), glyphs=self.glyphs)
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
        self.query_one("#message", Static).update(Text(self.message))

    def _rules_name(self) -> str:
        r = self.match.rules
        mapping = r.to_mapping()
        return r.preset_name + ("+" if mapping["options"] else "")

    def _prompt(self) -> str:
        g = self.game
        if g.over:
            return "The hand is over."
        legal = self.match.human_legal()
        kinds = {a.type for a in legal}
        me = g.seat_state(HUMAN)
        if not legal:
            if me.won and not g.rules.blood_river:
                return "You have won this hand; the others play on."
            if g.phase is Phase.DINGQUE:
                return "定缺: waiting for the others to choose their void suit."
            if g.phase is Phase.EXCHANGE:
                return "换三张: waiting for the others."
            if g.phase is Phase.TURN:
                return f"Waiting for {seat_name(g.turn, HUMAN)}…"
            return "Waiting for the other seats…"
        if g.phase is Phase.DINGQUE:
            choices = [a.suit for a in legal if a.suit is not None]
            options = " · ".join(f"{_SUIT_KEYS[s]} {suit_name(s)}" for s in choices)
            forced = " (the only choice: you hold no tile of it)" if len(choices) == 1 else ""
            return f"定缺: choose the suit you give up: {options}{forced}"
        if g.phase is Phase.EXCHANGE:
            return ("换三张: mark three tiles of one suit (1-9 a-e or click), then enter to pass them "
                    f"({len(self.marked)}/3 marked)")
        if g.phase in (Phase.CLAIM, Phase.ROB):
            w = g.claim_window
            assert w is not None
            what = "adds to a kong" if g.phase is Phase.ROB else "discarded"
            opts = []
            if ActionType.HU in kinds:
                opts.append("h hu")
            if ActionType.PENG in kinds:
                opts.append("p peng")
            if ActionType.GANG in kinds:
                opts.append("g gang")
            if ActionType.PASS in kinds:
                opts.append("x pass")
            return f"{seat_name(w.seat, HUMAN)} {what} {tile_label(w.tile, self.glyphs)}: {' · '.join(opts)}"
        parts = []
        if ActionType.DISCARD in kinds:
            parts.append("pick a tile (←/→, 1-9 a-e, click) · enter/space discards")
        if ActionType.HU in kinds:
            parts.insert(0, "h HU!")
        gangs = [a for a in legal if a.type is ActionType.GANG]
        if gangs:
            parts.append("g gang " + " ".join(tile_label(a.tile or 0, self.glyphs) for a in gangs))
        void = me.void
        if void is not None and me.holds_void():
            parts.append(f"void {suit_name(void)} tiles go first")
        return "Your turn: " + " · ".join(parts)

    def _say(self, message: str) -> None:
        self.message = message
        self.query_one("#message", Static).update(Text(message))

    # --- bots ------------------------------------------------------------------------------------------
    def _schedule_bots(self) -> None:
        m = self.match
        if m.bot_to_act() is None:
            return
        if self.bot_delay <= 0:
            m.run_bots()
            self._after_change()
            return
        if not self._in_turn():
            # Claim answers, 定缺 and 换三张 go at once: a pause there would tell the human
            # that some bot could claim the tile. Only a turn is worth a pause to watch.
            while m.bot_to_act() is not None and not self._in_turn():
                m.step_bot()
            self._after_change()
            return
        if self._timer is None:
            delay = self.bot_delay
            if not self.game.active(HUMAN):
                delay = min(delay, 0.08)  # the human is out: let the others finish quickly
            self._timer = self.set_timer(delay, self._bot_tick)

    def _in_turn(self) -> bool:
        return self.game.phase is Phase.TURN

    def _bot_tick(self) -> None:
        self._timer = None
        if self.match.step_bot() is not None:
            self._after_change()

    # --- the end of a hand -------------------------------------------------------------------------------
    def _settle(self) -> None:
        if self._settled:
            return
        self._settled = True
        result = self.match.finish_hand()
        self._refresh()
        title, body, keys = self.settlement(result)
        self.push_screen(SettlementScreen(title, body, keys), self._after_settlement)

    def settlement(self, result: HandResult) -> tuple[str, Text, str]:
        """The settlement of the hand just finished (and the final table after the last one)."""
        g = self.game
        m = self.match
        body = Text()
        if g.winners:
            for w in g.winners:
                body.append(win_words(w, HUMAN, self.glyphs) + "\n", style="bold yellow")
        else:
            body.append("Nobody won this hand.\n", style="bold")
        body.append("\nPayments\n", style="bold underline")
        lines = ledger_lines(g, HUMAN)
        for line in lines or ["no payments"]:
            body.append(f"  {line}\n")
        mine = result.deltas[HUMAN]
        body.append("\nNet this hand: ", style="bold")
        body.append(f"you {signed(mine)}", style="bold green" if mine > 0 else ("bold red" if mine < 0 else "bold"))
        body.append("".join(f" · {seat_name(s, HUMAN)} {signed(result.deltas[s])}" for s in range(4) if s != HUMAN))
        body.append("\n")
        body.append("Totals: " + deltas_words(result.totals, HUMAN) + "\n", style="bold")
        if result.record_path is not None:
            body.append(f"Record saved: {result.record_path}\n", style="dim")
        if result.record_error is not None:
            body.append(f"Record not saved: {result.record_error}\n", style="bold red")
        if m.match_over:
            body.append("\nFinal table\n", style="bold underline")
            body.append(f"  {'rank':<6}{'seat':<16}{'wins':>6}{'points':>9}\n", style="bold")
            for rank, s in enumerate(m.standings(), start=1):
                who = "you (seat 0)" if s == HUMAN else f"seat {s} {m.bot_name}"
                body.append(f"  {rank:<6}{who:<16}{m.wins[s]:>6}{signed(m.totals[s]):>9}\n",
                            style="bold" if s == HUMAN else "")
            if m.seed is not None:
                body.append(f"\nThe same deals again: xuezhan play --seed {m.seed} --hands {m.hands}\n", style="dim")
            return (f"Match over after {m.hands} hand{'s' if m.hands > 1 else ''}", body,
                    "enter or q: leave the table")
        nd = result.next_dealer
        body.append(f"\nNext dealer: {'thrown by dice' if nd is None else seat_name(nd, HUMAN)}\n", style="dim")
        return (f"Hand {result.number}/{m.hands} over", body, "enter: next hand · q: quit")

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
        self.log_lines.append(f"--- hand {self.match.hand_number} ---")
        self.query_one("#game-log", RichLog).write(Text(f"--- hand {self.match.hand_number} ---", style="bold"))
        self._new_hand_shown()
        self.message = ""
        self._after_change()

    # --- the human's actions ---------------------------------------------------------------------------
    def _play(self, action: Action) -> None:
        try:
            self.match.play(action)
        except IllegalActionError as exc:
            self._say(f"Not allowed: {exc.message}")
            return
        self.message = ""
        hint = self.query_one("#hint", Static)
        hint.update("")
        hint.add_class("empty")
        self._after_change()

    def _legal(self, kind: ActionType) -> list[Action]:
        if self.game.over:
            return []
        return [a for a in self.match.human_legal() if a.type is kind]

    def _why_not(self, what: str) -> str:
        g = self.game
        if g.over:
            return "The hand is over."
        if not self.match.human_pending():
            if g.seat_state(HUMAN).won and not g.rules.blood_river:
                return f"No {what}: you have already won this hand."
            return f"No {what}: it is not your turn."
        return f"No {what} possible now."

    def action_move(self, step: int) -> None:
        if not self._tiles:
            self._say("No tiles to select.")
            return
        n = len(self._tiles)
        self.selected = ((self.selected if self.selected is not None else -1) + step) % n
        self._refresh_hand()

    def action_pick(self, index: int) -> None:
        if index >= len(self._tiles):
            self._say(f"No tile under key {HAND_KEYS[index]!r}: you hold {len(self._tiles)} tiles.")
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
                self._say("Three tiles are marked already: unmark one first.")
                return
            else:
                self.marked.add(index)
            self.selected = index
            self._refresh_hand()
            self.query_one("#prompt", Static).update(Text(self._prompt()))
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
                                     melds=view.melds(HUMAN), glyphs=self.glyphs)

    def action_discard(self) -> None:
        g = self.game
        if g.phase is Phase.EXCHANGE and self._legal(ActionType.EXCHANGE):
            self._exchange()
            return
        discards = self._legal(ActionType.DISCARD)
        if not discards:
            if self.match.human_pending() and g.phase in (Phase.CLAIM, Phase.ROB):
                self._say("No discard now: answer the claim (h hu · p peng · g gang · x pass).")
            elif self.match.human_pending() and g.phase is Phase.DINGQUE:
                self._say("First choose your void suit (m/p/s).")
            else:
                self._say(self._why_not("discard"))
            return
        if self.selected is None or self.selected >= len(self._tiles):
            self._say("Select a tile first (←/→ or 1-9 a-e).")
            return
        t = self._tiles[self.selected]
        action = next((a for a in discards if a.tile == t), None)
        if action is None:
            me = g.seat_state(HUMAN)
            if me.void is not None and me.holds_void():
                self._say(f"You must discard your void suit ({suit_name(me.void)}) first.")
            elif me.won:
                self._say("After your win you can only give up the tile you drew (or hu again).")
            else:
                self._say(f"You cannot discard {tile_label(t, self.glyphs)} now.")
            return
        self._play(action)

    def _exchange(self) -> None:
        if len(self.marked) != 3:
            self._say(f"换三张: mark exactly three tiles of one suit ({len(self.marked)} marked).")
            return
        tiles = tuple(sorted(self._tiles[i] for i in self.marked))
        legal = self._legal(ActionType.EXCHANGE)
        action = next((a for a in legal if tuple(sorted(a.tiles)) == tiles), None)
        if action is None:
            self._say("换三张: the three tiles must be of one suit.")
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
            self._say("You cannot pass: the rules force you to hu now (press h).")
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
                names = " ".join(tile_label(a.tile or 0, self.glyphs) for a in gangs)
                self._say(f"Several kongs possible ({names}): select the tile, then press g.")
                return
            self._play(pick)
            return
        self._play(gangs[0])

    def action_void(self, suit: int) -> None:
        g = self.game
        if g.phase is not Phase.DINGQUE or not self.match.human_pending():
            if g.phase is Phase.DINGQUE:
                self._say("You have chosen your void already; waiting for the others.")
            else:
                self._say(f"{_SUIT_KEYS[suit]}: choosing a void suit is only for 定缺 at the start of the hand.")
            return
        legal = self._legal(ActionType.DINGQUE)
        action = next((a for a in legal if a.suit == suit), None)
        if action is None:
            allowed = " or ".join(f"{_SUIT_KEYS[a.suit or 0]} {suit_name(a.suit or 0)}" for a in legal)
            self._say(f"You cannot give up {suit_name(suit)}: choose {allowed}.")
            return
        self._play(action)

    def action_hint(self) -> None:
        if self.game.over or not self.match.human_pending():
            self._say("Hint: nothing to decide now.")
            return
        lines = hint_lines(self.match.view(), self.match.human_legal(), self.glyphs)
        hint = self.query_one("#hint", Static)
        hint.update(Text("\n".join(lines)))
        hint.remove_class("empty")

    def action_quit_match(self) -> None:
        def answer(yes: bool | None) -> None:
            if yes:
                self.exit(0)

        self.push_screen(ConfirmScreen("Quit the match? (y/n)"), answer)

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
            self._say(f"Key {event.character!r} does nothing here; the keys are in the footer (? for a hint).")
