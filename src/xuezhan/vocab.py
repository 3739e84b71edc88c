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

The ids of ledger reasons, action kinds, event kinds and error codes are the string enums
of :mod:`xuezhan.ids` (:class:`Reason`, :class:`ActionKind`, :class:`EventKind`,
:class:`ErrorCode`, importable from here too); their tables below list the members, so an
id is written once, and a test checks that each table lists every member of its enum in
the enum's order.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Final, Literal

from .errors import XuezhanError
from .ids import ActionKind, ErrorCode, EventKind, Reason

__all__ = [
    "DEFAULT_LANG",
    "LANGS",
    "TERMS",
    "ActionKind",
    "ErrorCode",
    "EventKind",
    "Kind",
    "Lang",
    "Reason",
    "Term",
    "UnknownTermError",
    "find",
    "ids",
    "name",
    "name_or_id",
    "term",
    "terms",
    "to_json",
]

Lang = Literal["zh-CN", "zh-TW", "en"]
LANGS: Final[tuple[Lang, ...]] = ("zh-CN", "zh-TW", "en")
DEFAULT_LANG: Final[Lang] = "zh-CN"


class Kind(StrEnum):
    """What a term names."""

    PATTERN = "pattern"  # base pattern, docs/rules.md §6.1
    EXTRA = "extra"  # extra fan, docs/rules.md §6.2
    REASON = "reason"  # ledger reason, docs/rules.md §7-8, §10, §12-13
    ACTION = "action"  # action type of a record (engine ActionType)
    EVENT = "event"  # event type of the engine's event log
    ITEM = "item"  # item card, docs/rules.md §13 (match ItemKind)
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
        raise UnknownTermError(ErrorCode.UNKNOWN_TERM, f"no language {lang!r}: use {', '.join(LANGS)}")

    def names(self) -> dict[str, str]:
        """``{"zh-CN": .., "zh-TW": .., "en": ..}``."""
        return {"zh-CN": self.zh_cn, "zh-TW": self.zh_tw, "en": self.en}

    def __repr__(self) -> str:
        return (f"Term({self.id!r}, Kind.{self.kind.name}, {self.zh_cn!r}, {self.zh_tw!r}, {self.en!r})")


# --- the tables: (id, zh-CN, zh-TW, en), in a fixed order ---------------------------------------------------

_Row = tuple[str, str, str, str]  # the id may be a member of one of the enums (a str)

_PATTERNS: Final[tuple[_Row, ...]] = (  # docs/rules.md §6.1, in table order
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

_EXTRAS: Final[tuple[_Row, ...]] = (  # docs/rules.md §6.2, in table order
    ("gen", "根", "根", "root"),
    ("gang_shang_hua", "杠上花", "槓上花", "win on a kong replacement"),
    ("gang_shang_pao", "杠上炮", "槓上炮", "win on a discard after a kong"),
    ("qiang_gang_hu", "抢杠胡", "搶槓胡", "robbing a kong"),
    ("hai_di", "海底", "海底", "last tile"),
    ("jin_gou_diao", "金钩钓", "金鉤釣", "single wait with four melds"),
    ("jue_zhang", "绝张", "絕張", "last copy"),
    ("zi_mo_jia_fan", "自摸加番", "自摸加番", "self-draw fan"),
)

_REASONS: Final[tuple[_Row, ...]] = (  # docs/interfaces.md §2.5 (ledger reasons), then docs/rules.md §12-13
    (Reason.HU, "点炮", "點炮", "win on a discard"),
    (Reason.ZIMO, "自摸", "自摸", "self-drawn win"),
    (Reason.ANGANG, "暗杠", "暗槓", "concealed kong"),
    (Reason.BUGANG, "补杠", "補槓", "added kong"),
    (Reason.ZHIGANG, "直杠", "直槓", "direct kong"),
    (Reason.CALL_TRANSFER, "呼叫转移", "呼叫轉移", "call transfer"),
    (Reason.HUA_ZHU, "查花猪", "查花豬", "flower pig"),
    (Reason.CHA_JIAO, "查大叫", "查大叫", "not ready at the end"),
    (Reason.TUI_SHUI, "退税", "退稅", "kong refund"),
    (Reason.ESCAPE, "逃跑", "逃跑", "escape"),
    (Reason.JIAO_MA, "叫马", "叫馬", "bystander bet"),
    (Reason.DOUBLE_CARD, "加倍卡", "加倍卡", "double card"),
)

_ACTIONS: Final[tuple[_Row, ...]] = (  # engine ActionType
    (ActionKind.EXCHANGE, "换三张", "換三張", "exchange three"),
    (ActionKind.DINGQUE, "定缺", "定缺", "choose a void suit"),
    (ActionKind.DISCARD, "出牌", "出牌", "discard"),
    (ActionKind.PENG, "碰", "碰", "peng"),
    (ActionKind.GANG, "杠", "槓", "kong"),
    (ActionKind.HU, "胡", "胡", "hu"),
    (ActionKind.PASS, "过", "過", "pass"),
    (ActionKind.ESCAPE, "逃跑", "逃跑", "leave"),
    (ActionKind.SWAP, "换牌", "換牌", "swap"),
)

_EVENTS: Final[tuple[_Row, ...]] = (  # the engine's event log
    (EventKind.START, "开局", "開局", "new hand"),
    (EventKind.DEAL, "发牌", "發牌", "deal"),
    (EventKind.EXCHANGE_CHOSEN, "已选换牌", "已選換牌", "tiles chosen to pass"),
    (EventKind.EXCHANGE, "换出", "換出", "tiles passed"),
    (EventKind.EXCHANGE_RECEIVED, "换入", "換入", "tiles received"),
    (EventKind.EXCHANGE_DONE, "换三张完成", "換三張完成", "exchange done"),
    (EventKind.DINGQUE_CHOSEN, "已定缺", "已定缺", "void suit chosen"),
    (EventKind.DINGQUE, "定缺", "定缺", "void suits"),
    (EventKind.TURN, "轮到", "輪到", "turn"),
    (EventKind.DRAW, "摸牌", "摸牌", "draw"),
    (EventKind.DISCARD, "出牌", "出牌", "discard"),
    (EventKind.PENG, "碰", "碰", "peng"),
    (EventKind.ZHIGANG, "直杠", "直槓", "direct kong"),
    (EventKind.ANGANG, "暗杠", "暗槓", "concealed kong"),
    (EventKind.BUGANG_DECLARED, "宣布补杠", "宣佈補槓", "added kong declared"),
    (EventKind.BUGANG, "补杠", "補槓", "added kong"),
    (EventKind.PASS_HU, "过水不胡", "過水不胡", "passed a win"),
    (EventKind.HU, "胡", "胡", "win"),
    (EventKind.PAY, "付分", "付分", "payment"),
    (EventKind.SWAP, "换牌", "換牌", "item swap"),
    (EventKind.WALL_EMPTY, "流局", "流局", "wall empty"),
    (EventKind.ESCAPE, "逃跑", "逃跑", "escape"),
    (EventKind.END, "结束", "結束", "hand over"),
)

_ITEMS: Final[tuple[_Row, ...]] = (  # docs/rules.md §13, match ItemKind
    ("double", "加倍卡", "加倍卡", "double card"),
    ("flush", "清一色卡", "清一色卡", "flush card"),
    ("swap", "换牌卡", "換牌卡", "swap card"),
    ("random_swap", "随机换牌卡", "隨機換牌卡", "random swap card"),
    ("seek", "查找卡", "查找卡", "seek card"),
    ("golden_finger", "金手指", "金手指", "golden finger"),
    ("match_ticket", "比赛卡", "比賽卡", "match ticket"),
)

_ERRORS: Final[tuple[_Row, ...]] = (  # every stable error code, alphabetical
    (ErrorCode.ACCOUNT_EXISTS, "账户已存在", "帳戶已存在", "account exists"),
    (ErrorCode.ACTION_CONFLICT, "操作记录冲突", "操作記錄衝突", "action logged differently"),
    (ErrorCode.ACTION_GAP, "操作记录缺失", "操作記錄缺漏", "gap in the action log"),
    (ErrorCode.ACTION_NOT_AVAILABLE, "不能这样操作", "不能這樣操作", "action not available"),
    (ErrorCode.ACTIONS_AFTER_END, "牌局结束后仍有操作", "牌局結束後仍有操作", "actions after the end"),
    (ErrorCode.ADDRESS_IN_USE, "地址已被占用", "位址已被佔用", "address in use"),
    (ErrorCode.ALREADY_AT_TABLE, "已在桌上", "已在桌上", "already at the table"),
    (ErrorCode.ALREADY_ESCAPED, "已经逃跑", "已經逃跑", "already left"),
    (ErrorCode.ALREADY_SEATED, "已经入座", "已經入座", "already seated"),
    (ErrorCode.ALREADY_STARTED, "比赛已开始", "比賽已開始", "already started"),
    (ErrorCode.ALREADY_WON, "已经胡牌", "已經胡牌", "already won"),
    (ErrorCode.AUDIT_FAILED, "账目核对失败", "帳目核對失敗", "audit failed"),
    (ErrorCode.BAD_ACTION, "无效的操作", "無效的操作", "bad action"),
    (ErrorCode.BAD_AMOUNT, "无效的数量", "無效的數量", "bad amount"),
    (ErrorCode.BAD_AUTOPLAY, "无效的自动打法", "無效的自動打法", "bad autoplay"),
    (ErrorCode.BAD_BACKEND, "无效的运行后端", "無效的執行後端", "bad backend"),
    (ErrorCode.BAD_BATCH, "无效的批量请求", "無效的批次請求", "bad batch request"),
    (ErrorCode.BAD_BOTS, "无效的机器人设置", "無效的機器人設定", "bad bots"),
    (ErrorCode.BAD_BYSTANDERS, "无效的叫马人数", "無效的叫馬人數", "bad number of bystanders"),
    (ErrorCode.BAD_CATALOG, "无效的消息目录", "無效的訊息目錄", "bad message catalog"),
    (ErrorCode.BAD_CHAR, "无效的字符", "無效的字元", "bad character"),
    (ErrorCode.BAD_CONFIG, "无效的服务器设置", "無效的伺服器設定", "bad server settings"),
    (ErrorCode.BAD_DATASET, "数据集不完整或与清单不符", "資料集不完整或與清單不符", "bad dataset"),
    (ErrorCode.BAD_DB, "无法打开数据库", "無法開啟資料庫", "bad database"),
    (ErrorCode.BAD_DEAL, "无效的发牌", "無效的發牌", "bad deal"),
    (ErrorCode.BAD_DEALER, "无效的庄家", "無效的莊家", "bad dealer"),
    (ErrorCode.BAD_DEALS, "无效的牌局数", "無效的牌局數", "bad number of deals"),
    (ErrorCode.BAD_DELAY, "无效的延时", "無效的延遲", "bad delay"),
    (ErrorCode.BAD_DICE, "无效的骰子", "無效的骰子", "bad dice"),
    (ErrorCode.BAD_EXCHANGE_TILES, "换三张的牌无效", "換三張的牌無效", "bad exchange tiles"),
    (ErrorCode.BAD_GAMES, "无效的局数", "無效的局數", "bad number of games"),
    (ErrorCode.BAD_HAND_NO, "无效的局号", "無效的局號", "bad hand number"),
    (ErrorCode.BAD_HAND_START, "无效的开局记录", "無效的開局記錄", "bad hand start"),
    (ErrorCode.BAD_HANDS, "手牌或局数无效", "手牌或局數無效", "bad hands"),
    (ErrorCode.BAD_HOST, "无效的主机", "無效的主機", "bad host"),
    (ErrorCode.BAD_INPUT, "无效的输入", "無效的輸入", "bad input"),
    (ErrorCode.BAD_ITEM, "无效的道具", "無效的道具", "bad item"),
    (ErrorCode.BAD_JSON, "无效的 JSON", "無效的 JSON", "bad JSON"),
    (ErrorCode.BAD_LANG, "不支持的语言", "不支援的語言", "unknown language"),
    (ErrorCode.BAD_LOG_ENTRY, "无效的记录项", "無效的記錄項", "bad log entry"),
    (ErrorCode.BAD_LOGIN, "名字或密码错误", "名字或密碼錯誤", "wrong name or password"),
    (ErrorCode.BAD_MESSAGE, "无效的消息", "無效的訊息", "bad message"),
    (ErrorCode.BAD_NAME, "无效的名字", "無效的名字", "bad name"),
    (ErrorCode.BAD_NICKNAME, "无效的昵称", "無效的暱稱", "bad nickname"),
    (ErrorCode.BAD_OPTION, "无效的规则选项", "無效的規則選項", "bad rule option"),
    (ErrorCode.BAD_PLAYERS, "无效的玩家", "無效的玩家", "bad players"),
    (ErrorCode.BAD_POLICY, "无效的策略文件", "無效的策略檔", "bad policy file"),
    (ErrorCode.BAD_PORT, "无效的端口", "無效的連接埠", "bad port"),
    (ErrorCode.BAD_RANK, "无效的点数", "無效的點數", "bad rank"),
    (ErrorCode.BAD_RECORD, "无效的牌谱", "無效的牌譜", "bad record"),
    (ErrorCode.BAD_REQUEST, "无效的请求", "無效的請求", "bad request"),
    (ErrorCode.BAD_ROOM, "无效的房间", "無效的房間", "bad room"),
    (ErrorCode.BAD_ROOM_META, "无效的房间信息", "無效的房間資訊", "bad room metadata"),
    (ErrorCode.BAD_RULES, "无效的规则", "無效的規則", "bad rules"),
    (ErrorCode.BAD_SEAT, "无效的座位", "無效的座位", "bad seat"),
    (ErrorCode.BAD_SEED, "无效的种子", "無效的種子", "bad seed"),
    (ErrorCode.BAD_SEQ, "无效的操作序号", "無效的操作序號", "bad action number"),
    (ErrorCode.BAD_SETTING, "无效的设置", "無效的設定", "bad setting"),
    (ErrorCode.BAD_STATUS, "无效的状态", "無效的狀態", "bad status"),
    (ErrorCode.BAD_SUIT, "无效的花色", "無效的花色", "bad suit"),
    (ErrorCode.BAD_TIER, "无效的场次", "無效的場次", "bad room tier"),
    (ErrorCode.BAD_TILE, "无效的牌", "無效的牌", "bad tile"),
    (ErrorCode.BAD_TILES, "无效的牌串", "無效的牌串", "bad tiles"),
    (ErrorCode.BAD_WALL, "无效的牌墙", "無效的牌牆", "bad wall"),
    (ErrorCode.BAD_WORKERS, "无效的进程数", "無效的行程數", "bad number of workers"),
    (ErrorCode.CANNOT_GANG_TILE, "不能杠这张牌", "不能槓這張牌", "cannot kong this tile"),
    (ErrorCode.CANNOT_HU, "不能胡", "不能胡", "cannot win"),
    (ErrorCode.CONFLICTING_CONTEXT, "胡牌条件矛盾", "胡牌條件矛盾", "conflicting win context"),
    (ErrorCode.CROSS_ORIGIN, "来自其他网站的请求", "來自其他網站的請求", "request from another site"),
    (ErrorCode.DATABASE_ERROR, "数据库错误", "資料庫錯誤", "database error"),
    (ErrorCode.DATASET_EXISTS, "文件夹里已有别的数据集", "資料夾裡已有別的資料集", "folder holds another dataset"),
    (ErrorCode.EMPTY, "没有牌", "沒有牌", "no tiles"),
    (ErrorCode.FORCED_DINGQUE, "不能定这门缺", "不能定這門缺", "void suit not allowed"),
    (ErrorCode.HAND_IN_PROGRESS, "牌局进行中", "牌局進行中", "hand in progress"),
    (ErrorCode.HAND_NOT_OVER, "牌局未结束", "牌局未結束", "hand not over"),
    (ErrorCode.HAND_OVER, "牌局已结束", "牌局已結束", "hand over"),
    (ErrorCode.HAND_SEED_CONFLICT, "牌局种子冲突", "牌局種子衝突", "hand seed conflict"),
    (ErrorCode.HAND_SETTLED, "牌局已结算", "牌局已結算", "hand already settled"),
    (ErrorCode.HAND_START_CONFLICT, "开局记录冲突", "開局記錄衝突", "hand start conflict"),
    (ErrorCode.HONOUR_TILE, "不用字牌", "不用字牌", "honour tile"),
    (ErrorCode.ILLEGAL_ACTION, "不合规则的操作", "不合規則的操作", "illegal action"),
    (ErrorCode.INSUFFICIENT_BALANCE, "金币不够进这个场", "金幣不夠進這個場", "balance too low for this room"),
    (ErrorCode.ITEM_ALREADY_USED, "道具已使用", "道具已使用", "item already used"),
    (ErrorCode.ITEM_USED, "本局已用过这种道具", "本局已用過這種道具", "item of this kind used this hand"),
    (ErrorCode.ITEMS_NOT_ALLOWED, "本房间不允许道具", "本房間不允許道具", "items not allowed"),
    (ErrorCode.LEASE_LOST, "房间已由另一台服务器接管", "房間已由另一台伺服器接管", "room taken over by another node"),
    (ErrorCode.LOG_MISMATCH, "记录与对局不符", "記錄與對局不符", "log does not fit the match"),
    (ErrorCode.MATCH_OVER, "比赛已结束", "比賽已結束", "match over"),
    (ErrorCode.MESSAGE_TOO_LARGE, "消息过长", "訊息過長", "message too large"),
    (ErrorCode.MISSING_EXTRA, "缺少可选组件", "缺少選用元件", "optional component missing"),
    (ErrorCode.MISSING_RANK, "缺少点数", "缺少點數", "missing rank"),
    (ErrorCode.MISSING_SUIT, "缺少花色", "缺少花色", "missing suit"),
    (ErrorCode.MUST_DISCARD_DRAWN, "必须打出摸到的牌", "必須打出摸到的牌", "must discard the drawn tile"),
    (ErrorCode.MUST_DISCARD_VOID, "必须先打缺门", "必須先打缺門", "must discard the void suit"),
    (ErrorCode.MUST_HU, "必须胡", "必須胡", "must win"),
    (ErrorCode.NAME_TAKEN, "名字已被使用", "名字已被使用", "name taken"),
    (ErrorCode.NATIVE_REFUSED, "编译核心不支持这些规则", "編譯核心不支援這些規則", "rules not compiled"),
    (ErrorCode.NATIVE_UNAVAILABLE, "编译核心不可用", "編譯核心不可用", "compiled core not available"),
    (ErrorCode.NICKNAME_TAKEN, "昵称已被使用", "暱稱已被使用", "nickname taken"),
    (ErrorCode.NO_HAND, "没有进行中的牌局", "沒有進行中的牌局", "no hand"),
    (ErrorCode.NO_ITEM, "没有该道具", "沒有該道具", "no such item card"),
    (ErrorCode.NO_RECORD, "没有牌局记录", "沒有牌局記錄", "no record kept"),
    (ErrorCode.NO_TERMINAL, "不是终端", "不是終端", "not a terminal"),
    (ErrorCode.NO_TICKET, "没有比赛卡", "沒有比賽卡", "no match ticket"),
    (ErrorCode.NO_WINNING_HAND, "无法胡牌", "無法胡牌", "no winning hand"),
    (ErrorCode.NOT_108_TILES, "不是 108 张牌", "不是 108 張牌", "not 108 tiles"),
    (ErrorCode.NOT_AT_TABLE, "不在桌上", "不在桌上", "not at the table"),
    (ErrorCode.NOT_AUTOMATIC, "需要玩家决定", "需要玩家決定", "a person must decide"),
    (ErrorCode.NOT_BETWEEN_HANDS, "不在两局之间", "不在兩局之間", "not between hands"),
    (ErrorCode.NOT_COMPLETE, "未成胡", "未成胡", "not complete"),
    (ErrorCode.NOT_CURRENT_HAND, "不是当前牌局", "不是當前牌局", "not the current hand"),
    (ErrorCode.NOT_ENOUGH_COINS, "游戏币不足", "遊戲幣不足", "not enough coins"),
    (ErrorCode.NOT_LOGGED_IN, "未登录", "未登入", "not logged in"),
    (ErrorCode.NOT_MIGRATED, "数据库未迁移", "資料庫未遷移", "database not migrated"),
    (ErrorCode.NOT_NOW, "现在不能用这种道具", "現在不能用這種道具", "not the time for this item"),
    (ErrorCode.NOT_ONE_TILE, "不是一张牌", "不是一張牌", "not one tile"),
    (ErrorCode.NOT_PLAYING, "已不在牌局中", "已不在牌局中", "not playing"),
    (ErrorCode.NOT_SEATED, "没有座位", "沒有座位", "not seated"),
    (ErrorCode.NOT_SIGNED_IN, "未登录", "未登入", "not signed in"),
    (ErrorCode.NOT_YOUR_SEAT, "不是你的座位", "不是你的座位", "not your seat"),
    (ErrorCode.NOT_YOUR_TURN, "还没轮到你", "還沒輪到你", "not your turn"),
    (ErrorCode.OUT_OF_ORDER, "顺序错误", "順序錯誤", "out of order"),
    (ErrorCode.PASS_HU_BLOCKED, "过水不胡", "過水不胡", "passed win blocked"),
    (ErrorCode.RATE_LIMITED, "请求过于频繁", "請求過於頻繁", "rate limited"),
    (ErrorCode.RAY_UNAVAILABLE, "无法连接 Ray 集群", "無法連線 Ray 叢集", "Ray cluster unavailable"),
    (ErrorCode.RELIEF_UNAVAILABLE, "不能领取救济金", "不能領取救濟金", "relief not available"),
    (ErrorCode.REPLACED, "已在别处打开", "已在別處開啟", "opened elsewhere"),
    (ErrorCode.RESERVED_NAME, "保留的名字", "保留的名字", "reserved name"),
    (ErrorCode.ROOM_CLOSED, "房间已关闭", "房間已關閉", "room closed"),
    (ErrorCode.ROOM_EXISTS, "房间已存在", "房間已存在", "room exists"),
    (ErrorCode.ROOM_FULL, "房间已满", "房間已滿", "room full"),
    (ErrorCode.RULES_FILE_SYNTAX, "规则文件语法错误", "規則檔語法錯誤", "rules file syntax error"),
    (ErrorCode.RULES_FILE_UNREADABLE, "无法读取规则文件", "無法讀取規則檔", "rules file unreadable"),
    (ErrorCode.SAME_TILE, "同一张牌", "同一張牌", "same tile"),
    (ErrorCode.SEAT_EMPTY, "座位空缺", "座位空缺", "seat empty"),
    (ErrorCode.SEAT_TAKEN, "座位已被占", "座位已被佔", "seat taken"),
    (ErrorCode.SERVER_ERROR, "服务器错误", "伺服器錯誤", "server error"),
    (ErrorCode.SETTLEMENT_CONFLICT, "结算冲突", "結算衝突", "settlement conflict"),
    (ErrorCode.SETTLEMENT_FAILED, "结算失败", "結算失敗", "settlement failed"),
    (ErrorCode.STAKE_WARNING, "输赢可能超过余额", "輸贏可能超過餘額", "stake above your balance"),
    (ErrorCode.STALE, "已过时", "已過時", "stale"),
    (ErrorCode.STALE_MATCH, "比赛状态已过时", "比賽狀態已過時", "stale match"),
    (ErrorCode.STUCK, "无人可操作", "無人可操作", "stuck"),
    (ErrorCode.TABLE_FULL, "牌桌已满", "牌桌已滿", "table full"),
    (ErrorCode.TILE_NOT_IN_HAND, "手中没有这张牌", "手中沒有這張牌", "tile not in hand"),
    (ErrorCode.TILE_NOT_IN_WALL, "牌墙中没有这张牌", "牌牆中沒有這張牌", "tile not in the wall"),
    (ErrorCode.TOO_LARGE, "请求过大", "請求過大", "too large"),
    (ErrorCode.TOO_MANY_ACCOUNTS, "账号创建过多", "帳號建立過多", "too many accounts"),
    (ErrorCode.TOO_MANY_BYSTANDERS, "叫马的人已满", "叫馬的人已滿", "too many bystanders"),
    (ErrorCode.TOO_MANY_COPIES, "同一张牌超过四张", "同一張牌超過四張", "too many copies"),
    (ErrorCode.TOO_MANY_OPEN_ROOMS, "开的房间过多", "開的房間過多", "too many open rooms"),
    (ErrorCode.TOO_MANY_ROOMS, "房间过多", "房間過多", "too many rooms"),
    (ErrorCode.TOURNAMENT_CLOSED, "比赛已截止报名", "比賽已截止報名", "tournament closed"),
    (ErrorCode.TOURNAMENT_FULL, "比赛名额已满", "比賽名額已滿", "tournament full"),
    (ErrorCode.UNBALANCED_TRANSFER, "转账不平衡", "轉帳不平衡", "unbalanced transfer"),
    (ErrorCode.UNKNOWN_ACCOUNT, "未知账户", "未知帳戶", "unknown account"),
    (ErrorCode.UNKNOWN_ACTION, "未知操作", "未知操作", "unknown action"),
    (ErrorCode.UNKNOWN_BOT, "未知机器人", "未知機器人", "unknown bot"),
    (ErrorCode.UNKNOWN_FIELD, "未知字段", "未知欄位", "unknown field"),
    (ErrorCode.UNKNOWN_HAND, "未知牌局", "未知牌局", "unknown hand"),
    (ErrorCode.UNKNOWN_MATCH, "未知比赛", "未知比賽", "unknown match"),
    (ErrorCode.UNKNOWN_MESSAGE, "未知消息文本", "未知訊息文字", "unknown message text"),
    (ErrorCode.UNKNOWN_OPTION, "未知规则选项", "未知規則選項", "unknown option"),
    (ErrorCode.UNKNOWN_PATTERN, "未知番型", "未知番型", "unknown pattern"),
    (ErrorCode.UNKNOWN_PRESET, "未知预设", "未知預設", "unknown preset"),
    (ErrorCode.UNKNOWN_ROOM, "未知房间", "未知房間", "unknown room"),
    (ErrorCode.UNKNOWN_TERM, "未知词条", "未知詞條", "unknown term"),
    (ErrorCode.UNKNOWN_TILE, "未知牌", "未知牌", "unknown tile"),
    (ErrorCode.UNKNOWN_TOURNAMENT, "未知比赛场", "未知比賽場", "unknown tournament"),
    (ErrorCode.UNKNOWN_TYPE, "未知消息类型", "未知訊息類型", "unknown message type"),
    (ErrorCode.UNREACHABLE, "无法连接服务器", "無法連線伺服器", "server unreachable"),
    (ErrorCode.UNREADABLE, "无法读取", "無法讀取", "unreadable"),
    (ErrorCode.UNWRITABLE, "无法写入", "無法寫入", "unwritable"),
    (ErrorCode.USAGE, "用法错误", "用法錯誤", "usage error"),
    (ErrorCode.WEAK_PASSWORD, "密码太短", "密碼太短", "password too short"),
    (ErrorCode.WIN_TILE_NOT_IN_HAND, "胡的牌不在手中", "胡的牌不在手中", "winning tile not in hand"),
    (ErrorCode.WRONG_HAND_COUNT, "手牌数量不对", "手牌數量不對", "wrong number of hands"),
    (ErrorCode.WRONG_TILE_COUNT, "牌数不对", "牌數不對", "wrong tile count"),
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
    Term(str(row[0]), kind, row[1], row[2], row[3]) for kind, rows in _TABLES.items() for row in rows
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
        raise UnknownTermError(ErrorCode.UNKNOWN_TERM, f"no kind of term {kind!r}: use {', '.join(Kind)}") from None


def find(kind: Kind | str, id: str) -> Term | None:
    """The term of ``kind`` with ``id``, or ``None``."""
    return _INDEX.get((_kind(kind), id))


def term(kind: Kind | str, id: str) -> Term:
    """The term of ``kind`` with ``id``; raises :class:`UnknownTermError` (``unknown_term``) for an unknown id."""
    k = _kind(kind)
    t = _INDEX.get((k, id))
    if t is None:
        raise UnknownTermError(ErrorCode.UNKNOWN_TERM, f"the vocabulary has no {k} {id!r}")
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
