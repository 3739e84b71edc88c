"""``xuezhan review``: every decision of a recorded hand weighed by the expert (:mod:`xuezhan.review`)."""

from __future__ import annotations

import click

from .. import i18n
from ..errors import RecordError, XuezhanError
from ..i18n import Lang
from ..ids import ErrorCode
from ..review import review_lines, review_record
from ._common import emit_json, guarded, json_option, lang_option
from ._help import command
from .games import load_hand


@command("review")
@click.argument("file", metavar="FILE")
@click.option("--hand", "hand", type=int, default=None, metavar="N")
@click.option("--seat", "seat", type=int, default=None, metavar="S")
@json_option
@lang_option
@guarded
def review_cmd(file: str, hand: int | None, seat: int | None, as_json: bool, lang: Lang) -> int:
    if seat is not None and not 0 <= seat <= 3:
        raise XuezhanError(ErrorCode.BAD_SEAT, i18n.t("cli.review.bad_seat", lang, seat=seat))
    record = load_hand(file, hand, lang)
    try:
        review = review_record(record, None if seat is None else [seat], hand=hand or 1)
    except RecursionError:
        raise RecordError(ErrorCode.BAD_JSON, i18n.t("cli.json.too_deep", lang, file=file)) from None
    if as_json:
        emit_json(review.to_json())
    else:
        click.echo("\n".join(review_lines(review, lang)))
    return 0


__all__ = ["review_cmd"]
