"""``xuezhan score``, ``xuezhan waits``, ``xuezhan shanten``."""

from __future__ import annotations

from typing import Any

import click

from .. import i18n, vocab
from ..errors import HandError
from ..hand import shanten, tiles_to_counts, winning_tiles
from ..i18n import Lang
from ..ids import ErrorCode
from ..scoring import NoWin, Score, WinContext, check_hand, score_win
from ..tiles import format_tiles, parse_tile, parse_tiles, suit_of, tile_name
from ..vocab import Kind
from ._common import (
    dingque_option,
    emit_json,
    guarded,
    json_option,
    lang_option,
    load_rules,
    meld_options,
    parse_melds,
    parse_void,
    rules_option,
)
from ._help import command


def _describe(score: Score, lang: Lang) -> str:
    parts = [i18n.t("cli.score.base", lang, name=vocab.name(Kind.PATTERN, score.base, lang), id=score.base,
                    fan=score.base_fan)]
    parts += [i18n.t("cli.score.extra", lang, name=vocab.name(Kind.EXTRA, eid, lang), id=eid, fan=fan)
              for eid, fan in score.extras]
    capped = i18n.t("cli.score.capped", lang) if score.capped else ""
    total = i18n.t("cli.score.total", lang, parts=i18n.t("cli.score.list_sep", lang).join(parts), fan=score.fan,
                   multiple=score.multiple, capped=capped, points=score.points, count=score.points)
    return total + "\n" + i18n.t("cli.score.split", lang, split=" ".join(score.split))


@command("score")
@click.argument("hand")
@click.option("--win", "win", required=True, metavar="TILE")
@meld_options
@click.option("--self-drawn", is_flag=True)
@click.option("--after-kong", is_flag=True)
@click.option("--robbing-kong", is_flag=True)
@click.option("--last-tile", is_flag=True)
@click.option("--last-copy", is_flag=True)
@click.option("--tian-hu", is_flag=True)
@click.option("--di-hu", is_flag=True)
@dingque_option
@rules_option
@json_option
@lang_option
@guarded
def score_cmd(
    hand: str,
    win: str,
    peng: tuple[str, ...],
    gang: tuple[str, ...],
    angang: tuple[str, ...],
    self_drawn: bool,
    after_kong: bool,
    robbing_kong: bool,
    last_tile: bool,
    last_copy: bool,
    tian_hu: bool,
    di_hu: bool,
    dingque: str | None,
    rules_spec: str,
    as_json: bool,
    lang: Lang,
) -> int:
    rules = load_rules(rules_spec)
    tiles = parse_tiles(hand)
    win_tile = parse_tile(win)
    melds = parse_melds(peng, gang, angang)
    void = parse_void(dingque)
    ctx = WinContext(
        self_drawn=self_drawn,
        after_kong=after_kong,
        robbing_kong=robbing_kong,
        last_tile=last_tile,
        tian_hu=tian_hu,
        di_hu=di_hu,
        last_copy=last_copy,
    )
    result = score_win(tiles, melds, win_tile, ctx, rules, void)
    if isinstance(result, NoWin):
        if as_json:
            emit_json(result.to_json())
        else:
            click.echo(i18n.t("cli.score.no_win", lang, why=i18n.t(f"cli.no_win.{result.reason}", lang),
                              reason=result.reason))
        return 1
    if as_json:
        emit_json(result.to_json())
    else:
        click.echo(_describe(result, lang))
    return 0


def _analysed_hand(
    hand: str, peng: tuple[str, ...], gang: tuple[str, ...], angang: tuple[str, ...], most: int
) -> Any:
    tiles = parse_tiles(hand)
    melds = parse_melds(peng, gang, angang)
    total = len(tiles) + 3 * len(melds)
    if total > most:
        raise HandError(
            ErrorCode.WRONG_TILE_COUNT,
            f"the hand has {total} tile-equivalents (concealed {len(tiles)}, melds count 3 each); "
            f"this command takes at most {most}",
        )
    check_hand(tiles, melds, None, size=total)
    counts = tiles_to_counts(tiles)
    owned = list(counts)
    meld_suits = 0
    for m in melds:
        owned[m.tile] += m.size
        meld_suits |= 1 << suit_of(m.tile)
    return tiles, melds, counts, owned, meld_suits


def _prepared(
    hand: str,
    peng: tuple[str, ...],
    gang: tuple[str, ...],
    angang: tuple[str, ...],
    dingque: str | None,
    rules_spec: str,
    most: int,
) -> tuple[Any, list[int], list[Any], list[int], list[int], int, int | None, int]:
    """Rules, the parsed hand, the void (when the rules have 定缺) and its shanten, for waits/shanten."""
    rules = load_rules(rules_spec)
    tiles, melds, counts, owned, meld_suits = _analysed_hand(hand, peng, gang, angang, most)
    void = parse_void(dingque)  # a bad suit is bad input even when the rules ignore the void
    if not rules.dingque:
        void = None
    sh = shanten(counts, len(melds), meld_suits=meld_suits, void=void, owned=owned)
    if sh >= 99:
        raise HandError(
            ErrorCode.NO_WINNING_HAND, "no winning hand can be reached: the melds use the void suit or three suits"
        )
    return rules, tiles, melds, counts, owned, meld_suits, void, sh


@command("waits")
@click.argument("hand")
@meld_options
@dingque_option
@rules_option
@json_option
@lang_option
@guarded
def waits_cmd(
    hand: str,
    peng: tuple[str, ...],
    gang: tuple[str, ...],
    angang: tuple[str, ...],
    dingque: str | None,
    rules_spec: str,
    as_json: bool,
    lang: Lang,
) -> int:
    rules, tiles, melds, counts, owned, meld_suits, void, sh = _prepared(
        hand, peng, gang, angang, dingque, rules_spec, 13
    )
    waits: list[dict[str, Any]] = []
    if len(tiles) + 3 * len(melds) == 13:  # a shorter hand has no waits (it cannot be ready)
        for t in winning_tiles(counts, len(melds), meld_suits=meld_suits, void=void, owned=owned):
            s = score_win([*tiles, t], melds, t, WinContext(), rules, void, check=False)
            assert isinstance(s, Score)
            waits.append(
                {"tile": tile_name(t), "fan": s.fan, "multiple": s.multiple, "base": s.base, "live": 4 - owned[t]}
            )
    ready = bool(waits)
    if as_json:
        emit_json({"ready": ready, "shanten": 0 if ready else max(sh, 1), "waits": waits})
    elif not ready:
        click.echo(i18n.t("cli.waits.not_ready", lang, hand=format_tiles(tiles), shanten=max(sh, 1)))
    else:
        click.echo(i18n.t("cli.waits.ready", lang, hand=format_tiles(tiles), count=len(waits)))
        for w in waits:
            click.echo(i18n.t("cli.waits.wait", lang, tile=w["tile"], name=vocab.name(Kind.PATTERN, w["base"], lang),
                              base=w["base"], fan=w["fan"], multiple=w["multiple"], live=w["live"],
                              count=w["live"]))
    return 0


@command("shanten")
@click.argument("hand")
@meld_options
@dingque_option
@rules_option
@json_option
@lang_option
@guarded
def shanten_cmd(
    hand: str,
    peng: tuple[str, ...],
    gang: tuple[str, ...],
    angang: tuple[str, ...],
    dingque: str | None,
    rules_spec: str,
    as_json: bool,
    lang: Lang,
) -> int:
    _, tiles, *_, sh = _prepared(
        hand, peng, gang, angang, dingque, rules_spec, 14
    )
    if as_json:
        emit_json({"shanten": sh})
    else:
        if sh < 0:
            word = i18n.t("cli.shanten.complete", lang)
        elif sh == 0:
            word = i18n.t("cli.shanten.ready", lang)
        else:
            word = i18n.t("cli.shanten.away", lang, count=sh)
        click.echo(i18n.t("cli.shanten.line", lang, hand=format_tiles(tiles), shanten=sh, word=word))
    return 0
