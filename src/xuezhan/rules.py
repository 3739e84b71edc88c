"""Rule options and presets (docs/rules.md §14).

One frozen :class:`Rules` value holds every option; it is validated when built.
Presets ``qq`` (the default) and ``chengdu`` are looked up by name, and a TOML
rules file names a preset and overrides options::

    preset = "chengdu"
    cap_multiple = 16
    exchange_three = "clockwise"

    [fan]          # fan of any base pattern or extra, by id: an int, or "cap"
    hai_di = 2

Numeric options are bounded, so that no settlement can overflow a signed 64-bit
column (docs/options.md has the arithmetic): ``base_score`` 1 to :data:`MAX_BASE_SCORE`
(1000); ``cap_multiple`` 1 to :data:`MAX_MULTIPLE` (2**19) or none;
``hua_zhu_multiple`` 0 to :data:`MAX_MULTIPLE` or ``"cap"``; each fan 0 to
:data:`MAX_FAN` (20; a base pattern at least 1, or ``"cap"``), and the table as a whole
lets no hand score more than :data:`MAX_FAN` fan (:func:`max_fan`).

An unknown option or a bad value raises :class:`~xuezhan.errors.RulesError`
(``bad_option`` for a value out of its bounds).
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal, get_args

from .errors import RulesError
from .ids import ErrorCode

Cap = Literal["cap"]
FanValue = int | Cap

# The options with a fixed set of values (docs/rules.md §14), one type each.
SelfDrawBonus = Literal["base", "fan", "none"]
ZhigangPayment = Literal["discarder", "everyone"]
DianGangHua = Literal["self_draw", "discard"]
PassHuScope = Literal["same_tile", "any_tile"]
ChaJiaoPays = Literal["max", "min"]
LongQiDuiMode = Literal["pattern", "roots"]
DealerRule = Literal["first_winner", "dice", "discarder"]
ExchangeThree = Literal["none", "clockwise", "counter", "opposite", "random"]

BASE_PATTERNS: Final = (
    "ping_hu",
    "dui_dui_hu",
    "qing_yi_se",
    "dai_yao_jiu",
    "qi_dui",
    "qing_dui",
    "jiang_dui",
    "long_qi_dui",
    "qing_qi_dui",
    "qing_yao_jiu",
    "qing_long_qi_dui",
    "tian_hu",
    "di_hu",
)
"""Base pattern ids (docs/rules.md §6.1), in table order."""

EXTRAS: Final = (
    "gen",
    "gang_shang_hua",
    "gang_shang_pao",
    "qiang_gang_hu",
    "hai_di",
    "jin_gou_diao",
    "jue_zhang",
    "zi_mo_jia_fan",
)
"""Extra ids (docs/rules.md §6.2)."""

_QQ_FAN: Final[dict[str, FanValue]] = {
    "ping_hu": 1,
    "dui_dui_hu": 2,
    "qing_yi_se": 3,
    "dai_yao_jiu": 3,
    "qi_dui": 3,
    "qing_dui": 4,
    "jiang_dui": 4,
    "long_qi_dui": 5,
    "qing_qi_dui": 5,
    "qing_yao_jiu": 5,
    "qing_long_qi_dui": 6,
    "tian_hu": 6,
    "di_hu": 6,
    "gen": 1,
    "gang_shang_hua": 1,
    "gang_shang_pao": 1,
    "qiang_gang_hu": 0,
    "hai_di": 0,
    "jin_gou_diao": 0,
    "jue_zhang": 0,
    "zi_mo_jia_fan": 1,
}
_CHENGDU_FAN: Final[dict[str, FanValue]] = {
    **_QQ_FAN,
    "jiang_dui": 5,
    "qiang_gang_hu": 1,
    "hai_di": 1,
    "jin_gou_diao": 1,
    "jue_zhang": 0,
    "tian_hu": "cap",
    "di_hu": "cap",
}

_CHOICES: Final[dict[str, tuple[str, ...]]] = {
    "self_draw_bonus": get_args(SelfDrawBonus),
    "zhigang_payment": get_args(ZhigangPayment),
    "dian_gang_hua": get_args(DianGangHua),
    "pass_hu_scope": get_args(PassHuScope),
    "cha_jiao_pays": get_args(ChaJiaoPays),
    "long_qi_dui_mode": get_args(LongQiDuiMode),
    "dealer_rule": get_args(DealerRule),
    "exchange_three": get_args(ExchangeThree),
}
"""The values of each option with a fixed set of them, from its type."""
_BOOLS: Final = (
    "dingque",
    "late_bugang_pays",
    "call_transfer",
    "must_hu_last_four",
    "dead_wait_counts",
    "end_on_first_win",
    "escaped_winner_forfeits",
    "kong_draw_from_tail",
    "blood_river",
)


@dataclass(frozen=True)
class Rules:
    """Every rule option of docs/rules.md §14. Build with :meth:`preset`, :meth:`load` or :meth:`with_options`."""

    preset_name: str = "qq"
    base_score: int = 6
    cap_multiple: int | None = None
    dingque: bool = True
    self_draw_bonus: SelfDrawBonus = "base"
    zhigang_payment: ZhigangPayment = "discarder"
    late_bugang_pays: bool = True
    call_transfer: bool = True
    dian_gang_hua: DianGangHua = "self_draw"
    pass_hu_scope: PassHuScope = "same_tile"
    must_hu_last_four: bool = False
    hua_zhu_multiple: int | Cap = 16
    cha_jiao_pays: ChaJiaoPays = "max"
    dead_wait_counts: bool = True
    long_qi_dui_mode: LongQiDuiMode = "pattern"
    dealer_rule: DealerRule = "dice"
    end_on_first_win: bool = False
    escaped_winner_forfeits: bool = True
    kong_draw_from_tail: bool = False
    exchange_three: ExchangeThree = "none"
    blood_river: bool = False
    fan: tuple[tuple[str, FanValue], ...] = field(default_factory=lambda: tuple(_QQ_FAN.items()))

    def __post_init__(self) -> None:
        _validate(self)

    # --- lookups ------------------------------------------------------------------
    def fan_of(self, pattern: str) -> FanValue:
        """The fan of a base pattern or extra id under these rules."""
        for k, v in self.fan:
            if k == pattern:
                return v
        raise RulesError(ErrorCode.UNKNOWN_PATTERN, f"no pattern or extra {pattern!r}")

    @property
    def hua_zhu_points(self) -> int:
        """What a flower pig pays each non-pig active seat (docs/rules.md §8.1)."""
        mult = self.hua_zhu_multiple
        if mult == "cap":
            assert self.cap_multiple is not None  # validated
            return self.base_score * self.cap_multiple
        return self.base_score * mult

    # --- construction ---------------------------------------------------------------
    @classmethod
    def preset(cls, name: str = "qq") -> Rules:
        """The named preset: ``"qq"`` (online-platform rules, the default) or ``"chengdu"`` (home rules)."""
        if name == "qq":
            return cls()
        if name == "chengdu":
            return cls(
                preset_name="chengdu",
                base_score=1,
                cap_multiple=8,
                late_bugang_pays=False,
                must_hu_last_four=True,
                hua_zhu_multiple="cap",
                long_qi_dui_mode="roots",
                dealer_rule="first_winner",
                escaped_winner_forfeits=False,
                fan=tuple(_CHENGDU_FAN.items()),
            )
        raise RulesError(ErrorCode.UNKNOWN_PRESET, f"unknown preset {name!r}: use 'qq' or 'chengdu'")

    def with_options(self, options: Mapping[str, Any]) -> Rules:
        """A copy with ``options`` (docs/rules.md §14 names; ``fan`` a mapping of pattern id to fan) overridden."""
        changes: dict[str, Any] = {}
        names = {f.name for f in dataclasses.fields(self)} - {"preset_name", "fan"}
        for key, value in options.items():
            if key == "fan":
                if not isinstance(value, Mapping):
                    raise RulesError(ErrorCode.BAD_OPTION, "option 'fan' must be a table of pattern id = fan")
                table = dict(self.fan)
                for pid, fv in value.items():
                    if pid not in table:
                        raise RulesError(ErrorCode.UNKNOWN_PATTERN, f"no pattern or extra {pid!r} in 'fan'")
                    table[pid] = fv
                changes["fan"] = tuple(table.items())
            elif key == "cap_multiple" and value == "none":
                changes[key] = None  # TOML has no null: "none" removes the cap (docs/rules.md §14: "int or none")
            elif key in names:
                changes[key] = value
            else:
                raise RulesError(ErrorCode.UNKNOWN_OPTION, f"unknown rule option {key!r}")
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any]) -> Rules:
        """``{"preset": "qq", "options": {...}}`` or ``{"preset": "qq", <option>: value, ...}``."""
        if not isinstance(data, Mapping):
            raise RulesError(ErrorCode.BAD_RULES, "rules must be a preset name or a table")
        data = dict(data)
        name = data.pop("preset", "qq")
        if not isinstance(name, str):
            raise RulesError(ErrorCode.BAD_RULES, "'preset' must be a preset name")
        options = data.pop("options", {})
        if not isinstance(options, Mapping):
            raise RulesError(ErrorCode.BAD_RULES, "'options' must be a table")
        return cls.preset(name).with_options({**data, **options})

    @classmethod
    def load(cls, spec: str | Path) -> Rules:
        """A preset name (``"qq"``, ``"chengdu"``) or the path of a TOML rules file."""
        text = str(spec)
        if text in ("qq", "chengdu"):
            return cls.preset(text)
        path = Path(text)
        if not path.suffix == ".toml" and not path.exists():
            raise RulesError(ErrorCode.UNKNOWN_PRESET, f"unknown preset {text!r}: use 'qq', 'chengdu' or a .toml file")
        if path.exists() and not path.is_file():  # a folder, a device or a pipe (which could never end)
            raise RulesError(ErrorCode.RULES_FILE_UNREADABLE, f"cannot read rules file {text}: not a file")
        try:
            raw = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RulesError(
                ErrorCode.RULES_FILE_UNREADABLE, f"cannot read rules file {text}: {exc.strerror}"
            ) from None
        except UnicodeEncodeError:  # a name no file can have (a lone surrogate)
            raise RulesError(
                ErrorCode.RULES_FILE_UNREADABLE, f"cannot read rules file {text}: not a file name"
            ) from None
        except UnicodeDecodeError:
            raise RulesError(
                ErrorCode.RULES_FILE_SYNTAX, f"rules file {text} is not valid TOML: not UTF-8 text"
            ) from None
        try:
            data = tomllib.loads(raw)
        except tomllib.TOMLDecodeError as exc:
            raise RulesError(ErrorCode.RULES_FILE_SYNTAX, f"rules file {text} is not valid TOML: {exc}") from None
        except ValueError:  # Python's limit on the digits of an integer read from text (4,300)
            raise RulesError(
                ErrorCode.RULES_FILE_SYNTAX, f"rules file {text}: a number has more than 4300 digits"
            ) from None
        if _huge_integer(data):
            raise RulesError(ErrorCode.RULES_FILE_SYNTAX, f"rules file {text}: a number has more than 4300 digits")
        return cls.from_mapping(data)

    def to_mapping(self) -> dict[str, Any]:
        """The options that differ from the preset, as ``{"preset": .., "options": {..}}`` (a new
        dict each time; worked out once per rules, since every record and table state carries it)."""
        mapping = self._mapping
        options = {k: dict(v) if isinstance(v, dict) else v for k, v in mapping["options"].items()}
        return {"preset": mapping["preset"], "options": options}

    @functools.cached_property
    def _mapping(self) -> dict[str, Any]:
        base = Rules.preset(self.preset_name)
        options: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name in ("preset_name", "fan"):
                continue
            if getattr(self, f.name) != getattr(base, f.name):
                options[f.name] = getattr(self, f.name)
        fan_diff = {k: v for k, v in self.fan if dict(base.fan)[k] != v}
        if fan_diff:
            options["fan"] = fan_diff
        return {"preset": self.preset_name, "options": options}


def _huge_integer(data: Any) -> bool:
    """Whether TOML ``data`` holds an integer too long to print (a hexadecimal one of thousands of
    digits: Python writes no integer of more than 4,300 decimal digits)."""
    stack = [data]
    while stack:
        item = stack.pop()
        if isinstance(item, int) and item.bit_length() > 14_000:
            return True
        if isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


MAX_FAN: Final = 20
"""The most fan one hand may score under a fan table: the highest base pattern (other than
``"cap"``) plus four ``gen`` plus every other extra (docs/options.md)."""
MAX_MULTIPLE: Final = 1 << (MAX_FAN - 1)
"""2**19 = 524288: the largest multiple of a hand without a cap, and the bound of
``cap_multiple`` and ``hua_zhu_multiple``."""
MAX_BASE_SCORE: Final = 1000
"""The largest ``base_score``. With the room bounds (:mod:`xuezhan.match.room`) no settlement
can overflow a signed 64-bit column: the arithmetic is in docs/options.md."""
MAX_GEN: Final = 4
"""A winning hand holds at most 18 tiles (four kongs and a pair), so at most four ``gen``."""


def max_fan(fan: Mapping[str, FanValue]) -> int:
    """The most fan a hand can score under the fan table ``fan`` (``"cap"`` patterns left out:
    they score ``cap_multiple`` and take no extras): its highest base pattern, four ``gen``
    and every other extra at once (some exclude each other; the bound does not rely on it)."""
    base = max((v for k, v in fan.items() if k in BASE_PATTERNS and isinstance(v, int)), default=0)
    extras = sum(v * (MAX_GEN if k == "gen" else 1) for k, v in fan.items() if k in EXTRAS and isinstance(v, int))
    return base + extras


def _validate(r: Rules) -> None:
    def bad(name: str, why: str) -> RulesError:
        return RulesError(ErrorCode.BAD_OPTION, f"option {name!r}: {why}")

    def is_int(v: object) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    if not is_int(r.base_score) or not 1 <= r.base_score <= MAX_BASE_SCORE:
        raise bad("base_score", f"must be an integer from 1 to {MAX_BASE_SCORE}, not {r.base_score!r}")
    if r.cap_multiple is not None and (not is_int(r.cap_multiple) or not 1 <= r.cap_multiple <= MAX_MULTIPLE):
        raise bad("cap_multiple", f"must be an integer from 1 to {MAX_MULTIPLE} or none, not {r.cap_multiple!r}")
    for name in _BOOLS:
        if not isinstance(getattr(r, name), bool):
            raise bad(name, f"must be true or false, not {getattr(r, name)!r}")
    for name, choices in _CHOICES.items():
        if getattr(r, name) not in choices:
            raise bad(name, f"must be one of {', '.join(choices)}, not {getattr(r, name)!r}")
    hz = r.hua_zhu_multiple
    if hz == "cap":
        if r.cap_multiple is None:
            raise bad("hua_zhu_multiple", '"cap" needs a cap_multiple')
    elif isinstance(hz, bool) or not isinstance(hz, int) or not 0 <= hz <= MAX_MULTIPLE:
        raise bad("hua_zhu_multiple", f'must be an integer from 0 to {MAX_MULTIPLE} or "cap", not {hz!r}')
    if not isinstance(r.fan, tuple) or not all(isinstance(p, tuple) and len(p) == 2 for p in r.fan):
        raise bad("fan", "must be pairs of pattern id and fan")
    seen = set()
    for pid, fv in r.fan:
        if pid not in _QQ_FAN:
            raise RulesError(ErrorCode.UNKNOWN_PATTERN, f"no pattern or extra {pid!r}")
        seen.add(pid)
        if fv == "cap":
            if r.cap_multiple is None:
                raise bad("fan", f'{pid} = "cap" needs a cap_multiple')
            if pid in EXTRAS:
                raise bad("fan", f'{pid} is an extra: its fan must be an integer, not "cap"')
        elif isinstance(fv, bool) or not isinstance(fv, int) or not 0 <= fv <= MAX_FAN:
            raise bad("fan", f'{pid} must be an integer from 0 to {MAX_FAN} or "cap", not {fv!r}')
        elif pid in BASE_PATTERNS and fv == 0:
            raise bad("fan", f"{pid} is a base pattern: its fan must be at least 1")
    if seen != set(_QQ_FAN):
        raise bad("fan", "every pattern and extra needs a fan")
    total = max_fan(dict(r.fan))
    if total > MAX_FAN:
        raise bad("fan", f"a hand could score {total} fan (the highest base pattern, {MAX_GEN} gen and every "
                         f"other extra); at most {MAX_FAN}")


def option_names() -> tuple[str, ...]:
    """The names of every rule option, as in docs/rules.md §14 (plus ``fan``)."""
    return tuple(f.name for f in dataclasses.fields(Rules) if f.name != "preset_name")
