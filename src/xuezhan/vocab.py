"""One vocabulary: every name the game shows people, by permanent id.

Each :class:`Term` is one id of one :class:`Kind` (a base pattern, an extra, a ledger
reason, an action type, an event type, an item card or an error code) with its names
in Simplified Chinese (``zh-CN``, the default), Traditional Chinese (``zh-TW``) and
English. Ids never change once used (records and databases store them); names may
be improved. Everything else looks names up here::

    >>> from xuezhan import vocab
    >>> vocab.name(vocab.Kind.PATTERN, "qing_yi_se")
    '清一色'
    >>> vocab.term("reason", "zimo").en
    'self-drawn win'

:func:`to_json` is what the web page reads (``GET /api/vocab``); ``docs/vocabulary.md``
is written from it by ``tools/gen_vocab_doc.py``. Standard library only: this module
sits in the rules core.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from .errors import XuezhanError

Lang = Literal["zh-CN", "zh-TW", "en"]
LANGS: Final[tuple[Lang, ...]] = ("zh-CN", "zh-TW", "en")
DEFAULT_LANG: Final[Lang] = "zh-CN"


class Kind(StrEnum):
    """What a term names."""

    PATTERN = "pattern"  # base pattern, RULES 6.1
    EXTRA = "extra"  # extra fan, RULES 6.2
    REASON = "reason"  # ledger reason, RULES 7-8, 10, 12-13
    ACTION = "action"  # action type of a record (engine ActionType)
    EVENT = "event"  # event type of the engine's event log
    ITEM = "item"  # item card, RULES 13 (match ItemKind)
    ERROR = "error"  # stable error code (XuezhanError.code and the server's error messages)


class UnknownTermError(XuezhanError):
    """An id that the vocabulary does not list (code ``unknown_term``)."""


@dataclass(frozen=True, slots=True)
class Term:
    """One id and its names: ``Term("qing_yi_se", Kind.PATTERN, "清一色", "清一色", "pure one suit")``."""

    id: str
    kind: Kind
    zh_cn: str
    zh_tw: str
    en: str

    def name(self, lang: Lang = DEFAULT_LANG) -> str:
        """The name in ``lang`` (``"zh-CN"``, ``"zh-TW"`` or ``"en"``)."""
        if lang == "zh-CN":
            return self.zh_cn
        if lang == "zh-TW":
            return self.zh_tw
        if lang == "en":
            return self.en
        raise UnknownTermError("unknown_term", f"no language {lang!r}: use {', '.join(LANGS)}")

    def names(self) -> dict[str, str]:
        """``{"zh-CN": .., "zh-TW": .., "en": ..}``."""
        return {"zh-CN": self.zh_cn, "zh-TW": self.zh_tw, "en": self.en}

    def __repr__(self) -> str:
        return (f"Term({self.id!r}, Kind.{self.kind.name}, {self.zh_cn!r}, {self.zh_tw!r}, {self.en!r})")


# --- the tables: (id, zh-CN, zh-TW, en), in a fixed order ---------------------------------------------------

_Row = tuple[str, str, str, str]

_PATTERNS: Final[tuple[_Row, ...]] = (  # RULES 6.1, in table order
    ("ping_hu", "平胡", "平胡", "plain win"),
    ("dui_dui_hu", "对对胡", "對對胡", "all pungs"),
    ("qing_yi_se", "清一色", "清一色", "pure one suit"),
    ("dai_yao_jiu", "带幺九", "帶幺九", "terminals in every set"),
    ("qi_dui", "七对", "七對", "seven pairs"),
    ("qing_dui", "清对", "清對", "pure all pungs"),
    ("jiang_dui", "将对", "將對", "all pungs of 2, 5, 8"),
    ("long_qi_dui", "龙七对", "龍七對", "dragon seven pairs"),
    ("qing_qi_dui", "清七对", "清七對", "pure seven pairs"),
    ("qing_yao_jiu", "清幺九", "清幺九", "pure terminals"),
    ("qing_long_qi_dui", "清龙七对", "清龍七對", "pure dragon seven pairs"),
    ("tian_hu", "天胡", "天胡", "heavenly win"),
    ("di_hu", "地胡", "地胡", "earthly win"),
)

_EXTRAS: Final[tuple[_Row, ...]] = (  # RULES 6.2, in table order
    ("gen", "根", "根", "root"),
    ("gang_shang_hua", "杠上花", "槓上花", "win on a kong replacement"),
    ("gang_shang_pao", "杠上炮", "槓上炮", "win on a discard after a kong"),
    ("qiang_gang_hu", "抢杠胡", "搶槓胡", "robbing a kong"),
    ("hai_di", "海底", "海底", "last tile"),
    ("jin_gou_diao", "金钩钓", "金鉤釣", "single wait with four melds"),
    ("jue_zhang", "绝张", "絕張", "last copy"),
    ("zi_mo_jia_fan", "自摸加番", "自摸加番", "self-draw fan"),
)

_REASONS: Final[tuple[_Row, ...]] = (  # INTERFACES "Ledger reason", then RULES 12-13
    ("hu", "点炮", "點炮", "win on a discard"),
    ("zimo", "自摸", "自摸", "self-drawn win"),
    ("angang", "暗杠", "暗槓", "concealed kong"),
    ("bugang", "补杠", "補槓", "added kong"),
    ("zhigang", "直杠", "直槓", "direct kong"),
    ("call_transfer", "呼叫转移", "呼叫轉移", "call transfer"),
    ("hua_zhu", "查花猪", "查花豬", "flower pig"),
    ("cha_jiao", "查大叫", "查大叫", "not ready at the end"),
    ("tui_shui", "退税", "退稅", "kong refund"),
    ("escape", "逃跑", "逃跑", "escape"),
    ("jiao_ma", "叫马", "叫馬", "bystander bet"),
    ("double_card", "加倍卡", "加倍卡", "double card"),
)

_ACTIONS: Final[tuple[_Row, ...]] = (  # engine ActionType
    ("exchange", "换三张", "換三張", "exchange three"),
    ("dingque", "定缺", "定缺", "choose a void suit"),
    ("discard", "出牌", "出牌", "discard"),
    ("peng", "碰", "碰", "peng"),
    ("gang", "杠", "槓", "kong"),
    ("hu", "胡", "胡", "hu"),
    ("pass", "过", "過", "pass"),
    ("escape", "逃跑", "逃跑", "leave"),
    ("swap", "换牌", "換牌", "swap"),
)

_EVENTS: Final[tuple[_Row, ...]] = (  # the engine's event log
    ("start", "开局", "開局", "new hand"),
    ("deal", "发牌", "發牌", "deal"),
    ("exchange_chosen", "已选换牌", "已選換牌", "tiles chosen to pass"),
    ("exchange", "换出", "換出", "tiles passed"),
    ("exchange_received", "换入", "換入", "tiles received"),
    ("exchange_done", "换三张完成", "換三張完成", "exchange done"),
    ("dingque_chosen", "已定缺", "已定缺", "void suit chosen"),
    ("dingque", "定缺", "定缺", "void suits"),
    ("turn", "轮到", "輪到", "turn"),
    ("draw", "摸牌", "摸牌", "draw"),
    ("discard", "出牌", "出牌", "discard"),
    ("peng", "碰", "碰", "peng"),
    ("zhigang", "直杠", "直槓", "direct kong"),
    ("angang", "暗杠", "暗槓", "concealed kong"),
    ("bugang_declared", "宣布补杠", "宣佈補槓", "added kong declared"),
    ("bugang", "补杠", "補槓", "added kong"),
    ("pass_hu", "过水不胡", "過水不胡", "passed a win"),
    ("hu", "胡", "胡", "win"),
    ("pay", "付分", "付分", "payment"),
    ("swap", "换牌", "換牌", "item swap"),
    ("wall_empty", "流局", "流局", "wall empty"),
    ("escape", "逃跑", "逃跑", "escape"),
    ("end", "结束", "結束", "hand over"),
)

_ITEMS: Final[tuple[_Row, ...]] = (  # RULES 13, match ItemKind
    ("double", "加倍卡", "加倍卡", "double card"),
    ("flush", "清一色卡", "清一色卡", "flush card"),
    ("swap", "换牌卡", "換牌卡", "swap card"),
    ("random_swap", "随机换牌卡", "隨機換牌卡", "random swap card"),
    ("seek", "查找卡", "查找卡", "seek card"),
    ("golden_finger", "金手指", "金手指", "golden finger"),
    ("match_ticket", "比赛卡", "比賽卡", "match ticket"),
)

_ERRORS: Final[tuple[_Row, ...]] = (  # every stable error code, alphabetical
    ("account_exists", "账户已存在", "帳戶已存在", "account exists"),
    ("action_conflict", "操作记录冲突", "操作記錄衝突", "action logged differently"),
    ("action_gap", "操作记录缺失", "操作記錄缺漏", "gap in the action log"),
    ("action_not_available", "不能这样操作", "不能這樣操作", "action not available"),
    ("actions_after_end", "牌局结束后仍有操作", "牌局結束後仍有操作", "actions after the end"),
    ("address_in_use", "地址已被占用", "位址已被佔用", "address in use"),
    ("already_at_table", "已在桌上", "已在桌上", "already at the table"),
    ("already_escaped", "已经逃跑", "已經逃跑", "already left"),
    ("already_seated", "已经入座", "已經入座", "already seated"),
    ("already_started", "比赛已开始", "比賽已開始", "already started"),
    ("already_won", "已经胡牌", "已經胡牌", "already won"),
    ("audit_failed", "账目核对失败", "帳目核對失敗", "audit failed"),
    ("bad_action", "无效的操作", "無效的操作", "bad action"),
    ("bad_amount", "无效的数量", "無效的數量", "bad amount"),
    ("bad_autoplay", "无效的自动打法", "無效的自動打法", "bad autoplay"),
    ("bad_backend", "无效的运行后端", "無效的執行後端", "bad backend"),
    ("bad_batch", "无效的批量请求", "無效的批次請求", "bad batch request"),
    ("bad_bots", "无效的机器人设置", "無效的機器人設定", "bad bots"),
    ("bad_bystanders", "无效的叫马人数", "無效的叫馬人數", "bad number of bystanders"),
    ("bad_catalog", "无效的消息目录", "無效的訊息目錄", "bad message catalog"),
    ("bad_char", "无效的字符", "無效的字元", "bad character"),
    ("bad_config", "无效的服务器设置", "無效的伺服器設定", "bad server settings"),
    ("bad_db", "无法打开数据库", "無法開啟資料庫", "bad database"),
    ("bad_deal", "无效的发牌", "無效的發牌", "bad deal"),
    ("bad_dealer", "无效的庄家", "無效的莊家", "bad dealer"),
    ("bad_deals", "无效的牌局数", "無效的牌局數", "bad number of deals"),
    ("bad_delay", "无效的延时", "無效的延遲", "bad delay"),
    ("bad_dice", "无效的骰子", "無效的骰子", "bad dice"),
    ("bad_exchange_tiles", "换三张的牌无效", "換三張的牌無效", "bad exchange tiles"),
    ("bad_games", "无效的局数", "無效的局數", "bad number of games"),
    ("bad_hand_no", "无效的局号", "無效的局號", "bad hand number"),
    ("bad_hand_start", "无效的开局记录", "無效的開局記錄", "bad hand start"),
    ("bad_hands", "手牌或局数无效", "手牌或局數無效", "bad hands"),
    ("bad_host", "无效的主机", "無效的主機", "bad host"),
    ("bad_input", "无效的输入", "無效的輸入", "bad input"),
    ("bad_item", "无效的道具", "無效的道具", "bad item"),
    ("bad_json", "无效的 JSON", "無效的 JSON", "bad JSON"),
    ("bad_lang", "不支持的语言", "不支援的語言", "unknown language"),
    ("bad_log_entry", "无效的记录项", "無效的記錄項", "bad log entry"),
    ("bad_login", "名字或密码错误", "名字或密碼錯誤", "wrong name or password"),
    ("bad_message", "无效的消息", "無效的訊息", "bad message"),
    ("bad_name", "无效的名字", "無效的名字", "bad name"),
    ("bad_nickname", "无效的昵称", "無效的暱稱", "bad nickname"),
    ("bad_option", "无效的规则选项", "無效的規則選項", "bad rule option"),
    ("bad_players", "无效的玩家", "無效的玩家", "bad players"),
    ("bad_policy", "无效的策略文件", "無效的策略檔", "bad policy file"),
    ("bad_port", "无效的端口", "無效的連接埠", "bad port"),
    ("bad_rank", "无效的点数", "無效的點數", "bad rank"),
    ("bad_record", "无效的牌谱", "無效的牌譜", "bad record"),
    ("bad_request", "无效的请求", "無效的請求", "bad request"),
    ("bad_room", "无效的房间", "無效的房間", "bad room"),
    ("bad_rules", "无效的规则", "無效的規則", "bad rules"),
    ("bad_seat", "无效的座位", "無效的座位", "bad seat"),
    ("bad_seed", "无效的种子", "無效的種子", "bad seed"),
    ("bad_seq", "无效的操作序号", "無效的操作序號", "bad action number"),
    ("bad_status", "无效的状态", "無效的狀態", "bad status"),
    ("bad_suit", "无效的花色", "無效的花色", "bad suit"),
    ("bad_tier", "无效的场次", "無效的場次", "bad room tier"),
    ("bad_tile", "无效的牌", "無效的牌", "bad tile"),
    ("bad_tiles", "无效的牌串", "無效的牌串", "bad tiles"),
    ("bad_wall", "无效的牌墙", "無效的牌牆", "bad wall"),
    ("bad_workers", "无效的进程数", "無效的行程數", "bad number of workers"),
    ("cannot_gang_tile", "不能杠这张牌", "不能槓這張牌", "cannot kong this tile"),
    ("cannot_hu", "不能胡", "不能胡", "cannot win"),
    ("conflicting_context", "胡牌条件矛盾", "胡牌條件矛盾", "conflicting win context"),
    ("database_error", "数据库错误", "資料庫錯誤", "database error"),
    ("empty", "没有牌", "沒有牌", "no tiles"),
    ("forced_dingque", "不能定这门缺", "不能定這門缺", "void suit not allowed"),
    ("hand_in_progress", "牌局进行中", "牌局進行中", "hand in progress"),
    ("hand_not_over", "牌局未结束", "牌局未結束", "hand not over"),
    ("hand_over", "牌局已结束", "牌局已結束", "hand over"),
    ("hand_seed_conflict", "牌局种子冲突", "牌局種子衝突", "hand seed conflict"),
    ("hand_settled", "牌局已结算", "牌局已結算", "hand already settled"),
    ("hand_start_conflict", "开局记录冲突", "開局記錄衝突", "hand start conflict"),
    ("honour_tile", "不用字牌", "不用字牌", "honour tile"),
    ("illegal_action", "不合规则的操作", "不合規則的操作", "illegal action"),
    ("insufficient_balance", "金币不够进这个场", "金幣不夠進這個場", "balance too low for this room"),
    ("item_already_used", "道具已使用", "道具已使用", "item already used"),
    ("items_not_allowed", "本房间不允许道具", "本房間不允許道具", "items not allowed"),
    ("log_mismatch", "记录与对局不符", "記錄與對局不符", "log does not fit the match"),
    ("match_over", "比赛已结束", "比賽已結束", "match over"),
    ("message_too_large", "消息过长", "訊息過長", "message too large"),
    ("missing_extra", "缺少可选组件", "缺少選用元件", "optional component missing"),
    ("missing_rank", "缺少点数", "缺少點數", "missing rank"),
    ("missing_suit", "缺少花色", "缺少花色", "missing suit"),
    ("must_discard_drawn", "必须打出摸到的牌", "必須打出摸到的牌", "must discard the drawn tile"),
    ("must_discard_void", "必须先打缺门", "必須先打缺門", "must discard the void suit"),
    ("must_hu", "必须胡", "必須胡", "must win"),
    ("name_taken", "名字已被使用", "名字已被使用", "name taken"),
    ("native_refused", "编译核心不支持这些规则", "編譯核心不支援這些規則", "rules not compiled"),
    ("native_unavailable", "编译核心不可用", "編譯核心不可用", "compiled core not available"),
    ("nickname_taken", "昵称已被使用", "暱稱已被使用", "nickname taken"),
    ("no_hand", "没有进行中的牌局", "沒有進行中的牌局", "no hand"),
    ("no_item", "没有该道具", "沒有該道具", "no such item card"),
    ("no_record", "没有牌局记录", "沒有牌局記錄", "no record kept"),
    ("no_terminal", "不是终端", "不是終端", "not a terminal"),
    ("no_ticket", "没有比赛卡", "沒有比賽卡", "no match ticket"),
    ("no_winning_hand", "无法胡牌", "無法胡牌", "no winning hand"),
    ("not_108_tiles", "不是 108 张牌", "不是 108 張牌", "not 108 tiles"),
    ("not_at_table", "不在桌上", "不在桌上", "not at the table"),
    ("not_automatic", "需要玩家决定", "需要玩家決定", "a person must decide"),
    ("not_between_hands", "不在两局之间", "不在兩局之間", "not between hands"),
    ("not_complete", "未成胡", "未成胡", "not complete"),
    ("not_current_hand", "不是当前牌局", "不是當前牌局", "not the current hand"),
    ("not_enough_coins", "游戏币不足", "遊戲幣不足", "not enough coins"),
    ("not_logged_in", "未登录", "未登入", "not logged in"),
    ("not_migrated", "数据库未迁移", "資料庫未遷移", "database not migrated"),
    ("not_one_tile", "不是一张牌", "不是一張牌", "not one tile"),
    ("not_playing", "已不在牌局中", "已不在牌局中", "not playing"),
    ("not_seated", "没有座位", "沒有座位", "not seated"),
    ("not_signed_in", "未登录", "未登入", "not signed in"),
    ("not_your_seat", "不是你的座位", "不是你的座位", "not your seat"),
    ("not_your_turn", "还没轮到你", "還沒輪到你", "not your turn"),
    ("out_of_order", "顺序错误", "順序錯誤", "out of order"),
    ("pass_hu_blocked", "过水不胡", "過水不胡", "passed win blocked"),
    ("rate_limited", "请求过于频繁", "請求過於頻繁", "rate limited"),
    ("ray_unavailable", "无法连接 Ray 集群", "無法連線 Ray 叢集", "Ray cluster unavailable"),
    ("relief_unavailable", "不能领取救济金", "不能領取救濟金", "relief not available"),
    ("replaced", "已在别处打开", "已在別處開啟", "opened elsewhere"),
    ("reserved_name", "保留的名字", "保留的名字", "reserved name"),
    ("room_closed", "房间已关闭", "房間已關閉", "room closed"),
    ("room_exists", "房间已存在", "房間已存在", "room exists"),
    ("room_full", "房间已满", "房間已滿", "room full"),
    ("rules_file_syntax", "规则文件语法错误", "規則檔語法錯誤", "rules file syntax error"),
    ("rules_file_unreadable", "无法读取规则文件", "無法讀取規則檔", "rules file unreadable"),
    ("same_tile", "同一张牌", "同一張牌", "same tile"),
    ("seat_empty", "座位空缺", "座位空缺", "seat empty"),
    ("seat_taken", "座位已被占", "座位已被佔", "seat taken"),
    ("server_error", "服务器错误", "伺服器錯誤", "server error"),
    ("settlement_conflict", "结算冲突", "結算衝突", "settlement conflict"),
    ("settlement_failed", "结算失败", "結算失敗", "settlement failed"),
    ("stake_warning", "输赢可能超过余额", "輸贏可能超過餘額", "stake above your balance"),
    ("stale", "已过时", "已過時", "stale"),
    ("stale_match", "比赛状态已过时", "比賽狀態已過時", "stale match"),
    ("stuck", "无人可操作", "無人可操作", "stuck"),
    ("table_full", "牌桌已满", "牌桌已滿", "table full"),
    ("tile_not_in_hand", "手中没有这张牌", "手中沒有這張牌", "tile not in hand"),
    ("tile_not_in_wall", "牌墙中没有这张牌", "牌牆中沒有這張牌", "tile not in the wall"),
    ("too_large", "请求过大", "請求過大", "too large"),
    ("too_many_accounts", "账号创建过多", "帳號建立過多", "too many accounts"),
    ("too_many_copies", "同一张牌超过四张", "同一張牌超過四張", "too many copies"),
    ("too_many_rooms", "房间过多", "房間過多", "too many rooms"),
    ("unbalanced_transfer", "转账不平衡", "轉帳不平衡", "unbalanced transfer"),
    ("unknown_account", "未知账户", "未知帳戶", "unknown account"),
    ("unknown_action", "未知操作", "未知操作", "unknown action"),
    ("unknown_bot", "未知机器人", "未知機器人", "unknown bot"),
    ("unknown_field", "未知字段", "未知欄位", "unknown field"),
    ("unknown_hand", "未知牌局", "未知牌局", "unknown hand"),
    ("unknown_match", "未知比赛", "未知比賽", "unknown match"),
    ("unknown_message", "未知消息文本", "未知訊息文字", "unknown message text"),
    ("unknown_option", "未知规则选项", "未知規則選項", "unknown option"),
    ("unknown_pattern", "未知番型", "未知番型", "unknown pattern"),
    ("unknown_preset", "未知预设", "未知預設", "unknown preset"),
    ("unknown_room", "未知房间", "未知房間", "unknown room"),
    ("unknown_term", "未知词条", "未知詞條", "unknown term"),
    ("unknown_tile", "未知牌", "未知牌", "unknown tile"),
    ("unknown_type", "未知消息类型", "未知訊息類型", "unknown message type"),
    ("unreadable", "无法读取", "無法讀取", "unreadable"),
    ("unwritable", "无法写入", "無法寫入", "unwritable"),
    ("usage", "用法错误", "用法錯誤", "usage error"),
    ("weak_password", "密码太短", "密碼太短", "password too short"),
    ("win_tile_not_in_hand", "胡的牌不在手中", "胡的牌不在手中", "winning tile not in hand"),
    ("wrong_hand_count", "手牌数量不对", "手牌數量不對", "wrong number of hands"),
    ("wrong_tile_count", "牌数不对", "牌數不對", "wrong tile count"),
)

_TABLES: Final[dict[Kind, tuple[_Row, ...]]] = {
    Kind.PATTERN: _PATTERNS,
    Kind.EXTRA: _EXTRAS,
    Kind.REASON: _REASONS,
    Kind.ACTION: _ACTIONS,
    Kind.EVENT: _EVENTS,
    Kind.ITEM: _ITEMS,
    Kind.ERROR: _ERRORS,
}

TERMS: Final[tuple[Term, ...]] = tuple(
    Term(row[0], kind, row[1], row[2], row[3]) for kind, rows in _TABLES.items() for row in rows
)
"""Every term, kind by kind, each kind in its table's order."""

_INDEX: Final[dict[tuple[Kind, str], Term]] = {(t.kind, t.id): t for t in TERMS}
if len(_INDEX) != len(TERMS):  # pragma: no cover - caught by the tests
    raise RuntimeError("an id is listed twice in one kind of the vocabulary")


# --- lookups ----------------------------------------------------------------------------------------------


def _kind(kind: Kind | str) -> Kind:
    try:
        return Kind(kind)
    except ValueError:
        raise UnknownTermError("unknown_term", f"no kind of term {kind!r}: use {', '.join(Kind)}") from None


def find(kind: Kind | str, id: str) -> Term | None:
    """The term of ``kind`` with ``id``, or ``None``."""
    return _INDEX.get((_kind(kind), id))


def term(kind: Kind | str, id: str) -> Term:
    """The term of ``kind`` with ``id``; raises :class:`UnknownTermError` (``unknown_term``) for an unknown id."""
    k = _kind(kind)
    t = _INDEX.get((k, id))
    if t is None:
        raise UnknownTermError("unknown_term", f"the vocabulary has no {k} {id!r}")
    return t


def name(kind: Kind | str, id: str, lang: Lang = DEFAULT_LANG) -> str:
    """The name of ``id`` in ``lang``: ``name("pattern", "qi_dui")`` is ``'七对'``."""
    return term(kind, id).name(lang)


def name_or_id(kind: Kind | str, id: str, lang: Lang = DEFAULT_LANG) -> str:
    """Like :func:`name`, but an id the vocabulary does not list is shown as it is (for display only)."""
    t = find(kind, id)
    return id if t is None else t.name(lang)


def terms(kind: Kind | str) -> tuple[Term, ...]:
    """The terms of one kind, in table order."""
    k = _kind(kind)
    return tuple(t for t in TERMS if t.kind is k)


def ids(kind: Kind | str) -> tuple[str, ...]:
    """The ids of one kind, in table order."""
    return tuple(t.id for t in terms(kind))


def to_json() -> dict[str, Any]:
    """The whole vocabulary for the web page::

        {"langs": ["zh-CN", "zh-TW", "en"], "default": "zh-CN",
         "kinds": {"pattern": {"ping_hu": {"zh-CN": "平胡", "zh-TW": "平胡", "en": "plain win"}, ...}, ...}}
    """
    return {
        "langs": list(LANGS),
        "default": DEFAULT_LANG,
        "kinds": {str(k): {t.id: t.names() for t in terms(k)} for k in Kind},
    }
