"""Fan scoring (docs/rules.md §6).

:func:`score_win` takes a winning hand (concealed tiles with the winning tile, the
melds, the win context) and returns a frozen :class:`Score` with its breakdown:
the base pattern, the extras with their fan, the total fan, the multiple after the
cap, the points one payer pays, and the split used. Where a hand splits in several
ways, the split giving the most points is scored (坎倒板).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from .errors import HandError
from .hand import Block, WinBlock, standard_splits, win_block
from .ids import ErrorCode
from .rules import BASE_PATTERNS, Rules
from .tiles import NUM_KINDS, Tile, rank_of, suit_of, tile_name


class MeldKind(StrEnum):
    PENG = "peng"
    GANG = "gang"  # exposed kong: zhigang, or bugang on a peng
    ANGANG = "angang"  # concealed kong


@dataclass(frozen=True, slots=True)
class Meld:
    """A laid-down set: ``Meld(MeldKind.PENG, 4)`` is a pung of 5m."""

    kind: MeldKind
    tile: Tile

    @property
    def size(self) -> int:
        return 3 if self.kind is MeldKind.PENG else 4

    @property
    def is_kong(self) -> bool:
        return self.kind is not MeldKind.PENG

    def text(self) -> str:
        return f"{str(rank_of(self.tile)) * self.size}{'mps'[suit_of(self.tile)]}"

    def __repr__(self) -> str:
        return f"Meld(MeldKind.{self.kind.name}, {self.tile})"


def suits_of_melds(melds: Iterable[Meld]) -> int:
    """The suits of ``melds``, one bit a suit (``1 << suit``): what the hand analysis
    (:func:`xuezhan.hand.shanten`) takes of a seat's melds beside their number."""
    bits = 0
    for m in melds:
        bits |= 1 << (m.tile // 9)
    return bits


@dataclass(frozen=True, slots=True)
class WinContext:
    """How the win came about. ``tian_hu``/``di_hu`` wins are self-drawn by definition."""

    self_drawn: bool = False
    after_kong: bool = False  # self-drawn: 杠上花; on a discard: the discarder had just konged (杠上炮)
    robbing_kong: bool = False
    last_tile: bool = False  # 海底
    tian_hu: bool = False
    di_hu: bool = False
    last_copy: bool = False  # 绝张: every other copy of each winning tile is face up (docs/rules.md §6.2)
    paid_as_discard: bool = False  # 点杠花 under dian_gang_hua = "discard": no self-draw bonus of either kind

    @property
    def is_self_drawn(self) -> bool:
        return self.self_drawn or self.tian_hu or self.di_hu

    def check(self) -> None:
        """Raise ``conflicting_context`` for flags that cannot go together."""
        if self.robbing_kong and self.is_self_drawn:
            raise HandError(ErrorCode.CONFLICTING_CONTEXT,
                            "robbing a kong is a win on another seat's tile, not self-drawn")
        if self.robbing_kong and self.after_kong:
            raise HandError(ErrorCode.CONFLICTING_CONTEXT, "robbing a kong cannot also be a win after a kong")
        if self.tian_hu and self.di_hu:
            raise HandError(ErrorCode.CONFLICTING_CONTEXT, "a win cannot be both tian_hu and di_hu")
        if (self.tian_hu or self.di_hu) and (self.after_kong or self.last_tile):
            raise HandError(ErrorCode.CONFLICTING_CONTEXT, "tian_hu and di_hu are wins on the first tiles")
        if self.paid_as_discard and not (self.self_drawn and self.after_kong):
            raise HandError(
                ErrorCode.CONFLICTING_CONTEXT,
                "only a self-drawn win on a kong's replacement (点杠花) is paid as a discard",
            )


@dataclass(frozen=True, slots=True)
class Score:
    """A scored win.

    ``fan`` is the total before the cap, ``multiple`` after it; ``hand_points`` is
    ``base_score × multiple`` and ``points`` what one payer pays, self-draw bonus
    included (the engine decides who pays).
    """

    base: str
    base_fan: int
    extras: tuple[tuple[str, int], ...]
    fan: int
    multiple: int
    hand_points: int
    points: int
    split: tuple[str, ...]
    capped: bool

    @property
    def extras_dict(self) -> dict[str, int]:
        return dict(self.extras)

    def to_json(self) -> dict[str, Any]:
        return {
            "hu": True,
            "fan": self.fan,
            "multiple": self.multiple,
            "points": self.points,
            "base": self.base,
            "extras": self.extras_dict,
            "split": list(self.split),
        }


@dataclass(frozen=True, slots=True)
class NoWin:
    """Not a winning hand, and why: ``not_complete``, ``three_suits`` or ``void_suit_tile``."""

    reason: WinBlock

    def to_json(self) -> dict[str, Any]:
        return {"hu": False, "reason": self.reason}


def multiple_of(fan: int) -> int:
    """2^(fan − 1): 1 fan ×1, 2 ×2, 3 ×4 ..."""
    return 1 << (fan - 1) if fan >= 1 else 1


def _cap_fan(cap: int) -> int:
    fan = 1
    while multiple_of(fan) < cap:
        fan += 1
    return fan


def _block_text(b: Block) -> str:
    r, s = rank_of(b.tile), "mps"[suit_of(b.tile)]
    if b.kind == "pair":
        return f"{r}{r}{s}"
    if b.kind == "pung":
        return f"{r}{r}{r}{s}"
    return f"{r}{r + 1}{r + 2}{s}"


def _block_has_terminal(b: Block) -> bool:
    r = rank_of(b.tile)
    if b.kind == "run":
        return r in (1, 7)
    return r in (1, 9)


def check_hand(concealed: Sequence[Tile], melds: Sequence[Meld], win_tile: Tile | None = None, size: int = 14) -> None:
    """Raise :class:`HandError` unless the tiles make a possible hand of ``size`` tile-equivalents."""
    owned = [0] * NUM_KINDS
    for t in concealed:
        owned[t] += 1
    for m in melds:
        owned[m.tile] += m.size
    for t in range(NUM_KINDS):
        if owned[t] > 4:
            raise HandError(ErrorCode.TOO_MANY_COPIES,
                            f"more than 4 copies of {tile_name(t)} across the hand and its melds")
    total = len(concealed) + 3 * len(melds)
    if total != size:
        raise HandError(
            ErrorCode.WRONG_TILE_COUNT,
            f"the hand has {total} tile-equivalents (concealed {len(concealed)}, melds count 3 each); expected {size}",
        )
    if win_tile is not None and win_tile not in concealed:
        raise HandError(ErrorCode.WIN_TILE_NOT_IN_HAND, f"the winning tile {tile_name(win_tile)} is not in the hand")


def _check_context_against_hand(
    concealed: Sequence[Tile], melds: Sequence[Meld], win_tile: Tile, ctx: WinContext
) -> None:
    """Raise ``conflicting_context`` for a win context the hand itself rules out."""
    if ctx.after_kong and ctx.is_self_drawn and not any(m.is_kong for m in melds):
        raise HandError(
            ErrorCode.CONFLICTING_CONTEXT,
            "a win on a kong's replacement tile (杠上花) needs a kong of the winner's own",
        )
    if ctx.robbing_kong:
        # The robbed tile is the fourth copy (three are in the konger's peng): the winner holds no other.
        owned = sum(1 for t in concealed if t == win_tile) + sum(m.size for m in melds if m.tile == win_tile)
        if owned != 1:
            raise HandError(
                ErrorCode.CONFLICTING_CONTEXT,
                f"a robbed kong tile is the last copy of {tile_name(win_tile)}: the winner cannot hold another",
            )
    if (ctx.tian_hu or ctx.di_hu) and melds:
        raise HandError(ErrorCode.CONFLICTING_CONTEXT, "tian_hu and di_hu are wins on the first tiles, before any meld")


def score_win(
    concealed: Sequence[Tile],
    melds: Sequence[Meld],
    win_tile: Tile,
    ctx: WinContext,
    rules: Rules,
    void: int | None = None,
    *,
    check: bool = True,
) -> Score | NoWin:
    """Score a 14-equivalent hand whose concealed tiles include ``win_tile``.

    Returns :class:`NoWin` if it cannot hu under the game's rules (shape, two
    suits, void suit with ``dingque``). Raises :class:`HandError` for impossible input.
    """
    if check:
        check_hand(concealed, melds, win_tile)
        ctx.check()
        _check_context_against_hand(concealed, melds, win_tile, ctx)
    counts = [0] * NUM_KINDS
    for t in concealed:
        counts[t] += 1
    meld_suits = 0
    for m in melds:
        meld_suits |= 1 << suit_of(m.tile)
    block = win_block(counts, len(melds), meld_suits, void if rules.dingque else None)
    if block is not None:
        return NoWin(block)
    return _best_score(counts, melds, win_tile, ctx, rules)


def _best_score(counts: list[int], melds: Sequence[Meld], win_tile: Tile, ctx: WinContext, rules: Rules) -> Score:
    owned = list(counts)
    suit_mask = 0
    for t in range(NUM_KINDS):
        if counts[t]:
            suit_mask |= 1 << (t // 9)
    for m in melds:
        owned[m.tile] += m.size
        suit_mask |= 1 << suit_of(m.tile)
    quads = sum(1 for c in owned if c == 4)
    one_suit = suit_mask in (1, 2, 4)
    jiang = all(rank_of(t) in (2, 5, 8) for t in range(NUM_KINDS) if owned[t])
    meld_terminal = all(rank_of(m.tile) in (1, 9) for m in melds)
    meld_texts = [m.text() for m in melds]

    # (pattern, gen adjustment, split text)
    candidates: list[tuple[str, int, tuple[str, ...]]] = []

    def add(pattern: str, split: tuple[str, ...], gen_adjust: int = 0) -> None:
        candidates.append((pattern, gen_adjust, split))

    for blocks in standard_splits(counts):
        pair = [b for b in blocks if b.kind == "pair"]
        sets = sorted((b for b in blocks if b.kind != "pair"), key=lambda b: (b.tile, b.kind))
        set_texts = sorted([_block_text(b) for b in sets] + meld_texts, key=_text_key)
        text = tuple([_block_text(b) for b in pair] + set_texts)
        all_pungs = all(b.kind != "run" for b in blocks)
        yao_jiu = meld_terminal and all(_block_has_terminal(b) for b in blocks)
        add("ping_hu", text)
        if all_pungs:
            add("dui_dui_hu", text)
            if jiang:
                add("jiang_dui", text)
            if one_suit:
                add("qing_dui", text)
        if one_suit:
            add("qing_yi_se", text)
        if yao_jiu:
            add("dai_yao_jiu", text)
            if one_suit:
                add("qing_yao_jiu", text)
    if not melds and sum(counts) == 14 and all(c % 2 == 0 for c in counts):
        pairs: list[str] = []
        for t in range(NUM_KINDS):
            pairs.extend([f"{rank_of(t)}{rank_of(t)}{'mps'[suit_of(t)]}"] * (counts[t] // 2))
        text = tuple(pairs)
        add("qi_dui", text)
        if one_suit:
            add("qing_qi_dui", text)
        if rules.long_qi_dui_mode == "pattern" and quads:
            add("long_qi_dui", text, -1)
            if one_suit:
                add("qing_long_qi_dui", text, -1)
    if not candidates:  # cannot happen for a complete hand
        raise HandError(ErrorCode.NOT_COMPLETE, "the hand is not complete")
    if ctx.tian_hu or ctx.di_hu:
        pattern = "tian_hu" if ctx.tian_hu else "di_hu"
        for _, gen_adjust, split in list(candidates):
            add(pattern, split, gen_adjust if gen_adjust else 0)

    concealed_size = sum(counts)
    extras_common: list[tuple[str, int]] = []
    self_drawn = ctx.is_self_drawn
    if ctx.after_kong and self_drawn:
        extras_common.append(("gang_shang_hua", 1))
    if ctx.after_kong and not self_drawn and not ctx.robbing_kong:
        extras_common.append(("gang_shang_pao", 1))
    if ctx.robbing_kong:
        extras_common.append(("qiang_gang_hu", 1))
    if ctx.last_tile:
        extras_common.append(("hai_di", 1))
    if len(melds) == 4 and concealed_size == 2:
        extras_common.append(("jin_gou_diao", 1))
    if ctx.last_copy:
        extras_common.append(("jue_zhang", 1))
    bonus_due = self_drawn and not ctx.paid_as_discard
    if bonus_due and rules.self_draw_bonus == "fan":
        extras_common.append(("zi_mo_jia_fan", 1))

    bonus = self_draw_bonus_points(rules) if bonus_due else 0
    cap = rules.cap_multiple
    best: Score | None = None
    # Most points first; at equal points a "cap" pattern (tian_hu/di_hu = 满格) is the one reported,
    # then the higher fan, then the later pattern of the table.
    best_key: tuple[int, int, int, int] = (-1, -1, -1, -1)
    for pattern, gen_adjust, split in candidates:
        base_fv = rules.fan_of(pattern)
        if base_fv == "cap":
            assert cap is not None  # validated by Rules
            fan = _cap_fan(cap)
            extras: tuple[tuple[str, int], ...] = ()
            multiple = cap
            capped = True
            base_fan = fan
        else:
            base_fan = base_fv
            extra_list = []
            gen = quads + gen_adjust
            for eid, count in ([("gen", gen)] if gen > 0 else []) + extras_common:
                fv = rules.fan_of(eid)
                assert isinstance(fv, int)
                if fv * count:
                    extra_list.append((eid, fv * count))
            extras = tuple(extra_list)
            fan = base_fan + sum(v for _, v in extras)
            multiple = multiple_of(fan)
            capped = cap is not None and multiple > cap
            if cap is not None:
                multiple = min(multiple, cap)
        points = hand_points(rules, multiple)
        key = (points, int(base_fv == "cap"), fan, BASE_PATTERNS.index(pattern))
        if key > best_key:
            best_key = key
            best = Score(pattern, base_fan, extras, fan, multiple, points, points + bonus, split, capped)
    assert best is not None
    return best


# --- what each payment is worth (docs/rules.md §6-10) ---------------------------------------------------
# The one place that reads ``base_score``: the engine asks these for every amount it pays.


def hand_points(rules: Rules, multiple: int) -> int:
    """What a win of ``multiple`` is worth from one payer, before any self-draw bonus: base × multiple."""
    return rules.base_score * multiple


def self_draw_bonus_points(rules: Rules) -> int:
    """The self-draw bonus each payer adds under ``self_draw_bonus = "base"`` (one base), else 0."""
    return rules.base_score if rules.self_draw_bonus == "base" else 0


def angang_points(rules: Rules) -> int:
    """暗杠: what each other active seat pays, 2 × base."""
    return 2 * rules.base_score


def bugang_points(rules: Rules) -> int:
    """补杠: what each other active seat pays, 1 × base (when it pays at all: ``late_bugang_pays``)."""
    return rules.base_score


def zhigang_points(rules: Rules) -> tuple[int, int]:
    """直杠: what the discarder pays (2 × base) and what each other active seat pays under
    ``zhigang_payment = "everyone"`` (1 × base)."""
    base = rules.base_score
    return 2 * base, base


def hua_zhu_points(rules: Rules) -> int:
    """花猪: what a flower pig pays each seat that is not one (base × ``hua_zhu_multiple``)."""
    return rules.hua_zhu_points


ESCAPE_MULTIPLE = 16
"""An escaper pays each other active seat this multiple of the base, or a 大叫 near the end
(docs/rules.md §10)."""


def escape_points(rules: Rules) -> int:
    """逃跑: what an escaping seat pays each active seat, at least (16 × base; a 大叫 may be more)."""
    return hand_points(rules, ESCAPE_MULTIPLE)


def _text_key(text: str) -> tuple[int, str]:
    return ("mps".index(text[-1]) * 9 + int(text[0]), text)
