"""Textual widgets of the table: seat panels, the human's hand, compact action buttons, dialogs."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar, TypeVar

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import ModalScreen
from textual.widgets import Button, RichLog, Static
from textual.worker import get_current_worker

from .. import i18n
from ..i18n import Lang
from ..scoring import Meld
from ..tiles import Tile
from .panels import SeatPanel
from .words import meld_text, tile_text

T = TypeVar("T")

HAND_KEYS = "123456789abcde"
"""The key that selects the tile at each position of the hand (14 at most)."""

MAX_HAND = 14


class SeatBox(Static):
    """One seat's panel: title, melds, river, wins, and its hand once laid down. In the compact
    layout it has only a top border, which carries the subtitle (the points) too."""

    def show(self, panel: SeatPanel, *, turn: bool, compact: bool = False) -> None:
        if compact and panel.subtitle:
            self.border_title = f"{panel.title} · {panel.subtitle}"
            self.border_subtitle = ""
        else:
            self.border_title = panel.title
            self.border_subtitle = panel.subtitle
        self.set_class(turn, "turn")
        self.update(panel.body)


class GameLog(RichLog):
    """The game's log, wrapped at its own width and scrolled to its latest line. A log wraps each
    line once, at the width it has when the line is written; the compact layout hides it (width 0)
    until ``l``, so it keeps its lines and writes them again when it comes into sight or its width
    changes."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id, wrap=True, markup=False, min_width=10)
        self.can_focus = False
        self._texts: list[Text] = []
        self._width = 0
        self._stale = True

    def add(self, line: Text) -> None:
        """Add ``line`` (written now if the log is in sight, else when it comes into sight)."""
        self._texts = [*self._texts[-(MAX_LOG - 1):], line]
        if self._stale or self.scrollable_content_region.width != self._width:
            self._stale = True
        else:
            self.write(line)

    def reset(self) -> None:
        """Forget every line."""
        self._texts = []
        self.clear()

    def on_resize(self, event: events.Resize) -> None:
        self.call_later(self._rewrite)

    def _rewrite(self) -> None:
        width = self.scrollable_content_region.width
        if width > 0 and (self._stale or width != self._width):
            self._width = width
            self._stale = False
            self.clear()
            for line in self._texts:
                self.write(line, scroll_end=False)
            self.call_after_refresh(self.scroll_end, animate=False)


MAX_LOG = 1000
"""The lines the log keeps."""


class TileButton(Static):
    """A tile of the human's hand: click to select it, click it again to discard it."""

    class Clicked(Message):
        def __init__(self, index: int) -> None:
            super().__init__()
            self.index = index

    def __init__(self, index: int, *, id: str | None = None) -> None:
        super().__init__("", id=id)
        self.index = index
        self.tile: Tile | None = None

    def on_click(self, event: events.Click) -> None:
        event.stop()
        if self.tile is not None:
            self.post_message(self.Clicked(self.index))


class HandBar(Horizontal):
    """The human's concealed tiles (the drawn tile apart on the right) and melds."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.tiles: list[Tile] = []

    def compose(self) -> ComposeResult:
        for i in range(MAX_HAND):
            yield TileButton(i, id=f"tile-{i}")
        yield Static("", id="hand-melds")

    def show(self, tiles: Sequence[Tile], *, drawn_apart: bool, selected: int | None, marked: set[int],
             melds: Sequence[Meld], glyphs: bool, lang: Lang = "en") -> None:
        self.tiles = list(tiles)
        for i, button in enumerate(self.query(TileButton)):
            if i < len(tiles):
                t = tiles[i]
                button.tile = t
                content = tile_text(t, glyphs, lang=lang)
                room = 3 - content.cell_len  # as wide as "5万"; a glyph is one cell, or two
                if room > 0:
                    content = Text(" " * (room // 2)) + content + Text(" " * (room - room // 2))
                content.append(f"\n{HAND_KEYS[i]}", style="dim")  # the key that selects it
                button.update(content)
                button.display = True
                button.set_class(i == selected, "selected")
                button.set_class(i in marked, "marked")
                button.set_class(drawn_apart and i == len(tiles) - 1, "drawn")
            else:
                button.tile = None
                button.display = False
        melds_text = Text()
        if melds:
            melds_text.append(i18n.t("tui.seat.melds", lang) + " ", style="dim")
            melds_text.append_text(Text(" ").join(meld_text(m, glyphs, lang) for m in melds))
        self.query_one("#hand-melds", Static).update(melds_text)


class ActionButton(Button, can_focus=False):
    """A one-line button for an action (the keyboard stays with the table)."""

    def __init__(self, label: str, action: str, *, id: str | None = None) -> None:
        super().__init__(label, id=id)
        self.action_name = action


class ConfirmScreen(ModalScreen[bool]):
    """A yes/no question."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("y", "answer(True)", "yes"),
        Binding("n", "answer(False)", "no"),
        Binding("escape", "answer(False)", "no", show=False),
        Binding("q", "answer(True)", "quit", show=False),
    ]

    def __init__(self, question: str, keys: str) -> None:
        super().__init__()
        self.question = question
        self.keys = keys

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(self.question, id="question")
            yield Static(self.keys, id="dialog-keys")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)


def in_background(node: DOMNode, work: Callable[[], T], done: Callable[[T], None]) -> None:
    """Run ``work`` (a second or so of search: a review) on a thread of ``node``'s, then ``done`` with its
    result on the app's loop; nothing when the node was closed (its worker cancelled) or the app ended
    meanwhile, and an error in ``work`` stops only that work, never the app."""

    def job() -> None:
        result = work()
        if get_current_worker().is_cancelled:
            return
        with contextlib.suppress(RuntimeError):  # the app ended meanwhile
            node.app.call_from_thread(done, result)

    node.run_worker(job, thread=True, group="review", exit_on_error=False)


@dataclass(frozen=True, slots=True)
class ReviewPage:
    """The settlement's 复盘 page: how to work it out (a second or so of search, run on a thread the
    first time it is asked for) and its words: the key that shows it, the one back, and the line
    shown meanwhile."""

    work: Callable[[], Text]
    show: str
    back: str
    working: str


class SettlementScreen(ModalScreen[str]):
    """The end of a hand (or of the match) in pages: the summary, which fits one 80x24 screen
    without scrolling (:func:`xuezhan.tui.settlement.summary_text`); on ``d`` every payment
    (:func:`~xuezhan.tui.settlement.details_text`), which scrolls; on ``r`` (with a ``review``) the
    review of the player's decisions (:mod:`xuezhan.review`). The same key again goes back."""

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("enter", "close('next')", "next"),
        Binding("space", "close('next')", "next", show=False),
        Binding("n", "close('next')", "next", show=False),
        Binding("q", "close('quit')", "quit"),
        Binding("d", "page('details')", "every payment"),
        Binding("r", "page('review')", "review"),
        Binding("v", "peek", "view the table"),
        Binding("up", "scroll(-1)", show=False),
        Binding("down", "scroll(1)", show=False),
    ]

    PAGES: ClassVar[tuple[str, ...]] = ("summary", "details", "review")

    def __init__(self, title: str, summary: Text, details: Text, keys: str, *, view_table: str, view_again: str,
                 show_details: str, show_summary: str, review: ReviewPage | None = None) -> None:
        super().__init__()
        self.title_text = title
        self.summary = summary
        self.details = details
        self.keys = keys
        self.view_table = view_table
        self.view_again = view_again
        self.show_details = show_details
        self.show_summary = show_summary
        self.review = review
        self.page = "summary"
        self.reviewed: Text | None = None
        """The review's text once worked out (``None`` before, and while it is)."""
        self._review_started = False

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(self.title_text, style="bold"), id="settlement-title")
            with VerticalScroll(id="settlement-scroll"):
                yield Static(self.summary, id="settlement-summary")
                details = Static(self.details, id="settlement-details")
                details.display = False
                yield details
                review = Static(Text(self.review.working if self.review else ""), id="settlement-review")
                review.display = False
                yield review
            yield Static(self._keys_line(), id="dialog-keys")
        yield Static(f"{self.keys} · {self.view_again}", id="peek")

    def _keys_line(self) -> str:
        keys = [self.keys, self.show_summary if self.page == "details" else self.show_details]
        if self.review is not None:
            keys.append(self.review.back if self.page == "review" else self.review.show)
        return " · ".join([*keys, self.view_table])

    def on_resize(self, event: events.Resize) -> None:
        """The pages scroll inside the dialog, whose title and keys always stay on screen (the summary
        is made to fit 80x24 without scrolling)."""
        compact = is_compact(event.size.width, event.size.height)
        self.set_class(compact, "-compact")
        self.query_one("#settlement-scroll").styles.max_height = max(3, event.size.height - (4 if compact else 12))

    def action_close(self, how: str) -> None:
        self.dismiss(how)

    def action_page(self, page: str) -> None:
        """``page`` (every payment, or the review) in place of the one shown; the summary when it is shown
        already. The review is worked out the first time it is shown, on a thread (the screen stays live)."""
        if page == "review" and self.review is None:
            return
        self.page = "summary" if self.page == page else page
        for name in self.PAGES:
            self.query_one(f"#settlement-{name}").display = name == self.page
        self.query_one("#dialog-keys", Static).update(self._keys_line())
        self.query_one("#settlement-scroll", VerticalScroll).scroll_home(animate=False)
        if self.page == "review" and self.review is not None and not self._review_started:
            self._review_started = True
            in_background(self, self.review.work, self._reviewed)

    def _reviewed(self, text: Text) -> None:
        self.reviewed = text
        with contextlib.suppress(NoMatches):  # closed while the call came
            self.query_one("#settlement-review", Static).update(text)

    def action_peek(self) -> None:
        """Hide the settlement to look at the table (the hands are laid down), or show it again."""
        dialog = self.query_one("#dialog")
        dialog.display = not dialog.display
        self.query_one("#peek").display = not dialog.display

    def action_scroll(self, step: int) -> None:
        self.query_one("#settlement-scroll", VerticalScroll).scroll_relative(y=step, animate=False)


def table_widgets() -> ComposeResult:
    """The table shared by play and replay: status, the four seats, the totals and the log.

    The seats' panels grow with their rivers and scroll (with a scroll bar) when the screen is
    too short; the compact layout (:data:`COMPACT`) shows the log in place of the table on ``l``."""
    yield Static("", id="status")
    yield Static("", id="last")
    with Horizontal(id="main"):
        with VerticalScroll(id="table") as table:
            table.can_focus = False  # the keyboard belongs to the game, not to scrolling
            yield SeatBox(id="seat-2")
            with Horizontal(id="middle"):
                yield SeatBox(id="seat-3")
                yield SeatBox(id="seat-1")
            yield SeatBox(id="seat-0")
        with Vertical(id="side"):
            yield Static("", id="scores")
            yield GameLog(id="game-log")


def plain(widget: Static) -> str:
    """The text a static widget shows (for tests and for logs)."""
    content = widget.content
    if isinstance(content, Text):
        return content.plain
    return str(content)


COMPACT_WIDTH = 100
COMPACT_HEIGHT = 28
"""Below either size the compact layout is used: seats with a one-line title, the log on ``l``."""


def is_compact(width: int, height: int) -> bool:
    return width < COMPACT_WIDTH or height < COMPACT_HEIGHT


CSS = """
Screen { layout: vertical; }
#status { height: 1; padding: 0 1; background: $boost; }
#last { height: 1; padding: 0 1; color: $text-muted; }
#main { height: 1fr; }
#table { width: 1fr; height: 1fr; }
#side { width: 38; height: 1fr; }
#middle { height: auto; }
SeatBox { height: auto; min-height: 5; border: round $panel-lighten-2; padding: 0 1; }
SeatBox.turn { border: heavy $accent; }
#seat-1, #seat-3 { width: 1fr; }
#scores { height: auto; border: round $panel-lighten-2; padding: 0 1; }
#game-log { height: 1fr; min-height: 4; border: round $panel-lighten-2; }
#hint-box { height: auto; max-height: 8; padding: 0 1; }
#hint-box.empty { display: none; }
#hint { height: auto; color: $success; }
HandBar { height: 4; padding: 0 1; }
TileButton { width: auto; height: 4; border: round $panel-lighten-2; padding: 0 0; text-align: center; }
TileButton.drawn { margin: 0 0 0 2; }
TileButton.selected { border: heavy $warning; background: $warning 20%; }
TileButton.marked { border: heavy $success; background: $success 25%; }
TileButton.marked.selected { border: heavy $warning; background: $success 40%; }
#hand-melds { width: 1fr; height: 4; padding: 1 0 0 2; }
#prompt { height: auto; padding: 0 1; text-style: bold; }
#actions { height: 1; padding: 0 1; }
ActionButton { height: 1; min-width: 8; border: none; margin: 0 1 0 0; padding: 0 1; }
#message { height: auto; padding: 0 1; color: $warning; text-style: bold; }
#message.empty { display: none; }
#keys { height: auto; max-height: 2; padding: 0 1; background: $panel; color: $text-muted; }
#dialog { width: 90; max-width: 95%; height: auto; max-height: 95%; border: thick $accent;
          background: $surface; padding: 1 2; }
#settlement-scroll { height: auto; max-height: 30; }
#dialog-keys { margin-top: 1; color: $text-muted; }
ConfirmScreen, SettlementScreen { align: center middle; }
SettlementScreen { background: $background 30%; }
#peek { display: none; dock: bottom; height: 1; width: 100%; background: $accent; color: $text; padding: 0 1; }
#step { height: auto; max-height: 4; padding: 0 1; text-style: bold; }

Screen.-compact #side { display: none; }
Screen.-compact.-log #side { display: block; width: 1fr; }
Screen.-compact.-log #table { display: none; }
Screen.-compact #scores { display: none; }
Screen.-compact SeatBox { min-height: 2; border: none; border-top: solid $panel-lighten-2; padding: 0 0; }
Screen.-compact SeatBox.turn { border: none; border-top: heavy $accent; }
Screen.-compact #seat-3 { margin-right: 1; }
Screen.-compact #hint-box { max-height: 4; }
Screen.-compact #dialog { padding: 0 1; border: round $accent; }
SettlementScreen.-compact #dialog { max-height: 100%; }
SettlementScreen.-compact #dialog-keys { margin-top: 0; }
"""
