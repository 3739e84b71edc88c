"""``xuezhan replay FILE --view``: step through a game record on the same table.

A replay may show everything: every seat's hand is open. On ``r`` the step line also says what the
expert makes of the next action when it is a decision (:mod:`xuezhan.review`, every seat's decisions
weighed once, on a thread, the first time it is asked for). The steps are the actions
the record's replay applied (the listed ones, the passes a closed claim window
implies, and the ``autoplay`` decisions), so stepping to the end gives the record's
result.
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual import events
from textual.app import App, ComposeResult
from textual.binding import Binding, BindingType
from textual.widgets import Static

from .. import i18n
from ..engine.actions import Action
from ..engine.game import Game, Phase
from ..explain import explain_hand
from ..hints import action_words
from ..i18n import DEFAULT_LANG, Lang
from ..ids import EventKind
from ..records import Record, replay
from ..review import SHOWN_LOSS, Review, review_record
from .panels import rules_label, scores_text, seat_panel, status_text
from .widgets import CSS, GameLog, SeatBox, in_background, is_compact, table_widgets
from .words import event_words, last_action_words, seat_name


class ReplayStepper:
    """The hand of a record at any step: ``goto(k)`` is the state after the first ``k`` actions."""

    def __init__(self, record: Record) -> None:
        listed: dict[int, int] = {}

        def before(index: int, action: Action, game: Game) -> None:
            listed[len(game.actions)] = index

        final, complete = replay(record, before)
        self.record = record
        self.actions: list[Action] = list(final.actions)
        self.listed = listed
        """The step of each action the record lists, to its index in the record's ``actions`` (the passes a
        closed window implies and ``autoplay``'s decisions are steps the record does not list)."""
        self.complete = complete
        self.step = 0
        self.game = record.new_game()

    @property
    def total(self) -> int:
        return len(self.actions)

    def goto(self, k: int) -> Game:
        k = max(0, min(k, self.total))
        if k < self.step:
            self.game = self.record.new_game()
            self.step = 0
        while self.step < k:
            self.game.apply(self.actions[self.step])
            self.step += 1
        return self.game

    def next_action(self) -> Action | None:
        return self.actions[self.step] if self.step < self.total else None


class ReplayApp(App[int]):
    """The replay viewer: n/→ forward, b/← back, home/end, q quit."""

    CSS = CSS
    TITLE = "xuezhan replay"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "step(1)", "next", key_display="n/→"),
        Binding("right", "step(1)", "next", show=False),
        Binding("space", "step(1)", "next", show=False),
        Binding("b", "step(-1)", "back", key_display="b/←"),
        Binding("left", "step(-1)", "back", show=False),
        Binding("pagedown", "step(10)", "+10", key_display="PgDn"),
        Binding("pageup", "step(-10)", "-10", key_display="PgUp"),
        Binding("home", "goto(0)", "start"),
        Binding("end", "goto(-1)", "end"),
        Binding("r", "review", "review"),
        Binding("l", "toggle_log", "log"),
        Binding("q", "quit_replay", "quit"),
    ]

    def __init__(self, record: Record, *, glyphs: bool = False, name: str = "", lang: Lang = DEFAULT_LANG) -> None:
        super().__init__()
        self.lang = lang
        self.stepper = ReplayStepper(record)
        self.glyphs = glyphs
        self.record_name = name
        self.log_lines: list[str] = []
        self.compact = False
        self.reviewing = False
        """``r``: the expert's review of each decision shown under the step (:mod:`xuezhan.review`)."""
        self.review: Review | None = None
        """Every seat's decisions weighed, once worked out (on a thread, the first time ``r`` is pressed)."""
        self._review_started = False

    def compose(self) -> ComposeResult:
        yield from table_widgets()
        yield Static("", id="step")
        yield Static(i18n.t("tui.keys.replay", self.lang), id="keys")

    def on_mount(self) -> None:
        self.sub_title = self.record_name
        self._fit(self.size.width, self.size.height)
        self._refresh()

    def on_resize(self, event: events.Resize) -> None:
        self._fit(event.size.width, event.size.height)

    def _fit(self, width: int, height: int) -> None:
        compact = is_compact(width, height)
        self.screen_stack[0].set_class(compact, "-compact")  # the table's screen, under any dialog
        self.query_one("#keys", Static).update(i18n.t("tui.keys.replay" if compact else "tui.keys.replay_full",
                                                      self.lang))
        if compact != self.compact:
            self.compact = compact
            if self.log_lines:  # shown once already
                self._refresh()

    def action_toggle_log(self) -> None:
        if self.compact:
            self.screen_stack[0].toggle_class("-log")

    def action_step(self, delta: int) -> None:
        self.stepper.goto(self.stepper.step + delta)
        self._refresh()

    def action_goto(self, k: int) -> None:
        self.stepper.goto(self.stepper.total if k < 0 else k)
        self._refresh()

    def action_quit_replay(self) -> None:
        self.exit(0)

    def action_review(self) -> None:
        """The review of the next decision under the step, or not; worked out the first time it is asked for."""
        self.reviewing = not self.reviewing
        if self.reviewing and not self._review_started:
            self._review_started = True
            record = self.stepper.record
            in_background(self, lambda: review_record(record), self._reviewed)
        self._refresh()

    def _reviewed(self, review: Review) -> None:
        self.review = review
        self._refresh()

    def review_line(self) -> str:
        """The expert's word on the next action, when it is a decision of the record (more than one
        legal choice): the choice taken and the best one, their expected points, the loss."""
        lang = self.lang
        if self.review is None:
            return i18n.t("tui.replay.reviewing", lang)
        index = self.stepper.listed.get(self.stepper.step)
        d = next((d for d in self.review.decisions if d.step == index), None) if index is not None else None
        if d is None:
            return i18n.t("tui.replay.no_choice", lang)
        seat = seat_name(d.seat, None, lang)
        taken = action_words(d.taken, lang)
        if d.loss < SHOWN_LOSS:
            return i18n.t("tui.replay.review_best", lang, seat=seat, taken=taken, ev=f"{d.taken_ev:+.2f}")
        key = "tui.replay.review_mistake" if d.mistake else "tui.replay.review_noise"
        return i18n.t(key, lang, seat=seat, taken=taken, taken_ev=f"{d.taken_ev:+.2f}",
                      best=action_words(d.best.action, lang), best_ev=f"{d.best.ev:+.2f}", loss=f"{d.loss:.2f}",
                      stderr=f"{d.stderr:.2f}")

    def _refresh(self) -> None:
        st = self.stepper
        g = st.game
        lang = self.lang
        rules = rules_label(g.rules.preset_name, bool(g.rules.to_mapping()["options"]), lang)
        self.query_one("#status", Static).update(
            status_text(g, None, label=i18n.t("tui.status.replay", lang), rules_name=rules,
                        glyphs=self.glyphs, lang=lang, compact=self.compact))
        last = last_action_words(g, None, glyphs=self.glyphs, reveal=True, lang=lang)
        self.query_one("#last", Static).update(Text(i18n.t("tui.last", lang, what=last) if last else ""))
        turn_seat = g.turn if g.phase is Phase.TURN else None
        for seat in range(4):
            panel = seat_panel(g, seat, None, glyphs=self.glyphs, reveal=True, lang=lang, compact=self.compact)
            self.query_one(f"#seat-{seat}", SeatBox).show(panel, turn=seat == turn_seat, compact=self.compact)
        self.query_one("#scores", Static).update(scores_text(g.deltas(), None, None, ["", "", "", ""], lang))
        log = self.query_one("#game-log", GameLog)
        log.reset()
        self.log_lines = []
        for ev in g.events:  # a replay shows every event whole
            words = event_words(ev, None, glyphs=self.glyphs, reveal=True, lang=lang)
            if words is not None:
                self.log_lines.append(words)
                log.add(Text(words, style="bold yellow" if ev["type"] == EventKind.HU else ""))
        if g.over:
            for line in self._result_lines(g):
                self.log_lines.append(line)
                log.add(Text(line, style="bold"))
        nxt = st.next_action()
        if nxt is not None:
            step = i18n.t("tui.replay.step", lang, step=st.step, total=st.total,
                          action=f"{seat_name(nxt.seat, None, lang)} {action_words(nxt, lang)}")
        elif st.complete:
            step = i18n.t("tui.replay.end", lang, step=st.step, total=st.total)
        else:
            step = i18n.t("tui.replay.stops", lang, step=st.step, total=st.total)
        if self.reviewing and nxt is not None:
            step += "\n" + self.review_line()
        self.query_one("#step", Static).update(Text(step))

    def _result_lines(self, g: Game) -> list[str]:
        return ["", i18n.t("tui.replay.result", self.lang), *explain_hand(g, self.lang)]
