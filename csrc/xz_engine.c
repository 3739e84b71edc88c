/* The compiled core: see xz_engine.h. Each function names the Python function it mirrors;
 * the order of every loop (seats, tiles, legal actions, payments, events) is the Python
 * engine's, because records must come out byte-identical. */
#include "xz_engine.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------
 * Suit keys (xuezhan.hand): the nine counts of a suit as sum(count[r] * 5**r). One byte per
 * key says whether the suit splits into sets only (bit 0), into sets and one pair (bit 1),
 * and whether every count is even (bit 2).
 * ------------------------------------------------------------------------------------------ */
#define NUM_KEYS 1953125
static uint8_t key_class[NUM_KEYS];
static const int32_t POW5[10] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125};
static int tables_ready = 0;

static void mark_sets(int32_t key, int8_t *c, int sets_left, int from) {
    key_class[key] |= 1;
    for (int r = 0; r < 9; r++) { /* the pair on top of these sets */
        if (c[r] + 2 <= 4) key_class[key + 2 * POW5[r]] |= 2;
    }
    if (!sets_left) return;
    for (int s = from; s < 16; s++) { /* sets in non-decreasing order: 0-8 pungs, 9-15 runs */
        if (s < 9) {
            if (c[s] + 3 > 4) continue;
            c[s] += 3;
            mark_sets(key + 3 * POW5[s], c, sets_left - 1, s);
            c[s] -= 3;
        } else {
            int r = s - 9;
            if (c[r] >= 4 || c[r + 1] >= 4 || c[r + 2] >= 4) continue;
            c[r]++; c[r + 1]++; c[r + 2]++;
            mark_sets(key + POW5[r] + POW5[r + 1] + POW5[r + 2], c, sets_left - 1, s);
            c[r]--; c[r + 1]--; c[r + 2]--;
        }
    }
}

static void mt_init_genrand(XzMT *m, uint32_t s);
static XzMT mt_initial;

void xz_init_tables(void) {
    if (tables_ready) return;
    mt_init_genrand(&mt_initial, 19650218U);
    int8_t c[9] = {0};
    mark_sets(0, c, 4, 0);
    for (int32_t k = 0; k < 19683; k++) { /* counts in {0, 2, 4} */
        int32_t v = k, key = 0;
        for (int r = 0; r < 9; r++) { key += (v % 3) * 2 * POW5[r]; v /= 3; }
        key_class[key] |= 4;
    }
    tables_ready = 1;
}

/* ------------------------------------------------------------------------------------------
 * Python's random.Random: MT19937 seeded by init_by_array from the 32-bit words of the seed.
 * ------------------------------------------------------------------------------------------ */
static void mt_init_genrand(XzMT *m, uint32_t s) {
    m->mt[0] = s;
    for (int i = 1; i < 624; i++) m->mt[i] = 1812433253U * (m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) + (uint32_t)i;
    m->mti = 624;
}

void xz_mt_seed(XzMT *m, uint64_t seed) {
    uint32_t key[2];
    int len;
    key[0] = (uint32_t)seed;
    key[1] = (uint32_t)(seed >> 32);
    len = key[1] ? 2 : 1;
    memcpy(m->mt, mt_initial.mt, sizeof m->mt); /* init_genrand(19650218), made once in xz_init_tables */
    m->mti = 624;
    int i = 1, j = 0;
    for (int k = 624 > len ? 624 : len; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1664525U)) + key[j] + (uint32_t)j;
        i++; j++;
        if (i >= 624) { m->mt[0] = m->mt[623]; i = 1; }
        if (j >= len) j = 0;
    }
    for (int k = 623; k; k--) {
        m->mt[i] = (m->mt[i] ^ ((m->mt[i - 1] ^ (m->mt[i - 1] >> 30)) * 1566083941U)) - (uint32_t)i;
        i++;
        if (i >= 624) { m->mt[0] = m->mt[623]; i = 1; }
    }
    m->mt[0] = 0x80000000U;
}

void xz_mt_seed4(XzMT *const m[4], const uint64_t seeds[4]) {
    /* xz_mt_seed of four generators in one pass: each seeding is a chain of 1,247 dependent steps,
     * and side by side the processor runs the four chains at once */
    uint32_t key[4][2], prev[4];
    int len[4], j[4] = {0, 0, 0, 0};
    uint32_t *restrict a = m[0]->mt, *restrict b = m[1]->mt, *restrict c = m[2]->mt, *restrict d = m[3]->mt;
    uint32_t *const mt[4] = {a, b, c, d};
    for (int q = 0; q < 4; q++) {
        key[q][0] = (uint32_t)seeds[q];
        key[q][1] = (uint32_t)(seeds[q] >> 32);
        len[q] = key[q][1] ? 2 : 1;
        memcpy(mt[q], mt_initial.mt, sizeof m[q]->mt);
        m[q]->mti = 624;
        prev[q] = mt[q][0];
    }
    int i = 1;
    for (int k = 624; k; k--) { /* max(624, key length) */
        for (int q = 0; q < 4; q++) {
            uint32_t x = (mt[q][i] ^ ((prev[q] ^ (prev[q] >> 30)) * 1664525U)) + key[q][j[q]] + (uint32_t)j[q];
            mt[q][i] = prev[q] = x;
            if (++j[q] >= len[q]) j[q] = 0;
        }
        if (++i >= 624) {
            for (int q = 0; q < 4; q++) mt[q][0] = mt[q][623];
            i = 1;
        }
    }
    for (int k = 623; k; k--) {
        for (int q = 0; q < 4; q++) {
            uint32_t x = (mt[q][i] ^ ((prev[q] ^ (prev[q] >> 30)) * 1566083941U)) - (uint32_t)i;
            mt[q][i] = prev[q] = x;
        }
        if (++i >= 624) {
            for (int q = 0; q < 4; q++) mt[q][0] = mt[q][623];
            i = 1;
        }
    }
    for (int q = 0; q < 4; q++) mt[q][0] = 0x80000000U;
}

static uint32_t mt_next(XzMT *m) {
    static const uint32_t mag01[2] = {0x0U, 0x9908b0dfU};
    uint32_t y;
    if (m->mti >= 624) {
        int kk;
        for (kk = 0; kk < 624 - 397; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + 397] ^ (y >> 1) ^ mag01[y & 1U];
        }
        for (; kk < 623; kk++) {
            y = (m->mt[kk] & 0x80000000U) | (m->mt[kk + 1] & 0x7fffffffU);
            m->mt[kk] = m->mt[kk + (397 - 624)] ^ (y >> 1) ^ mag01[y & 1U];
        }
        y = (m->mt[623] & 0x80000000U) | (m->mt[0] & 0x7fffffffU);
        m->mt[623] = m->mt[396] ^ (y >> 1) ^ mag01[y & 1U];
        m->mti = 0;
    }
    y = m->mt[m->mti++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

double xz_mt_random(XzMT *m) {
    uint32_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* Random._randbelow(n) for n < 2**32 */
static int mt_randbelow(XzMT *m, uint32_t n) {
    int k = 0;
    while ((n >> k) != 0) k++;
    uint32_t r = mt_next(m) >> (32 - k);
    while (r >= n) r = mt_next(m) >> (32 - k);
    return (int)r;
}

void xz_shuffle_order(uint64_t seed, int n, uint8_t *order) { /* random.Random(seed).shuffle(list(range(n))) */
    XzMT mt;
    xz_mt_seed(&mt, seed);
    for (int i = 0; i < n; i++) order[i] = (uint8_t)i;
    for (int i = n - 1; i > 0; i--) {
        int j = mt_randbelow(&mt, (uint32_t)(i + 1));
        uint8_t t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
}

int xz_throw_for_dealer(XzMT *m) { /* engine.deal.throw_for_dealer */
    int a = 1 + mt_randbelow(m, 6);
    int b = 1 + mt_randbelow(m, 6);
    return (a + b - 1) % 4;
}

/* ------------------------------------------------------------------------------------------
 * Events and the ledger
 * ------------------------------------------------------------------------------------------ */
static void emit(XzGame *g, int code, int n, const int64_t *words) {
    g->nevents++;
    if (!g->record_events) return;
    if (g->nevents_words + n + 1 > XZ_MAX_EVENTS) { g->overflow = 1; return; }
    g->events[g->nevents_words++] = code;
    for (int i = 0; i < n; i++) g->events[g->nevents_words++] = words[i];
}

static void emit2(XzGame *g, int code, int64_t a, int64_t b) { int64_t w[2] = {a, b}; emit(g, code, 2, w); }
static void emit3(XzGame *g, int code, int64_t a, int64_t b, int64_t c) {
    int64_t w[3] = {a, b, c};
    emit(g, code, 3, w);
}

static void pay(XzGame *g, int payer, int payee, int64_t points, int reason) { /* Game._pay */
    if (points <= 0 || payer == payee) return;
    if (g->nledger >= XZ_MAX_LEDGER) { g->overflow = 1; return; }
    XzEntry *e = &g->ledger[g->nledger++];
    e->from = payer; e->to = payee; e->points = points; e->reason = reason;
    int64_t w[4] = {payer, payee, points, reason};
    emit(g, XZ_EVENT_PAY, 4, w);
}

void xz_deltas(const XzGame *g, int64_t out[4]) {
    out[0] = out[1] = out[2] = out[3] = 0;
    for (int i = 0; i < g->nledger; i++) {
        out[g->ledger[i].from] -= g->ledger[i].points;
        out[g->ledger[i].to] += g->ledger[i].points;
    }
}

/* ------------------------------------------------------------------------------------------
 * Seats (engine.state.Seat)
 * ------------------------------------------------------------------------------------------ */
static inline void seat_add(XzSeat *s, int t) {
    s->wm = -1;
    s->counts[t]++;
    s->held |= 1U << t;
    s->keys[t / 9] += POW5[t % 9];
    s->sizes[t / 9]++;
}

static inline void seat_remove(XzSeat *s, int t, int n) {
    s->wm = -1;
    s->counts[t] -= n;
    if (!s->counts[t]) s->held &= ~(1U << t);
    s->keys[t / 9] -= n * POW5[t % 9];
    s->sizes[t / 9] -= n;
}

static inline int seat_suit_mask(const XzSeat *s) {
    return (s->sizes[0] > 0) | ((s->sizes[1] > 0) << 1) | ((s->sizes[2] > 0) << 2) | s->meld_suits;
}

static inline int holds_void(const XzSeat *s) { return s->void_suit >= 0 && s->sizes[s->void_suit] > 0; }

/* hand.is_complete_keys: four sets and a pair (melds being sets), or seven pairs */
static inline int complete_keys(int32_t k0, int32_t k1, int32_t k2, int seven) {
    uint8_t a = key_class[k0], b = key_class[k1], c = key_class[k2];
    if ((a & 3) && (b & 3) && (c & 3)) {
        int pairs = ((a & 2) != 0) + ((b & 2) != 0) + ((c & 2) != 0);
        /* a key is never both (sizes differ mod 3): class 1 is the pair */
        if (pairs == 1) return 1;
    }
    return seven && (a & 4) && (b & 4) && (c & 4);
}

int xz_complete_keys(int32_t k0, int32_t k1, int32_t k2, int seven) { return complete_keys(k0, k1, k2, seven); }

static int seat_is_complete(const XzSeat *s) { /* Seat.is_complete */
    int mask = seat_suit_mask(s);
    if (mask == 7 || (s->void_suit >= 0 && (mask >> s->void_suit & 1))) return 0;
    return complete_keys(s->keys[0], s->keys[1], s->keys[2], s->nmelds == 0);
}

static int64_t seat_wait_mask(XzSeat *s) { /* Seat.wait_mask: tiles completing 13 tile-equivalents */
    if (s->wm >= 0) return s->wm;
    int64_t wm = 0;
    if (s->sizes[0] + s->sizes[1] + s->sizes[2] + 3 * s->nmelds == 13) {
        int seven = s->nmelds == 0;
        int mask = seat_suit_mask(s);
        uint8_t cls[3] = {key_class[s->keys[0]], key_class[s->keys[1]], key_class[s->keys[2]]};
        for (int suit = 0; suit < 3; suit++) {
            int m2 = mask | (1 << suit);
            if (m2 == 7 || (s->void_suit >= 0 && (m2 >> s->void_suit & 1))) continue; /* two suits, no void */
            uint8_t o1 = cls[(suit + 1) % 3], o2 = cls[(suit + 2) % 3];
            int std_ok = (o1 & 3) && (o2 & 3);
            int pairs = ((o1 & 2) != 0) + ((o2 & 2) != 0);
            int sev_ok = seven && (o1 & 4) && (o2 & 4);
            if ((!std_ok || pairs > 1) && !sev_ok) continue;
            int32_t key = s->keys[suit];
            for (int r = 0; r < 9; r++) {
                int t = suit * 9 + r;
                if (s->counts[t] >= 4) continue;
                uint8_t c = key_class[key + POW5[r]];
                if ((std_ok && (c & 3) && pairs + ((c & 2) != 0) == 1) || (sev_ok && (c & 4)))
                    wm |= (int64_t)1 << t;
            }
        }
    }
    s->wm = wm;
    return wm;
}

static inline int completes_with(XzSeat *s, int t) { return (int)(seat_wait_mask(s) >> t & 1); }

/* ------------------------------------------------------------------------------------------
 * Scoring (scoring._best_score): the single best (points, cap, fan, table order) candidate.
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    int self_drawn, after_kong, robbing, last_tile, tian, di, last_copy, no_bonus;
} XzCtx;

/* every split of the counts into sets and one pair: whether some split is all pungs, and
 * whether some split has a 1 or 9 in every block */
static void splits(int8_t *c, int from, int pair_left, int all_pungs, int yao, int *any, int *any_pungs,
                   int *any_yao) {
    int t = from;
    while (t < 27 && c[t] == 0) t++;
    if (t == 27) {
        if (!pair_left) {
            *any = 1;
            if (all_pungs) *any_pungs = 1;
            if (yao) *any_yao = 1;
        }
        return;
    }
    int r = t % 9;
    int term = (r == 0 || r == 8);
    if (pair_left && c[t] >= 2) {
        c[t] -= 2;
        splits(c, t, 0, all_pungs, yao && term, any, any_pungs, any_yao);
        c[t] += 2;
    }
    if (c[t] >= 3) {
        c[t] -= 3;
        splits(c, t, pair_left, all_pungs, yao && term, any, any_pungs, any_yao);
        c[t] += 3;
    }
    if (r <= 6 && c[t + 1] && c[t + 2]) {
        c[t]--; c[t + 1]--; c[t + 2]--;
        splits(c, t, pair_left, 0, yao && (r == 0 || r == 6), any, any_pungs, any_yao);
        c[t]++; c[t + 1]++; c[t + 2]++;
    }
}

static int cap_fan(int64_t cap) {
    int fan = 1;
    while (((int64_t)1 << (fan - 1)) < cap) fan++;
    return fan;
}

/* what score_hand recognises: a pattern or extra added to xuezhan.rules gets an id in xz_gen.h, and
 * until it is scored here (and listed) the Python side refuses rules that give it fan */
const int xz_fan_implemented[] = {
    XZ_PAT_PING_HU, XZ_PAT_DUI_DUI_HU, XZ_PAT_QING_YI_SE, XZ_PAT_DAI_YAO_JIU, XZ_PAT_QI_DUI, XZ_PAT_QING_DUI,
    XZ_PAT_JIANG_DUI, XZ_PAT_LONG_QI_DUI, XZ_PAT_QING_QI_DUI, XZ_PAT_QING_YAO_JIU, XZ_PAT_QING_LONG_QI_DUI,
    XZ_PAT_TIAN_HU, XZ_PAT_DI_HU, XZ_EXTRA_GEN, XZ_EXTRA_GANG_SHANG_HUA, XZ_EXTRA_GANG_SHANG_PAO,
    XZ_EXTRA_QIANG_GANG_HU, XZ_EXTRA_HAI_DI, XZ_EXTRA_JIN_GOU_DIAO, XZ_EXTRA_JUE_ZHANG, XZ_EXTRA_ZI_MO_JIA_FAN, -1
};

/* score the 14 tile-equivalents: concealed counts (winning tile included) and the seat's melds */
static void score_hand(const XzRules *R, const int8_t *counts_in, const XzSeat *s, const XzCtx *ctx, XzWin *out) {
    int8_t counts[27];
    int owned[27];
    memcpy(counts, counts_in, 27);
    int suit_mask = 0, concealed = 0;
    for (int t = 0; t < 27; t++) {
        owned[t] = counts[t];
        concealed += counts[t];
        if (counts[t]) suit_mask |= 1 << (t / 9);
    }
    int meld_terminal = 1;
    for (int i = 0; i < s->nmelds; i++) {
        int t = s->melds[i].tile;
        owned[t] += s->melds[i].kind == XZ_MELD_PENG ? 3 : 4;
        suit_mask |= 1 << (t / 9);
        if (t % 9 != 0 && t % 9 != 8) meld_terminal = 0;
    }
    int quads = 0, jiang = 1;
    for (int t = 0; t < 27; t++) {
        if (owned[t] == 4) quads++;
        if (owned[t] && t % 9 != 1 && t % 9 != 4 && t % 9 != 7) jiang = 0;
    }
    int one_suit = suit_mask == 1 || suit_mask == 2 || suit_mask == 4;
    int any = 0, any_pungs = 0, any_yao = 0;
    splits(counts, 0, 1, 1, 1, &any, &any_pungs, &any_yao);
    if (!meld_terminal) any_yao = 0;
    int seven = s->nmelds == 0 && concealed == 14;
    for (int t = 0; seven && t < 27; t++)
        if (counts[t] & 1) seven = 0;

    /* candidates: (pattern, gen adjustment) */
    int cand_p[32], cand_g[32], nc = 0;
#define ADD(p, gadj) do { cand_p[nc] = (p); cand_g[nc] = (gadj); nc++; } while (0)
    if (any) {
        ADD(XZ_PAT_PING_HU, 0);
        if (any_pungs) {
            ADD(XZ_PAT_DUI_DUI_HU, 0);
            if (jiang) ADD(XZ_PAT_JIANG_DUI, 0);
            if (one_suit) ADD(XZ_PAT_QING_DUI, 0);
        }
        if (one_suit) ADD(XZ_PAT_QING_YI_SE, 0);
        if (any_yao) {
            ADD(XZ_PAT_DAI_YAO_JIU, 0);
            if (one_suit) ADD(XZ_PAT_QING_YAO_JIU, 0);
        }
    }
    if (seven) {
        ADD(XZ_PAT_QI_DUI, 0);
        if (one_suit) ADD(XZ_PAT_QING_QI_DUI, 0);
        if ((R->long_qi_dui_mode == XZ_LONG_QI_DUI_MODE_PATTERN) && quads) {
            ADD(XZ_PAT_LONG_QI_DUI, -1);
            if (one_suit) ADD(XZ_PAT_QING_LONG_QI_DUI, -1);
        }
    }
    if (ctx->tian || ctx->di) {
        int n = nc;
        for (int i = 0; i < n; i++) ADD(ctx->tian ? XZ_PAT_TIAN_HU : XZ_PAT_DI_HU, cand_g[i]);
    }
#undef ADD
    int common_id[8], ncommon = 0;
    int self_drawn = ctx->self_drawn || ctx->tian || ctx->di;
    if (ctx->after_kong && self_drawn) common_id[ncommon++] = XZ_EXTRA_GANG_SHANG_HUA;
    if (ctx->after_kong && !self_drawn && !ctx->robbing) common_id[ncommon++] = XZ_EXTRA_GANG_SHANG_PAO;
    if (ctx->robbing) common_id[ncommon++] = XZ_EXTRA_QIANG_GANG_HU;
    if (ctx->last_tile) common_id[ncommon++] = XZ_EXTRA_HAI_DI;
    if (s->nmelds == 4 && concealed == 2) common_id[ncommon++] = XZ_EXTRA_JIN_GOU_DIAO;
    if (ctx->last_copy) common_id[ncommon++] = XZ_EXTRA_JUE_ZHANG;
    if (self_drawn && R->self_draw_bonus == XZ_SELF_DRAW_BONUS_FAN && !ctx->no_bonus) common_id[ncommon++] = XZ_EXTRA_ZI_MO_JIA_FAN;

    int64_t bonus = (self_drawn && R->self_draw_bonus == XZ_SELF_DRAW_BONUS_BASE && !ctx->no_bonus) ? R->base_score : 0;
    int64_t cap = R->cap_multiple;
    int64_t bk0 = -1;
    int bk1 = -1, bk2 = -1, bk3 = -1;
    for (int i = 0; i < nc; i++) {
        int pattern = cand_p[i];
        int bfv = R->fan[pattern];
        int fan, nextras = 0, ex_id[8], ex_fan[8];
        int64_t multiple;
        if (bfv == XZ_FAN_CAP) {
            fan = cap_fan(cap);
            multiple = cap;
        } else {
            int gen = quads + cand_g[i];
            if (gen > 0 && R->fan[XZ_EXTRA_GEN] != 0) {
                ex_id[nextras] = XZ_EXTRA_GEN; ex_fan[nextras] = R->fan[XZ_EXTRA_GEN] * gen; nextras++;
            }
            for (int k = 0; k < ncommon; k++) {
                if (R->fan[common_id[k]]) {
                    ex_id[nextras] = common_id[k]; ex_fan[nextras] = R->fan[common_id[k]]; nextras++;
                }
            }
            fan = bfv;
            for (int k = 0; k < nextras; k++) fan += ex_fan[k];
            multiple = fan >= 1 ? ((int64_t)1 << (fan - 1)) : 1;
            if (cap && multiple > cap) multiple = cap;
        }
        int64_t hand_points = R->base_score * multiple;
        int k1 = bfv == XZ_FAN_CAP;
        if (hand_points > bk0 || (hand_points == bk0 && (k1 > bk1 || (k1 == bk1 && (fan > bk2 ||
                (fan == bk2 && pattern > bk3)))))) {
            bk0 = hand_points; bk1 = k1; bk2 = fan; bk3 = pattern;
            out->base = pattern;
            out->fan = fan;
            out->multiple = multiple;
            out->hand_points = hand_points;
            out->points = hand_points + bonus;
            out->nextras = nextras;
            for (int k = 0; k < nextras; k++) { out->extra_id[k] = ex_id[k]; out->extra_fan[k] = ex_fan[k]; }
        }
    }
}

int64_t xz_discard_win_points(const XzRules *R, const int8_t *counts, const XzSeat *s) {
    XzCtx ctx = {0}; /* scoring.score_win with WinContext(): a plain discard win */
    XzWin w;
    memset(&w, 0, sizeof w);
    score_hand(R, counts, s, &ctx, &w);
    return w.points;
}

/* ------------------------------------------------------------------------------------------
 * The deal (engine.deal)
 * ------------------------------------------------------------------------------------------ */
/* Random.random() is (a * 2**26 + b) / 2**53: sorting by the 53-bit integer a * 2**26 + b is sorting
 * by the float, and the tile's index in the low 7 bits keeps the sort stable, as Python's is */
static void sort_u64(uint64_t *v, int n) {
    /* the keys are uniform: one counting pass on the top 8 bits leaves almost nothing for the
     * insertion sort that finishes the job */
    uint64_t tmp[128];
    int start[257] = {0};
    for (int i = 0; i < n; i++) start[(v[i] >> 52) + 1]++;
    for (int b = 0; b < 256; b++) start[b + 1] += start[b];
    for (int i = 0; i < n; i++) tmp[start[v[i] >> 52]++] = v[i];
    for (int i = 0; i < n; i++) {
        uint64_t x = tmp[i];
        int j = i;
        while (j > 0 && v[j - 1] > x) { v[j] = v[j - 1]; j--; }
        v[j] = x;
    }
}

static uint64_t mt_random_bits(XzMT *m) {
    uint64_t a = mt_next(m) >> 5, b = mt_next(m) >> 6;
    return (a << 26) | b;
}

static void emit_start(XzGame *g, int hands_len[4], uint8_t hands[4][14]);
static void init_game(XzGame *g, const XzRules *R, uint8_t hands[4][14], int hl[4], int dealer);

void xz_new_game(XzGame *g, const XzRules *R, uint64_t seed, int dealer) {
    XzMT mt;
    xz_mt_seed(&mt, seed);
    xz_new_game_mt(g, R, &mt, dealer);
}

void xz_new_game_mt(XzGame *g, const XzRules *R, XzMT *mt, int dealer) {
    if (dealer < 0) dealer = xz_throw_for_dealer(mt);
    /* random_deal: sort the 108 tiles by uniform keys, then two dice */
    uint64_t keys[108];
    for (int i = 0; i < 108; i++) keys[i] = (mt_random_bits(mt) << 7) | (uint64_t)i;
    sort_u64(keys, 108);
    for (int i = 0; i < 108; i++) g->layout[i] = (uint8_t)((keys[i] & 127) / 4);
    int a = (int)(xz_mt_random(mt) * 6) + 1, b = (int)(xz_mt_random(mt) * 6) + 1;
    g->dice[0] = a; g->dice[1] = b;
    g->exchange_direction = 0;
    if (R->exchange_three == XZ_EXCHANGE_THREE_RANDOM) g->exchange_direction = 1 + mt_randbelow(mt, 3);
    /* deal_from_layout */
    static const int break_offset[13] = {0, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3};
    static const int offset_to_wall[4] = {0, 3, 2, 1};
    static const int wall_start[4] = {0, 14, 27, 41};
    int start = wall_start[offset_to_wall[break_offset[a + b]]] + (a < b ? a : b);
    uint8_t hands[4][14];
    int hl[4] = {0, 0, 0, 0};
#define TOP(i) g->layout[2 * ((start + (i)) % 54)]
#define BOTTOM(i) g->layout[2 * ((start + (i)) % 54) + 1]
    int stack = 0;
    for (int round = 0; round < 3; round++)
        for (int k = 0; k < 4; k++) {
            int seat = (dealer + k) % 4;
            for (int x = 0; x < 2; x++) {
                hands[seat][hl[seat]++] = TOP(stack);
                hands[seat][hl[seat]++] = BOTTOM(stack);
                stack++;
            }
        }
    hands[dealer][hl[dealer]++] = TOP(stack);
    hands[(dealer + 1) % 4][hl[(dealer + 1) % 4]++] = BOTTOM(stack);
    hands[(dealer + 2) % 4][hl[(dealer + 2) % 4]++] = TOP(stack + 1);
    hands[(dealer + 3) % 4][hl[(dealer + 3) % 4]++] = BOTTOM(stack + 1);
    hands[dealer][hl[dealer]++] = TOP(stack + 2);
    g->nwall = 0;
    g->wall[g->nwall++] = BOTTOM(stack + 2);
    for (int i = stack + 3; i < 54; i++) {
        g->wall[g->nwall++] = TOP(i);
        g->wall[g->nwall++] = BOTTOM(i);
    }
#undef TOP
#undef BOTTOM
    init_game(g, R, hands, hl, dealer);
}

int xz_new_game_from_deal(XzGame *g, const XzRules *R, const uint8_t *tiles, int dealer, int direction) {
    int counts[27] = {0};
    for (int i = 0; i < 108; i++) {
        if (tiles[i] >= 27 || ++counts[tiles[i]] > 4) return -1;
    }
    uint8_t hands[4][14];
    int hl[4], k = 0;
    for (int i = 0; i < 4; i++) {
        hl[i] = i == dealer ? 14 : 13;
        for (int j = 0; j < hl[i]; j++) hands[i][j] = tiles[k++];
    }
    g->nwall = 0;
    while (k < 108) g->wall[g->nwall++] = tiles[k++];
    memcpy(g->layout, tiles, 108); /* a prepared deal: hands by seat, then the wall */
    g->dice[0] = g->dice[1] = 0;
    g->exchange_direction = direction;
    init_game(g, R, hands, hl, dealer);
    return 0;
}

static void init_game(XzGame *g, const XzRules *R, uint8_t hands[4][14], int hl[4], int dealer) {
    /* Game.__init__ */
    g->rules = R;
    g->dealer = dealer;
    memset(g->seats, 0, sizeof(g->seats));
    for (int i = 0; i < 4; i++) {
        XzSeat *s = &g->seats[i];
        s->void_suit = -1;
        s->wm = -1;
        for (int k = 0; k < hl[i]; k++) seat_add(s, hands[i][k]);
        s->wm = -1;
    }
    g->head = 0;
    g->tail = g->nwall;
    g->phase = XZ_PHASE_EXCHANGE;
    g->turn = dealer;
    g->drawn = hands[dealer][hl[dealer] - 1];
    g->after_kong = g->drew_last = g->must_discard = 0;
    g->nturn_kongs = 0;
    g->zhigang_source = -1;
    g->has_window = 0;
    g->pending_bugang = -1;
    g->bugang_late = 0;
    g->clean_start = 1;
    g->nledger = g->nwins = g->nkongs = g->win_groups = g->nactions = 0;
    g->nevents_words = g->nevents = 0;
    g->wall_empty_at = -1;
    g->overflow = 0;
    g->next_dealer = -1;
    emit_start(g, hl, hands);
}

static void start_play(XzGame *g);

static void emit_start(XzGame *g, int hl[4], uint8_t hands[4][14]) {
    emit3(g, XZ_EVENT_START, g->dealer, g->tail - g->head, 0);
    for (int i = 0; i < 4; i++) {
        int64_t w[16];
        w[0] = i; w[1] = hl[i];
        for (int k = 0; k < hl[i]; k++) w[2 + k] = hands[i][k];
        emit(g, XZ_EVENT_DEAL, 2 + hl[i], w);
    }
    if (g->rules->exchange_three != XZ_EXCHANGE_THREE_NONE) g->phase = XZ_PHASE_EXCHANGE;
    else if (g->rules->dingque) g->phase = XZ_PHASE_DINGQUE;
    else start_play(g);
}

/* ------------------------------------------------------------------------------------------
 * Queries
 * ------------------------------------------------------------------------------------------ */
static inline int active(const XzGame *g, int seat) {
    const XzSeat *s = &g->seats[seat];
    return !s->won || g->rules->blood_river;
}

static int next_active(const XzGame *g, int seat) {
    for (int k = 1; k <= 4; k++) {
        int o = (seat + k) & 3;
        if (g->rules->blood_river || !g->seats[o].won) return o;
    }
    return -1;
}

int xz_pending(const XzGame *g, int *out) {
    int n = 0;
    switch (g->phase) {
    case XZ_PHASE_TURN:
        out[n++] = g->turn;
        break;
    case XZ_PHASE_CLAIM:
    case XZ_PHASE_ROB:
        for (int i = 0; i < g->w.nopt; i++)
            if (!g->w.answered[i]) out[n++] = g->w.options_seat[i];
        break;
    case XZ_PHASE_EXCHANGE:
    case XZ_PHASE_DINGQUE:
        for (int i = 0; i < 4; i++)
            if (!g->seats[i].chosen) out[n++] = i;
        break;
    default:
        break;
    }
    return n;
}

static inline XzAction mk(int seat, int type, int tile) {
    XzAction a = {(uint8_t)seat, (uint8_t)type, (uint8_t)(tile < 0 ? 255 : tile), 255, {0, 0, 0}, 0};
    return a;
}

static int discards(const XzGame *g, int seat, XzAction *out, int n) {
    const XzSeat *s = &g->seats[seat];
    uint32_t held = s->held;
    if (holds_void(s)) held &= 0x1FFU << (s->void_suit * 9); /* void tiles first (定缺) */
    while (held) {
        int t = __builtin_ctz(held);
        held &= held - 1;
        out[n++] = mk(seat, XZ_ACTION_DISCARD, t);
    }
    return n;
}

int xz_legal(XzGame *g, int seat, XzAction *out) { /* Game._compute_legal */
    XzSeat *s = &g->seats[seat];
    const XzRules *R = g->rules;
    int n = 0;
    switch (g->phase) {
    case XZ_PHASE_TURN: {
        if (seat != g->turn) return 0;
        if (s->won) {
            if (seat_is_complete(s)) {
                out[n++] = mk(seat, XZ_ACTION_HU, -1);
                if (R->must_hu_last_four && g->tail - g->head <= 4) return n;
            }
            if (g->drawn >= 0) out[n++] = mk(seat, XZ_ACTION_DISCARD, g->drawn);
            return n;
        }
        if (g->must_discard) return discards(g, seat, out, 0);
        if (seat_is_complete(s)) {
            out[n++] = mk(seat, XZ_ACTION_HU, -1);
            if (R->must_hu_last_four && g->tail - g->head <= 4) return n;
        }
        if (g->tail > g->head) {
            for (int t = 0; t < 27; t++)
                if (s->counts[t] == 4 && t / 9 != s->void_suit) out[n++] = mk(seat, XZ_ACTION_GANG, t);
            for (int i = 0; i < s->nmelds; i++)
                if (s->melds[i].kind == XZ_MELD_PENG && s->counts[s->melds[i].tile])
                    out[n++] = mk(seat, XZ_ACTION_GANG, s->melds[i].tile);
        }
        return discards(g, seat, out, n);
    }
    case XZ_PHASE_CLAIM:
    case XZ_PHASE_ROB:
        for (int i = 0; i < g->w.nopt; i++) {
            if (g->w.options_seat[i] != seat) continue;
            if (g->w.answered[i]) return 0;
            for (int k = 0; k < g->w.noptions[i]; k++) out[n++] = g->w.options[i][k];
            return n;
        }
        return 0;
    case XZ_PHASE_DINGQUE: {
        if (s->chosen) return 0;
        int present[3], np = 0;
        for (int suit = 0; suit < 3; suit++)
            if (s->sizes[suit] > 0) present[np++] = suit;
        for (int suit = 0; suit < 3; suit++) {
            int ok;
            if (np == 2) ok = suit != present[0] && suit != present[1];
            else if (np == 1) ok = suit != present[0];
            else ok = 1;
            if (ok) { XzAction a = mk(seat, XZ_ACTION_DINGQUE, -1); a.suit = (uint8_t)suit; out[n++] = a; }
        }
        return n;
    }
    case XZ_PHASE_EXCHANGE: {
        if (s->chosen) return 0;
        for (int suit = 0; suit < 3; suit++) {
            if (s->sizes[suit] < 3) continue;
            int ranks[14], nr = 0;
            for (int r = 0; r < 9; r++)
                for (int c = 0; c < s->counts[suit * 9 + r]; c++) ranks[nr++] = r;
            int first = n;
            for (int i = 0; i < nr; i++)
                for (int j = i + 1; j < nr; j++)
                    for (int k = j + 1; k < nr; k++) {
                        int dup = 0;
                        for (int q = first; q < n && !dup; q++)
                            dup = out[q].tiles[0] == suit * 9 + ranks[i] && out[q].tiles[1] == suit * 9 + ranks[j]
                                  && out[q].tiles[2] == suit * 9 + ranks[k];
                        if (dup || n >= XZ_MAX_LEGAL) continue;
                        XzAction a = mk(seat, XZ_ACTION_EXCHANGE, -1);
                        a.tiles[0] = (uint8_t)(suit * 9 + ranks[i]);
                        a.tiles[1] = (uint8_t)(suit * 9 + ranks[j]);
                        a.tiles[2] = (uint8_t)(suit * 9 + ranks[k]);
                        a.ntiles = 3;
                        out[n++] = a;
                    }
        }
        return n;
    }
    default:
        return 0;
    }
}

/* ------------------------------------------------------------------------------------------
 * Turns, draws, claims, kongs, wins, settlement
 * ------------------------------------------------------------------------------------------ */
static void end_exhausted(XzGame *g);
static void finish(XzGame *g);
static void discard_tile(XzGame *g, int seat, int t);
static void resolve_window(XzGame *g);
static void complete_bugang(XzGame *g, int seat, int t);

static void start_play(XzGame *g) {
    g->phase = XZ_PHASE_TURN;
    g->turn = g->dealer;
    g->must_discard = 0;
    g->after_kong = 0;
    emit(g, XZ_EVENT_TURN, 1, (int64_t[]){g->dealer});
}

static void draw(XzGame *g, int seat, int replacement) { /* Game._draw */
    int t;
    if (replacement && g->rules->kong_draw_from_tail) {
        g->tail--;
        t = g->wall[g->tail];
    } else {
        t = g->wall[g->head++];
    }
    XzSeat *s = &g->seats[seat];
    seat_add(s, t);
    s->draws++;
    s->pass_hu = 0;
    s->pass_hu_any = 0;
    g->phase = XZ_PHASE_TURN;
    g->turn = seat;
    g->drawn = t;
    g->after_kong = replacement;
    g->drew_last = g->tail == g->head;
    g->must_discard = 0;
    if (!replacement) {
        g->nturn_kongs = 0;
        g->zhigang_source = -1;
    }
    emit3(g, XZ_EVENT_DRAW, seat, t, replacement);
}

static void next_draw(XzGame *g, int after) {
    int nxt = next_active(g, after);
    if (nxt < 0 || g->tail == g->head) {
        end_exhausted(g);
        return;
    }
    draw(g, nxt, 0);
}

/* the copies of t in sight of seat (engine.wins.visible_copies) */
static int visible_copies(const XzGame *g, int seat, int t) {
    int n = g->seats[seat].counts[t];
    for (int i = 0; i < 4; i++) {
        const XzSeat *s = &g->seats[i];
        for (int m = 0; m < s->nmelds; m++)
            if (s->melds[m].tile == t && (s->melds[m].kind != XZ_MELD_ANGANG || i == seat || s->revealed))
                n += s->melds[m].kind == XZ_MELD_PENG ? 3 : 4;
        for (int k = 0; k < s->nriver; k++)
            if (s->river[k] == t && s->river_state[k] != XZ_RIVER_CLAIMED) n++;
        for (int k = 0; k < s->naside; k++)
            if (s->aside[k] == t) n++;
        if (i != seat && s->revealed) n += s->counts[t];
    }
    return n;
}

static int waits_of(const XzSeat *s, int *out);

/* copies of t face up for seat (docs/rules.md §5): what it can see but its own concealed tiles */
static int face_up(const XzGame *g, int seat, int t) { return visible_copies(g, seat, t) - g->seats[seat].counts[t]; }

/* 绝张 (docs/rules.md §6.2 and clarification 2): every other copy of the winning tile, and every copy of
 * each other tile the hand was waiting on, is face up (wins.is_jue_zhang) */
static int is_jue_zhang(const XzGame *g, int seat, int tile, int self_drawn) {
    if (face_up(g, seat, tile) != (self_drawn ? 3 : 4)) return 0;
    XzSeat before = g->seats[seat];
    if (self_drawn) seat_remove(&before, tile, 1);
    int waits[27];
    int n = waits_of(&before, waits);
    for (int i = 0; i < n; i++)
        if (waits[i] != tile && face_up(g, seat, waits[i]) != 4) return 0;
    return 1;
}

static int hand_finished(const XzGame *g) {
    if (g->rules->end_on_first_win) return 1;
    if (g->rules->blood_river) return 0;
    int n = 0;
    for (int i = 0; i < 4; i++) n += active(g, i);
    return n <= 1;
}

static void mark_won(XzGame *g, int seat, int t, int self_drawn) {
    XzSeat *s = &g->seats[seat];
    s->wins++;
    s->won = 1;
    if (!g->rules->blood_river) {
        s->revealed = 1;
    } else if (self_drawn) {
        seat_remove(s, t, 1);
        if (s->naside < XZ_RIVER) s->aside[s->naside++] = (uint8_t)t;
        else g->overflow = 1;
    }
}

static XzWin *new_win(XzGame *g) {
    if (g->nwins >= XZ_MAX_WINS) { g->overflow = 1; return &g->wins[XZ_MAX_WINS - 1]; }
    XzWin *w = &g->wins[g->nwins++];
    memset(w, 0, sizeof *w);
    return w;
}

static void self_drawn_win(XzGame *g, int seat) { /* engine.wins.self_drawn_win */
    XzSeat *s = &g->seats[seat];
    const XzRules *R = g->rules;
    int tile = g->drawn;
    if (tile < 0)
        for (int t = 0; t < 27; t++)
            if (s->counts[t]) tile = t;
    int first_action = g->clean_start && !s->won;
    XzCtx ctx = {0};
    ctx.self_drawn = 1;
    ctx.after_kong = g->after_kong;
    ctx.last_tile = g->drew_last;
    ctx.tian = first_action && seat == g->dealer && s->draws == 0;
    ctx.di = first_action && seat != g->dealer && s->draws == 1 && !g->after_kong;
    ctx.last_copy = R->fan[XZ_EXTRA_JUE_ZHANG] != 0 && is_jue_zhang(g, seat, tile, 1); /* no fan, no need to look */
    int zhigang_pays = g->after_kong && g->zhigang_source >= 0 && (R->dian_gang_hua == XZ_DIAN_GANG_HUA_DISCARD) && g->nturn_kongs
                       && g->kongs[g->turn_kongs[g->nturn_kongs - 1]].kind == XZ_REASON_ZHIGANG;
    ctx.no_bonus = zhigang_pays; /* 点杠花 paid as a discard win: no self-draw bonus of either kind */
    XzWin *w = new_win(g);
    score_hand(R, s->counts, s, &ctx, w);
    g->win_groups++;
    w->seat = seat; w->from = -1; w->tile = tile; w->order = g->win_groups; w->robbed = 0;
    w->json_points = w->points;
    emit2(g, XZ_EVENT_HU, g->nwins - 1, -1);
    if (zhigang_pays) {
        pay(g, g->zhigang_source, seat, w->hand_points, XZ_REASON_HU);
    } else {
        for (int o = 0; o < 4; o++)
            if (o != seat && active(g, o)) pay(g, o, seat, w->points, XZ_REASON_ZIMO);
    }
    mark_won(g, seat, tile, 1);
    g->clean_start = 0;
    if (hand_finished(g)) {
        finish(g);
        return;
    }
    next_draw(g, seat);
}

static void discard_wins(XzGame *g, int *hu_seats, int nhu) { /* engine.wins.discard_wins */
    XzWindow *w = &g->w;
    const XzRules *R = g->rules;
    int order[3], n = nhu;
    memcpy(order, hu_seats, sizeof(int) * (size_t)nhu);
    for (int i = 1; i < n; i++) /* by distance from the source */
        for (int j = i; j > 0 && ((order[j] - w->source) & 3) < ((order[j - 1] - w->source) & 3); j--) {
            int x = order[j]; order[j] = order[j - 1]; order[j - 1] = x;
        }
    g->win_groups++;
    int64_t transfer = 0;
    int tk[XZ_MAX_KONGS], ntk = 0;
    if (R->call_transfer && w->after_kong && !w->robbing) {
        for (int i = 0; i < g->nturn_kongs; i++) {
            XzKong *k = &g->kongs[g->turn_kongs[i]];
            if (k->seat == w->source && !k->transferred) {
                tk[ntk++] = g->turn_kongs[i];
                for (int p = 0; p < k->npay; p++) transfer += k->pts[p];
            }
        }
    }
    for (int i = 0; i < n; i++) {
        int o = order[i];
        XzSeat *s = &g->seats[o];
        XzCtx ctx = {0};
        ctx.after_kong = w->after_kong && !w->robbing;
        ctx.robbing = w->robbing;
        ctx.last_tile = w->last_tile;
        ctx.last_copy = R->fan[XZ_EXTRA_JUE_ZHANG] != 0 && is_jue_zhang(g, o, w->tile, 0);
        int8_t counts[27];
        memcpy(counts, s->counts, 27);
        counts[w->tile]++;
        XzWin *win = new_win(g);
        score_hand(R, counts, s, &ctx, win);
        win->seat = o; win->from = w->source; win->tile = w->tile; win->order = g->win_groups;
        win->robbed = w->robbing;
        win->json_points = win->hand_points;
        emit2(g, XZ_EVENT_HU, g->nwins - 1, w->robbing);
        pay(g, w->source, o, win->hand_points, XZ_REASON_HU);
        if (transfer) pay(g, w->source, o, transfer, XZ_REASON_CALL_TRANSFER);
    }
    for (int i = 0; i < ntk; i++) g->kongs[tk[i]].transferred = 1;
    for (int i = 0; i < n; i++) mark_won(g, order[i], w->tile, 0);
    g->clean_start = 0;
    if (hand_finished(g)) {
        finish(g);
        return;
    }
    next_draw(g, order[n - 1]);
}

static XzKong *new_kong(XzGame *g, int seat, int kind, int t) {
    if (g->nkongs >= XZ_MAX_KONGS) { g->overflow = 1; g->nkongs = XZ_MAX_KONGS - 1; }
    XzKong *k = &g->kongs[g->nkongs];
    memset(k, 0, sizeof *k);
    k->seat = seat; k->kind = kind; k->tile = t;
    return k;
}

static void kong_pay(XzGame *g, XzKong *k, int payer, int64_t pts, int reason) {
    pay(g, payer, k->seat, pts, reason);
    if (k->npay < 3) { k->payer[k->npay] = payer; k->pts[k->npay] = pts; k->npay++; }
}

static void push_turn_kong(XzGame *g) {
    int idx = g->nkongs++;
    if (g->nturn_kongs < XZ_MAX_KONGS) g->turn_kongs[g->nturn_kongs++] = idx;
}

static void angang(XzGame *g, int seat, int t) {
    XzSeat *s = &g->seats[seat];
    seat_remove(s, t, 4);
    s->melds[s->nmelds].kind = XZ_MELD_ANGANG; s->melds[s->nmelds].tile = (uint8_t)t; s->nmelds++;
    s->meld_suits |= 1 << (t / 9);
    g->clean_start = 0;
    emit2(g, XZ_EVENT_ANGANG, seat, t);
    XzKong *k = new_kong(g, seat, XZ_REASON_ANGANG, t);
    int64_t pts = 2 * g->rules->base_score;
    for (int o = 0; o < 4; o++)
        if (o != seat && active(g, o)) kong_pay(g, k, o, pts, XZ_REASON_ANGANG);
    push_turn_kong(g);
    draw(g, seat, 1);
}

/* engine.kongs.rob_options: who may rob ``seat``'s added kong of ``t`` (hu, or pass unless a win is
 * forced), into the options of ``w`` */
static void rob_options(XzGame *g, int seat, int t, XzWindow *w) {
    int force = g->rules->must_hu_last_four && g->tail - g->head <= 4;
    w->nopt = 0;
    for (int k = 1; k < 4; k++) {
        int o = (seat + k) % 4;
        if (!active(g, o)) continue;
        XzSeat *so = &g->seats[o];
        if (completes_with(so, t) && !(so->pass_hu_any || (so->pass_hu >> t & 1))) {
            int i = w->nopt++;
            w->options_seat[i] = o;
            w->options[i][0] = mk(o, XZ_ACTION_HU, -1);
            w->noptions[i] = 1;
            if (!force) w->options[i][w->noptions[i]++] = mk(o, XZ_ACTION_PASS, -1);
        }
    }
}

static void start_bugang(XzGame *g, int seat, int t) {
    XzSeat *s = &g->seats[seat];
    int late = g->drawn != t;
    seat_remove(s, t, 1);
    g->clean_start = 0;
    g->pending_bugang = t;
    g->bugang_late = late;
    emit2(g, XZ_EVENT_BUGANG_DECLARED, seat, t);
    XzWindow *w = &g->w;
    memset(w, 0, sizeof *w);
    rob_options(g, seat, t, w);
    if (w->nopt) {
        w->tile = t; w->source = seat; w->robbing = 1;
        g->has_window = 1;
        g->phase = XZ_PHASE_ROB;
        return;
    }
    complete_bugang(g, seat, t);
}

static void complete_bugang(XzGame *g, int seat, int t) {
    XzSeat *s = &g->seats[seat];
    for (int i = 0; i < s->nmelds; i++)
        if (s->melds[i].kind == XZ_MELD_PENG && s->melds[i].tile == t) { s->melds[i].kind = XZ_MELD_GANG; break; }
    g->pending_bugang = -1;
    emit2(g, XZ_EVENT_BUGANG, seat, t);
    XzKong *k = new_kong(g, seat, XZ_REASON_BUGANG, t);
    if (g->rules->late_bugang_pays || !g->bugang_late) {
        int64_t pts = g->rules->base_score;
        for (int o = 0; o < 4; o++)
            if (o != seat && active(g, o)) kong_pay(g, k, o, pts, XZ_REASON_BUGANG);
    }
    push_turn_kong(g);
    draw(g, seat, 1);
}

static void claim_tile(XzGame *g) {
    XzSeat *src = &g->seats[g->w.source];
    src->river_state[src->nriver - 1] = XZ_RIVER_CLAIMED;
    g->clean_start = 0;
}

static void zhigang(XzGame *g, int seat) {
    XzWindow *w = &g->w;
    int t = w->tile, source = w->source;
    claim_tile(g);
    XzSeat *s = &g->seats[seat];
    seat_remove(s, t, 3);
    s->melds[s->nmelds].kind = XZ_MELD_GANG; s->melds[s->nmelds].tile = (uint8_t)t; s->nmelds++;
    s->meld_suits |= 1 << (t / 9);
    emit3(g, XZ_EVENT_ZHIGANG, seat, t, source);
    XzKong *k = new_kong(g, seat, XZ_REASON_ZHIGANG, t);
    int64_t base = g->rules->base_score;
    kong_pay(g, k, source, 2 * base, XZ_REASON_ZHIGANG);
    if ((g->rules->zhigang_payment == XZ_ZHIGANG_PAYMENT_EVERYONE))
        for (int o = 0; o < 4; o++)
            if (o != seat && o != source && active(g, o)) kong_pay(g, k, o, base, XZ_REASON_ZHIGANG);
    g->nturn_kongs = 0;
    push_turn_kong(g);
    g->zhigang_source = source;
    draw(g, seat, 1);
}

static void peng(XzGame *g, int seat) {
    XzWindow *w = &g->w;
    int t = w->tile;
    claim_tile(g);
    XzSeat *s = &g->seats[seat];
    seat_remove(s, t, 2);
    s->melds[s->nmelds].kind = XZ_MELD_PENG; s->melds[s->nmelds].tile = (uint8_t)t; s->nmelds++;
    s->meld_suits |= 1 << (t / 9);
    emit3(g, XZ_EVENT_PENG, seat, t, w->source);
    g->phase = XZ_PHASE_TURN;
    g->turn = seat;
    g->drawn = -1;
    g->must_discard = 1;
    g->after_kong = 0;
    g->drew_last = 0;
    g->nturn_kongs = 0;
    g->zhigang_source = -1;
}

/* engine.claims.claim_options: what each other seat may answer to ``seat``'s discard of ``t``, into
 * the options of ``w`` (seats with nothing to claim left out) */
static void claim_options(XzGame *g, int seat, int t, XzWindow *w) {
    const XzRules *R = g->rules;
    w->nopt = 0;
    for (int k = 1; k < 4; k++) {
        int o = (seat + k) % 4;
        XzSeat *so = &g->seats[o];
        if (so->won && !R->blood_river) continue;
        int64_t wm = seat_wait_mask(so);
        if (so->counts[t] < 2 && !(wm >> t & 1)) continue;
        XzAction acts[4];
        int na = 0;
        int can_hu = (int)(wm >> t & 1) && !(so->pass_hu_any || (so->pass_hu >> t & 1));
        if (can_hu) acts[na++] = mk(o, XZ_ACTION_HU, -1);
        if (!so->won && t / 9 != so->void_suit) {
            int c = so->counts[t];
            if (c == 3 && g->tail - g->head > 0) acts[na++] = mk(o, XZ_ACTION_GANG, t);
            if (c >= 2) acts[na++] = mk(o, XZ_ACTION_PENG, -1);
        }
        if (na) {
            if (can_hu && R->must_hu_last_four && g->tail - g->head <= 4) na = 1;
            else acts[na++] = mk(o, XZ_ACTION_PASS, -1);
            int i = w->nopt++;
            w->options_seat[i] = o;
            memcpy(w->options[i], acts, sizeof(XzAction) * (size_t)na);
            w->noptions[i] = na;
        }
    }
}

static void discard_tile(XzGame *g, int seat, int t) { /* engine.claims.discard */
    XzSeat *s = &g->seats[seat];
    seat_remove(s, t, 1);
    if (s->nriver >= XZ_RIVER) { g->overflow = 1; s->nriver = XZ_RIVER - 1; }
    s->river[s->nriver] = (uint8_t)t;
    s->river_state[s->nriver] = XZ_RIVER_OPEN;
    s->nriver++;
    emit2(g, XZ_EVENT_DISCARD, seat, t);
    g->drawn = -1;
    XzWindow *w = &g->w;
    claim_options(g, seat, t, w);
    if (!w->nopt) {
        next_draw(g, seat);
        return;
    }
    w->tile = t; w->source = seat;
    w->after_kong = g->nturn_kongs > 0;
    w->last_tile = g->drew_last;
    w->robbing = 0;
    w->nanswers = 0;
    for (int i = 0; i < 3; i++) w->answered[i] = 0;
    g->has_window = 1;
    g->phase = XZ_PHASE_CLAIM;
}

static void resolve_window(XzGame *g) { /* engine.claims.resolve_window */
    XzWindow *w = &g->w;
    g->has_window = 0;
    int hu_seats[3], nhu = 0;
    for (int a = 0; a < w->nanswers; a++) {
        int i = w->answer_order[a];
        if (w->answers[i].type == XZ_ACTION_HU) hu_seats[nhu++] = w->options_seat[i];
    }
    for (int i = 0; i < w->nopt; i++) {
        int o = w->options_seat[i];
        int is_hu = 0, had_hu = 0;
        for (int k = 0; k < nhu; k++) is_hu |= hu_seats[k] == o;
        for (int k = 0; k < w->noptions[i]; k++) had_hu |= w->options[i][k].type == XZ_ACTION_HU;
        if (!is_hu && had_hu) {
            XzSeat *so = &g->seats[o];
            if ((g->rules->pass_hu_scope == XZ_PASS_HU_SCOPE_ANY_TILE)) so->pass_hu_any = 1;
            else so->pass_hu |= 1U << w->tile;
            emit2(g, XZ_EVENT_PASS_HU, o, w->tile);
        }
    }
    if (w->robbing) {
        if (nhu) {
            XzSeat *ks = &g->seats[w->source];
            if (ks->nriver >= XZ_RIVER) { g->overflow = 1; ks->nriver = XZ_RIVER - 1; }
            ks->river[ks->nriver] = (uint8_t)w->tile;
            ks->river_state[ks->nriver] = XZ_RIVER_ROBBED;
            ks->nriver++;
            g->pending_bugang = -1;
            discard_wins(g, hu_seats, nhu);
        } else {
            complete_bugang(g, w->source, w->tile);
        }
        return;
    }
    if (nhu) {
        XzSeat *src = &g->seats[w->source];
        src->river_state[src->nriver - 1] = XZ_RIVER_WON;
        discard_wins(g, hu_seats, nhu);
        return;
    }
    for (int a = 0; a < w->nanswers; a++) {
        int i = w->answer_order[a];
        if (w->answers[i].type == XZ_ACTION_GANG) { zhigang(g, w->options_seat[i]); return; }
        if (w->answers[i].type == XZ_ACTION_PENG) { peng(g, w->options_seat[i]); return; }
    }
    if (g->tail == g->head) {
        end_exhausted(g);
        return;
    }
    next_draw(g, w->source);
}

/* --- the end (engine.settlement) --------------------------------------------------------------- */
static int waits_of(const XzSeat *s, int *out) { /* hand.winning_tiles with owned copies */
    int n = 0;
    if (s->sizes[0] + s->sizes[1] + s->sizes[2] + 3 * s->nmelds != 13) return 0;
    int mask = seat_suit_mask(s);
    if (s->void_suit >= 0 && (mask >> s->void_suit & 1)) return 0;
    int owned[27];
    for (int t = 0; t < 27; t++) owned[t] = s->counts[t];
    for (int i = 0; i < s->nmelds; i++) owned[s->melds[i].tile] += s->melds[i].kind == XZ_MELD_PENG ? 3 : 4;
    int seven = s->nmelds == 0;
    for (int t = 0; t < 27; t++) {
        if (owned[t] >= 4 || s->counts[t] >= 4) continue;
        int32_t k[3] = {s->keys[0], s->keys[1], s->keys[2]};
        k[t / 9] += POW5[t % 9];
        if (!complete_keys(k[0], k[1], k[2], seven)) continue;
        int m = mask | (1 << (t / 9));
        if (m == 7 || (s->void_suit >= 0 && (m >> s->void_suit & 1))) continue;
        out[n++] = t;
    }
    return n;
}

static int seat_waits(const XzGame *g, int seat, int *out) { return waits_of(&g->seats[seat], out); }

static int is_hua_zhu(const XzGame *g, int seat) {
    const XzSeat *s = &g->seats[seat];
    return seat_suit_mask(s) == 7 || (g->rules->dingque && holds_void(s));
}

static int64_t da_jiao(const XzGame *g, int seat) {
    int waits[27];
    int n = seat_waits(g, seat, waits);
    if (!n) return 0;
    const XzSeat *s = &g->seats[seat];
    int64_t best = 0;
    for (int i = 0; i < n; i++) {
        int8_t counts[27];
        memcpy(counts, s->counts, 27);
        counts[waits[i]]++;
        XzCtx ctx = {0};
        XzWin w;
        memset(&w, 0, sizeof w);
        score_hand(g->rules, counts, s, &ctx, &w);
        if (i == 0 || ((g->rules->cha_jiao_pays == XZ_CHA_JIAO_PAYS_MIN) ? w.hand_points < best : w.hand_points > best)) best = w.hand_points;
    }
    return best;
}

static int counts_as_ready(const XzGame *g, int seat) {
    int waits[27];
    int n = seat_waits(g, seat, waits);
    if (!n) return 0;
    if (g->rules->dead_wait_counts) return 1;
    for (int i = 0; i < n; i++)
        if (visible_copies(g, seat, waits[i]) < 4) return 1;
    return 0;
}

static void end_exhausted(XzGame *g) {
    int players[4], np = 0;
    for (int i = 0; i < 4; i++)
        if (!g->seats[i].won) players[np++] = i;
    g->wall_empty_at = g->nevents;
    emit(g, XZ_EVENT_WALL_EMPTY, 0, NULL);
    if (np >= 2) {
        int pig[4] = {0}, ready[4] = {0};
        for (int i = 0; i < np; i++) pig[players[i]] = is_hua_zhu(g, players[i]);
        for (int i = 0; i < np; i++) {
            int p = players[i];
            ready[p] = !pig[p] && counts_as_ready(g, p);
        }
        for (int i = 0; i < np; i++) {
            if (!pig[players[i]]) continue;
            for (int j = 0; j < np; j++)
                if (!pig[players[j]]) pay(g, players[i], players[j], g->rules->hua_zhu_points, XZ_REASON_HUA_ZHU);
        }
        for (int i = 0; i < np; i++) {
            int p = players[i];
            if (pig[p] || ready[p]) continue;
            for (int j = 0; j < np; j++)
                if (ready[players[j]]) pay(g, p, players[j], da_jiao(g, players[j]), XZ_REASON_CHA_JIAO);
        }
        for (int i = 0; i < np; i++) {
            int p = players[i];
            if (ready[p]) continue;
            for (int k = 0; k < g->nkongs; k++) {
                XzKong *kg = &g->kongs[k];
                if (kg->seat != p || kg->transferred) continue;
                for (int q = 0; q < kg->npay; q++) pay(g, p, kg->payer[q], kg->pts[q], XZ_REASON_TUI_SHUI);
            }
        }
    }
    finish(g);
}

static int next_dealer(const XzGame *g) { /* settlement.next_dealer; -1: by dice */
    int rule = g->rules->dealer_rule;
    if (rule == XZ_DEALER_RULE_DICE) return -1;
    if (!g->nwins) return g->dealer;
    int nfirst = 0;
    for (int i = 0; i < g->nwins; i++) nfirst += g->wins[i].order == 1;
    const XzWin *f = &g->wins[0];
    if (rule == XZ_DEALER_RULE_FIRST_WINNER) {
        if (nfirst > 1 && f->from >= 0) return f->from;
        return f->seat;
    }
    return f->from >= 0 ? f->from : f->seat;
}

static void finish(XzGame *g) {
    g->phase = XZ_PHASE_OVER;
    g->has_window = 0;
    for (int i = 0; i < 4; i++) g->seats[i].revealed = 1;
    g->next_dealer = next_dealer(g);
    emit(g, XZ_EVENT_END, 0, NULL);
}

/* --- exchange and dingque (Game._choose) ------------------------------------------------------- */
static void choose(XzGame *g, const XzAction *a) {
    XzSeat *s = &g->seats[a->seat];
    s->chosen = 1;
    s->choice = *a;
    emit(g, g->phase == XZ_PHASE_EXCHANGE ? XZ_EVENT_EXCHANGE_CHOSEN : XZ_EVENT_DINGQUE_CHOSEN, 1, (int64_t[]){a->seat});
    for (int i = 0; i < 4; i++)
        if (!g->seats[i].chosen) return;
    if (g->phase == XZ_PHASE_EXCHANGE) {
        static const int fixed[] = XZ_EXCHANGE_THREE_DIRECTIONS; /* 0: none, or random (drawn at the deal) */
        int direction = g->exchange_direction ? g->exchange_direction
                                              : fixed[g->rules->exchange_three] ? fixed[g->rules->exchange_three] : 1;
        g->exchange_direction = direction;
        for (int i = 0; i < 4; i++)
            for (int k = 0; k < 3; k++) seat_remove(&g->seats[i], g->seats[i].choice.tiles[k], 1);
        for (int i = 0; i < 4; i++) {
            int to = (i + direction) % 4;
            const uint8_t *tl = g->seats[i].choice.tiles;
            for (int k = 0; k < 3; k++) seat_add(&g->seats[to], tl[k]);
            int64_t w1[5] = {i, to, tl[0], tl[1], tl[2]};
            emit(g, XZ_EVENT_EXCHANGE, 5, w1);
            int64_t w2[4] = {to, tl[0], tl[1], tl[2]};
            emit(g, XZ_EVENT_EXCHANGE_RECEIVED, 4, w2);
        }
        if (g->drawn >= 0 && g->seats[g->dealer].counts[g->drawn] == 0) g->drawn = -1;
        for (int i = 0; i < 4; i++) g->seats[i].chosen = 0;
        emit(g, XZ_EVENT_EXCHANGE_DONE, 1, (int64_t[]){direction});
        if (g->rules->dingque) g->phase = XZ_PHASE_DINGQUE;
        else start_play(g);
        return;
    }
    int64_t voids[4];
    for (int i = 0; i < 4; i++) {
        g->seats[i].void_suit = g->seats[i].choice.suit;
        g->seats[i].wm = -1;
        g->seats[i].chosen = 0;
        voids[i] = g->seats[i].void_suit;
    }
    emit(g, XZ_EVENT_DINGQUE, 4, voids);
    start_play(g);
}

/* --- apply (Game.apply for a legal action) ----------------------------------------------------- */
void xz_apply(XzGame *g, const XzAction *a) {
    if (g->nactions < XZ_MAX_ACTIONS) g->actions[g->nactions++] = *a;
    else g->overflow = 1;
    int seat = a->seat;
    switch (g->phase) {
    case XZ_PHASE_TURN:
        if (a->type == XZ_ACTION_DISCARD) discard_tile(g, seat, a->tile);
        else if (a->type == XZ_ACTION_HU) self_drawn_win(g, seat);
        else if (a->type == XZ_ACTION_GANG) {
            if (g->seats[seat].counts[a->tile] == 4) angang(g, seat, a->tile);
            else start_bugang(g, seat, a->tile);
        }
        break;
    case XZ_PHASE_CLAIM:
    case XZ_PHASE_ROB: {
        XzWindow *w = &g->w;
        for (int i = 0; i < w->nopt; i++)
            if (w->options_seat[i] == seat) {
                w->answered[i] = 1;
                w->answers[i] = *a;
                w->answer_order[w->nanswers++] = i;
            }
        if (w->nanswers == w->nopt) resolve_window(g);
        break;
    }
    case XZ_PHASE_EXCHANGE:
    case XZ_PHASE_DINGQUE:
        choose(g, a);
        break;
    default:
        break;
    }
}

/* --- the decision loop (runtime.HandDriver.run) ------------------------------------------------ */
void xz_play(XzGame *g, XzBot *bots[4]) {
    XzAction legal[XZ_MAX_LEGAL];
    int seats[4];
    while (g->phase != XZ_PHASE_OVER && !g->overflow) {
        int np = xz_pending(g, seats), acted = 0;
        if (!np) return;
        for (int i = 0; i < np; i++) {
            int s = seats[i];
            int n = xz_legal(g, s, legal);
            if (!n) continue;
            int k = n > 1 ? bots[s]->choose(bots[s], g, s, legal, n) : 0;
            if (k < 0 || k >= n) k = 0; /* a broken bot: its first legal action (HandDriver.choose) */
            xz_apply(g, &legal[k]);
            acted = 1;
        }
        if (!acted) return; /* nobody can move (a loaded state that no hand reaches): stop, not spin */
    }
}

/* --- one action from outside (Game.apply and Game._why_illegal) -------------------------------- */
static int same_action(const XzAction *a, const XzAction *b) {
    if (a->seat != b->seat || a->type != b->type || a->tile != b->tile || a->suit != b->suit
        || a->ntiles != b->ntiles)
        return 0;
    for (int i = 0; i < a->ntiles && i < 3; i++)
        if (a->tiles[i] != b->tiles[i]) return 0;
    return 1;
}

const char *xz_try_apply(XzGame *g, const XzAction *a) {
    if (g->phase == XZ_PHASE_OVER) return "hand_over";
    if (a->seat > 3) return "bad_seat";
    XzAction legal[XZ_MAX_LEGAL];
    int n = xz_legal(g, a->seat, legal);
    for (int i = 0; i < n; i++)
        if (same_action(&legal[i], a)) {
            xz_apply(g, &legal[i]);
            return NULL;
        }
    int pend[4], np = xz_pending(g, pend), pending = 0;
    for (int i = 0; i < np; i++) pending |= pend[i] == a->seat;
    if (!pending) return "not_your_turn";
    unsigned types = 0;
    for (int i = 0; i < n; i++) types |= 1U << legal[i].type;
    const XzSeat *s = &g->seats[a->seat];
    if (a->type > XZ_ACTION_PASS || !(types >> a->type & 1)) {
        if (types == 1U << XZ_ACTION_HU) return "must_hu";
        if (a->type == XZ_ACTION_HU) {
            if (g->has_window && completes_with(&g->seats[a->seat], g->w.tile)
                && (s->pass_hu_any || (s->pass_hu >> g->w.tile & 1)))
                return "pass_hu_blocked";
            return "cannot_hu";
        }
        return "action_not_available";
    }
    if (a->type == XZ_ACTION_DISCARD) {
        if (a->tile >= XZ_KINDS || s->counts[a->tile] == 0) return "tile_not_in_hand";
        if (holds_void(s)) return "must_discard_void";
        return "must_discard_drawn";
    }
    if (a->type == XZ_ACTION_GANG) return "cannot_gang_tile";
    if (a->type == XZ_ACTION_EXCHANGE) return "bad_exchange_tiles";
    if (a->type == XZ_ACTION_DINGQUE) return "forced_dingque";
    return "illegal_action";
}

/* a copy of a hand: *dst = *src but for the unused tails of the ledger, the wins and the actions, most
 * of the struct's size (a play-out copies its world once an action and wall order) */
void xz_copy_game(XzGame *dst, const XzGame *src) {
#define XZ_SPAN(from, to) memcpy((char *)dst + offsetof(XzGame, from), (const char *)src + offsetof(XzGame, from), \
                                 offsetof(XzGame, to) - offsetof(XzGame, from))
    memcpy(dst, src, offsetof(XzGame, ledger));
    memcpy(dst->ledger, src->ledger, sizeof(XzEntry) * (size_t)src->nledger);
    XZ_SPAN(nledger, wins);
    memcpy(dst->wins, src->wins, sizeof(XzWin) * (size_t)src->nwins);
    XZ_SPAN(nwins, actions);
    memcpy(dst->actions, src->actions, sizeof(XzAction) * (size_t)src->nactions);
    memcpy((char *)dst + offsetof(XzGame, nactions), (const char *)src + offsetof(XzGame, nactions),
           sizeof(XzGame) - offsetof(XzGame, nactions));
#undef XZ_SPAN
}

/* ------------------------------------------------------------------------------------------
 * The worlds of a search (engine.views.sample_world), dealt in the core from the generator of
 * the search, draw for draw as the Python function deals them.
 * ------------------------------------------------------------------------------------------ */
uint64_t xz_mt_bits64(XzMT *m) { /* Random.getrandbits(64): the low word drawn first */
    uint64_t lo = mt_next(m);
    return lo | (uint64_t)mt_next(m) << 32;
}

static void seat_set_counts(XzSeat *s, const int8_t *counts) {
    memset(s->counts, 0, sizeof s->counts);
    s->held = 0;
    s->keys[0] = s->keys[1] = s->keys[2] = 0;
    s->sizes[0] = s->sizes[1] = s->sizes[2] = 0;
    for (int t = 0; t < 27; t++)
        for (int c = 0; c < counts[t]; c++) seat_add(s, t);
    s->wm = -1;
    s->pass_hu = 0;
    s->pass_hu_any = 0;
    s->chosen = 0;
}

int xz_deal_world(XzGame *g, const XzDeal *d, XzMT *mt) {
    uint8_t pool[108], rest[108];
    int np = 0, unseen[27];
    memcpy(unseen, d->unseen, sizeof unseen);
    for (int h = 0; h < d->nhidden; h++) { /* the hands given: sample_world's ValueError, before any draw */
        if (!d->given[h]) continue;
        int n = 0;
        for (int t = 0; t < 27; t++) {
            n += d->hand[h][t];
            unseen[t] -= d->hand[h][t];
            if (d->hand[h][t] < 0 || unseen[t] < 0) return -2;
        }
        if (n != d->n[h]) return -2;
    }
    for (int t = 0; t < 27; t++)
        for (int c = 0; c < unseen[t]; c++) {
            if (np >= 108) return -1;
            pool[np++] = (uint8_t)t;
        }
    for (int h = 0; h < d->nhidden; h++) { /* face-down kongs: four copies of a tile nobody has seen */
        int o = d->hidden[h];
        XzSeat *s = &g->seats[o];
        for (int i = 0; i < s->nmelds; i++) {
            if (s->melds[i].kind != XZ_MELD_ANGANG) continue;
            int kinds[27], nk = 0;
            for (int t = 0; t < 27; t++)
                if (unseen[t] == 4 && t / 9 != s->void_suit) kinds[nk++] = t;
            if (!nk) /* the kinds outside the void went to earlier kongs: any kind with four unseen copies */
                for (int t = 0; t < 27; t++)
                    if (unseen[t] == 4) kinds[nk++] = t;
            if (!nk) return -2; /* only the given hands can have taken them */
            int t = kinds[mt_randbelow(mt, (uint32_t)nk)], kept = 0;
            unseen[t] = 0;
            for (int q = 0; q < np; q++)
                if (pool[q] != t) pool[kept++] = pool[q];
            np = kept;
            for (int k = 0; k < g->nkongs; k++) {
                XzKong *kg = &g->kongs[k];
                if (kg->seat == o && kg->kind == XZ_REASON_ANGANG && kg->tile == s->melds[i].tile) {
                    kg->tile = t;
                    break;
                }
            }
            s->melds[i].tile = (uint8_t)t;
        }
        s->meld_suits = 0;
        for (int i = 0; i < s->nmelds; i++) s->meld_suits |= 1 << (s->melds[i].tile / 9);
    }
    for (int i = np - 1; i > 0; i--) { /* Random.shuffle */
        int j = mt_randbelow(mt, (uint32_t)(i + 1));
        uint8_t x = pool[i];
        pool[i] = pool[j];
        pool[j] = x;
    }
    for (int h = 0; h < d->nhidden; h++) {
        int n = d->n[h], nr = 0;
        int8_t counts[27] = {0};
        if (d->given[h]) {
            seat_set_counts(&g->seats[d->hidden[h]], d->hand[h]);
            continue;
        }
        if (n > np) return -1;
        if (d->weighted) {
            /* weighted draws without replacement: the n smallest exponential keys, ties in pool order */
            double keys[108];
            int order[108];
            char chosen[108] = {0};
            for (int i = 0; i < np; i++) {
                keys[i] = d->scale[h][pool[i]] * (1e-300 - log(1.0 - xz_mt_random(mt)));
                int k = i;
                while (k > 0 && keys[order[k - 1]] > keys[i]) {
                    order[k] = order[k - 1];
                    k--;
                }
                order[k] = i;
            }
            for (int i = 0; i < n; i++) {
                chosen[order[i]] = 1;
                counts[pool[order[i]]]++;
            }
            for (int i = 0; i < np; i++)
                if (!chosen[i]) rest[nr++] = pool[i];
        } else if (!d->no_void[h]) {
            for (int i = 0; i < n; i++) counts[pool[i]]++;
            for (int i = n; i < np; i++) rest[nr++] = pool[i];
        } else {
            int taken = 0, v = d->void_suit[h];
            for (int i = 0; i < np; i++) {
                if (taken < n && pool[i] / 9 != v) {
                    counts[pool[i]]++;
                    taken++;
                } else {
                    rest[nr++] = pool[i];
                }
            }
            int extra = n - taken; /* not enough tiles outside the void: fill up with any */
            for (int i = 0; i < extra; i++) counts[rest[i]]++;
            memmove(rest, rest + extra, (size_t)(nr - extra));
            nr -= extra;
        }
        memcpy(pool, rest, (size_t)nr);
        np = nr;
        seat_set_counts(&g->seats[d->hidden[h]], counts);
    }
    if (np - d->n_by != g->tail - g->head) return -1;
    memcpy(g->wall + g->head, pool + d->n_by, (size_t)(g->tail - g->head));
    if (g->has_window) { /* the claimants worked out again from the dealt hands, the seat's own kept */
        XzWindow *w = &g->w, fresh;
        if (w->robbing) rob_options(g, w->source, w->tile, &fresh);
        else claim_options(g, w->source, w->tile, &fresh);
        int keep = -1;
        for (int i = 0; i < w->nopt; i++)
            if (w->options_seat[i] == d->me) keep = i;
        XzWindow old = *w;
        w->nopt = 0;
        for (int k = 1; k < 4; k++) {
            int o = (w->source + k) % 4, i = w->nopt;
            if (o == d->me && keep >= 0) {
                memcpy(w->options[i], old.options[keep], sizeof old.options[keep]);
                w->noptions[i] = old.noptions[keep];
            } else {
                int f = -1;
                for (int q = 0; q < fresh.nopt; q++)
                    if (fresh.options_seat[q] == o) f = q;
                if (f < 0) continue;
                memcpy(w->options[i], fresh.options[f], sizeof fresh.options[f]);
                w->noptions[i] = fresh.noptions[f];
            }
            w->options_seat[i] = o;
            w->nopt++;
        }
        w->nanswers = 0;
        for (int i = 0; i < 3; i++) w->answered[i] = 0;
    }
    return 0;
}

int xz_deal_ready_world(XzGame *g, const XzGame *base, XzDeal *d, XzMT *mt, const int *check, int ncheck, int tries) {
    for (int k = 0; k < tries; k++) {
        xz_copy_game(g, base);
        int r = xz_deal_world(g, d, mt);
        if (r == -2) { /* the given hands do not fit: a world of the plain deal */
            int given[3];
            memcpy(given, d->given, sizeof given);
            memset(d->given, 0, sizeof d->given);
            xz_copy_game(g, base);
            r = xz_deal_world(g, d, mt);
            memcpy(d->given, given, sizeof given);
            return r;
        }
        if (r < 0) return r;
        int ready = 0, waits[27];
        for (int i = 0; i < ncheck && !ready; i++) ready = seat_waits(g, check[i], waits) > 0;
        if (!ready) return 0;
    }
    return 0;
}
