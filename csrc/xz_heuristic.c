/* The heuristic bot, compiled: bots.heuristic.HeuristicBot, decision by decision.
 *
 * Each function names the method it mirrors and keeps its order: the same candidates in the same
 * order, the same keys compared the same way (Python's min and max keep the first of equal keys),
 * and the same floats. Readiness, danger and values are computed in doubles in Python's order of
 * operations, and the build turns off floating-point contraction (setup.py), so no multiply-add is
 * fused and every comparison and tie comes out as in Python. The bot draws no random numbers: its
 * choice is a function of what its seat sees, as in Python.
 *
 * Shanten is hand.shanten's (two suits at most, no void tiles, seven pairs), on the per-suit
 * distance tables of tools/gen_tables.py, built here once: for every suit key the fewest tiles to
 * add so the suit holds m sets and p pairs (a min-plus transform of the targets, one pass per
 * rank), shared by the keys with the same row (a profile), and the two-suit minimum by profiles. */
#include "xz_reading.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------------------------
 * Shanten tables (hand._load_tables, rebuilt as tools/gen_tables.py builds them)
 * ------------------------------------------------------------------------------------------ */
#define NKEYS 1953125
#define INF 99
#define P5 xz_p5
static uint16_t *sh_key; /* key -> distance profile | seven-pairs code (min(pairs, 7) * 32 + odd kinds) << 8 */
static uint8_t sh_rows[256][10];
static int sh_nprof;
static uint8_t *sh_two; /* (profile a * nprof + profile b) * 5 + w -> two suits' distance to w sets plus a pair */

/* mark every suit holding ``sets`` sets (pungs 0-8, runs 9-15, in non-decreasing order) plus ``pair`` pairs */
static void mark_targets(uint8_t *f, int8_t *c, int32_t key, int sets, int from, int pair) {
    if (!sets) {
        if (!pair) {
            f[key] = 0;
            return;
        }
        for (int r = 0; r < 9; r++)
            if (c[r] + 2 <= 4) f[key + 2 * P5[r]] = 0;
        return;
    }
    for (int s = from; s < 16; s++) {
        if (s < 9) {
            if (c[s] + 3 > 4) continue;
            c[s] += 3;
            mark_targets(f, c, key + 3 * P5[s], sets - 1, s, pair);
            c[s] -= 3;
        } else {
            int r = s - 9;
            if (c[r] >= 4 || c[r + 1] >= 4 || c[r + 2] >= 4) continue;
            c[r]++; c[r + 1]++; c[r + 2]++;
            mark_targets(f, c, key + P5[r] + P5[r + 1] + P5[r + 2], sets - 1, s, pair);
            c[r]--; c[r + 1]--; c[r + 2]--;
        }
    }
}

/* gen_tables.transform: f[key] becomes the fewest tiles to add to key to hold a marked target
 * (sum over ranks of max(0, target - key)), one rank axis at a time */
static void transform(uint8_t *g) {
    for (int r = 0; r < 9; r++) {
        int32_t stride = P5[r];
        for (int32_t hi = 0; hi < NKEYS; hi += 5 * stride) {
            uint8_t *a0 = g + hi, *a1 = a0 + stride, *a2 = a1 + stride, *a3 = a2 + stride, *a4 = a3 + stride;
            for (int32_t lo = 0; lo < stride; lo++) {
                int x0 = a0[lo], x1 = a1[lo], x2 = a2[lo], x3 = a3[lo], x4 = a4[lo];
                /* h keeps a target with fewer copies (prefix minimum) or adds up to one with more */
                int p1 = x0 < x1 ? x0 : x1, p2 = p1 < x2 ? p1 : x2, p3 = p2 < x3 ? p2 : x3, p4 = p3 < x4 ? p3 : x4;
                int s3 = x4 + 1;
                int s2 = x3 + 1 < s3 + 1 ? x3 + 1 : s3 + 1;
                int s1 = x2 + 1 < s2 + 1 ? x2 + 1 : s2 + 1;
                int s0 = x1 + 1 < s1 + 1 ? x1 + 1 : s1 + 1;
                a0[lo] = (uint8_t)(x0 < s0 ? x0 : s0);
                a1[lo] = (uint8_t)(p1 < s1 ? p1 : s1);
                a2[lo] = (uint8_t)(p2 < s2 ? p2 : s2);
                a3[lo] = (uint8_t)(p3 < s3 ? p3 : s3);
                a4[lo] = (uint8_t)p4;
            }
        }
    }
}

static int build_tables(void) {
    uint8_t *dist = malloc((size_t)NKEYS * 10);
    uint16_t *keys = malloc(sizeof(uint16_t) * NKEYS);
    if (!dist || !keys) {
        free(dist);
        free(keys);
        return -1;
    }
    for (int col = 0; col < 10; col++) {
        uint8_t *f = dist + (size_t)col * NKEYS;
        int8_t c[9] = {0};
        memset(f, INF, NKEYS);
        mark_targets(f, c, 0, col >> 1, 0, col & 1);
        transform(f);
    }
    /* the distinct rows (126 of them), found by a small open-addressing table of packed rows */
    uint64_t seen[1024];
    int16_t ids[1024];
    memset(ids, -1, sizeof ids);
    int nprof = 0;
    for (int32_t k = 0; k < NKEYS; k++) {
        uint64_t packed = 0;
        for (int col = 0; col < 10; col++) packed |= (uint64_t)dist[(size_t)col * NKEYS + k] << (6 * col);
        uint32_t h = (uint32_t)((packed * 0x9E3779B97F4A7C15ULL) >> 54);
        while (ids[h] >= 0 && seen[h] != packed) h = (h + 1) & 1023;
        if (ids[h] < 0) {
            if (nprof == 256) {
                free(dist);
                free(keys);
                return -1;
            }
            seen[h] = packed;
            ids[h] = (int16_t)nprof;
            for (int col = 0; col < 10; col++) sh_rows[nprof][col] = dist[(size_t)col * NKEYS + k];
            nprof++;
        }
        int pairs = 0, odd = 0;
        for (int32_t v = k, r = 0; r < 9; r++, v /= 5) {
            pairs += (v % 5) >> 1;
            odd += (v % 5) & 1;
        }
        keys[k] = (uint16_t)(ids[h] | ((pairs < 7 ? pairs : 7) * 32 + odd) << 8);
    }
    free(dist);
    uint8_t *two = malloc((size_t)nprof * (size_t)nprof * 5);
    if (!two) {
        free(keys);
        return -1;
    }
    for (int a = 0; a < nprof; a++)
        for (int b = 0; b < nprof; b++)
            for (int w = 0; w < 5; w++) { /* gen_tables.combine, the pair in either suit */
                int v = INF;
                for (int i = 0; i <= w; i++) {
                    int j = w - i;
                    int x = sh_rows[a][2 * i + 1] + sh_rows[b][2 * j], y = sh_rows[a][2 * i] + sh_rows[b][2 * j + 1];
                    if (x < v) v = x;
                    if (y < v) v = y;
                }
                two[((size_t)a * (size_t)nprof + (size_t)b) * 5 + (size_t)w] = (uint8_t)v;
            }
    sh_nprof = nprof;
    sh_key = keys;
    sh_two = two;
    return 0;
}

int xz_shanten(const int32_t keys[3], int n_melds, int meld_suits, int void_suit) {
    static const int pick[3][2] = {{0, 1}, {0, 2}, {1, 2}};
    int want = n_melds < 4 ? 4 - n_melds : 0;
    int best = INF;
    for (int i = 0; i < 3; i++) { /* hand._suit_choices: two suits, none void, holding every meld */
        int a = pick[i][0], b = pick[i][1];
        if (a == void_suit || b == void_suit || (meld_suits & ~((1 << a) | (1 << b)))) continue;
        uint16_t x = sh_key[keys[a]], y = sh_key[keys[b]];
        int v = sh_two[((x & 255) * sh_nprof + (y & 255)) * 5 + want];
        if (n_melds == 0) { /* seven pairs (hand._SEVEN_DISTANCE) */
            int code = (x >> 8) + (y >> 8);
            int pairs = code >> 5 < 7 ? code >> 5 : 7, odd = code & 31;
            int d = 14 - 2 * pairs - (odd < 7 - pairs ? odd : 7 - pairs);
            if (d < v) v = d;
        }
        if (v < best) best = v;
    }
    return best < INF ? best - 1 : INF;
}

/* ------------------------------------------------------------------------------------------
 * What the seat sees (engine.views.SeatView) and reads of the table
 * ------------------------------------------------------------------------------------------ */
static inline int hb_shanten(const Hb *h, int n, int meld_suits) {
    return xz_shanten(h->keys, n, meld_suits, h->void_suit);
}

/* SeatView.melds(o) as another seat sees them: face-down kongs left out until the hand is laid down */
static inline int meld_in_sight(const XzGame *g, int me, int o, const XzMeld *m) {
    return o == me || g->seats[o].revealed || m->kind != XZ_MELD_ANGANG;
}

static void visible_counts(const XzGame *g, int me, int *vis) { /* SeatView.visible_counts */
    for (int t = 0; t < 27; t++) vis[t] = g->seats[me].counts[t];
    for (int i = 0; i < 4; i++) {
        const XzSeat *s = &g->seats[i];
        for (int k = 0; k < s->nmelds; k++)
            if (meld_in_sight(g, me, i, &s->melds[k])) vis[s->melds[k].tile] += meld_size(&s->melds[k]);
        for (int k = 0; k < s->nriver; k++)
            if (s->river_state[k] != XZ_RIVER_CLAIMED) vis[s->river[k]]++;
        for (int k = 0; k < s->naside; k++) vis[s->aside[k]]++;
        if (i != me && s->revealed)
            for (int t = 0; t < 27; t++) vis[t] += s->counts[t];
    }
    if (g->pending_bugang >= 0) vis[g->pending_bugang]++;
}

/* HeuristicBot's tunables come from xz_gen.h (XZ_H_*: written from the Python class) */
static const double RANK_WEIGHT[9] = XZ_H_RANK_WEIGHT;

static double readiness(const XzGame *g, int o) { /* HeuristicBot.readiness */
    static const double base_by_melds[5] = XZ_H_READY_BY_MELDS;
    const XzSeat *s = &g->seats[o];
    int melds = s->nmelds; /* the melds in sight plus the face-down kongs: all of them */
    double base = base_by_melds[melds < 4 ? melds : 4];
    int turns = s->nriver;
    double late = (turns - 5 > 0 ? turns - 5 : 0) * 0.065;
    if (late > 0.65) late = 0.65;
    double p = 1.0 - (1.0 - base) * (1.0 - late);
    for (int k = turns > 3 ? turns - 3 : 0; k < turns; k++) {
        int t = s->river[k], r = t % 9;
        if (t / 9 != s->void_suit && r >= 2 && r <= 6 && turns > 6) p += 0.06;
    }
    return p > 0.97 ? 0.97 : p;
}

static double wait_weight(const Hb *h, int o, int t) { /* HeuristicBot.wait_weight */
    const XzSeat *s = &h->g->seats[o];
    int su = t / 9;
    if (s->void_suit == su) return 0.0;
    int seen = h->visible[t];
    if (seen >= 4) return 0.0;
    double w = RANK_WEIGHT[t % 9];
    for (int k = 0; k < s->nriver; k++)
        if (s->river[k] == t) {
            w *= 0.35;
            break;
        }
    if (seen == 3) w *= 0.35;
    else if (seen == 2) w *= 0.8;
    int n = 0, in_suit = 0;
    for (int k = 0; k < s->nmelds; k++) {
        if (!meld_in_sight(h->g, h->seat, o, &s->melds[k])) continue;
        n++;
        in_suit += s->melds[k].tile / 9 == su;
    }
    if (n) {
        if (in_suit == n) w *= 1.0 + 0.4 * in_suit;
        else if (in_suit == 0) w *= 0.6;
    }
    return w;
}

static void threats(Hb *h) { /* HeuristicBot.threats */
    const XzGame *g = h->g;
    h->nthreats = 0;
    for (int o = 0; o < 4; o++) {
        if (o == h->seat) continue;
        const XzSeat *s = &g->seats[o];
        if (s->won && !g->rules->blood_river) continue;
        int n = 0, kongs = 0;
        for (int k = 0; k < s->nmelds; k++) {
            if (!meld_in_sight(g, h->seat, o, &s->melds[k])) continue;
            n++;
            kongs += s->melds[k].kind != XZ_MELD_PENG;
        }
        int i = h->nthreats++;
        h->th_seat[i] = o;
        h->th_worth[i] = 1.0 + 0.5 * kongs + 0.25 * n;
        h->th_p[i] = s->won ? 0.97 : readiness(g, o);
    }
}

static double danger(const Hb *h, int t) { /* HeuristicBot.danger */
    const XzGame *g = h->g;
    double d = 0.0;
    for (int i = 0; i < h->nthreats; i++) {
        int o = h->th_seat[i];
        if (g->seats[o].won) {
            for (int k = 0; k < g->nwins; k++)
                if (g->wins[k].seat == o && g->wins[k].tile == t) {
                    d += 3.0 * h->th_worth[i]; /* blood_river: a winner waits on what it won on */
                    break;
                }
            continue;
        }
        d += h->th_p[i] * h->th_worth[i] * wait_weight(h, o, t);
    }
    return d;
}

/* Python's round(x, 3): the decimal nearest x with three digits (ties to even on x's exact value),
 * read back; the C library's printf and strtod are exact, as Python's own dtoa is */
static double round3(double x) {
    char buf[64];
    snprintf(buf, sizeof buf, "%.3f", x);
    return strtod(buf, NULL);
}

/* _suit_value: (tiles in the suit, pairs * 2 + neighbours) */
static void suit_value(const int8_t *counts, int suit, int *n, int *shape) {
    const int8_t *c = counts + suit * 9;
    int size = 0, pairs = 0, links = 0;
    for (int r = 0; r < 9; r++) {
        size += c[r];
        pairs += c[r] >= 2;
    }
    for (int r = 0; r < 8; r++) links += c[r] && c[r + 1];
    for (int r = 0; r < 7; r++) links += c[r] && c[r + 2];
    *n = size;
    *shape = pairs * 2 + links;
}

/* ------------------------------------------------------------------------------------------
 * Decisions (HeuristicBot.choose and its parts)
 * ------------------------------------------------------------------------------------------ */
static int dingque(const Hb *h, const XzAction *legal, int n) { /* min by (_suit_value, suit) */
    int best = 0, bn = 0, bs = 0;
    for (int i = 0; i < n; i++) {
        int sn, ss;
        suit_value(h->counts, legal[i].suit, &sn, &ss);
        if (i == 0 || sn < bn || (sn == bn && (ss < bs || (ss == bs && legal[i].suit < legal[best].suit)))) {
            best = i; bn = sn; bs = ss;
        }
    }
    return best;
}

static int exchange(Hb *h, const XzAction *legal, int n) { /* HeuristicBot._exchange */
    int sizes[3], suit = -1, best_size = 0, best_shape = 0;
    for (int s = 0; s < 3; s++) {
        int size, shape;
        suit_value(h->counts, s, &size, &shape);
        sizes[s] = size;
        if (size < 3) continue;
        if (suit < 0 || size < best_size || (size == best_size && shape < best_shape)) {
            suit = s; best_size = size; best_shape = shape;
        }
    }
    (void)sizes;
    int best = -1, best_cost = 0;
    for (int i = 0; i < n; i++) {
        const XzAction *a = &legal[i];
        if (!a->ntiles || a->tiles[0] / 9 != suit) continue;
        for (int k = 0; k < 3; k++) hb_move(h, a->tiles[k], -1);
        int cost = xz_shanten(h->keys, 0, 0, -1);
        for (int k = 0; k < 3; k++) hb_move(h, a->tiles[k], 1);
        if (best < 0 || cost < best_cost) {
            best = i; best_cost = cost;
        }
    }
    return best < 0 ? 0 : best;
}

/* HeuristicBot.qing_suit: the suit of a 清一色 plan, or -1 */
static int qing_suit(Hb *h, int now) {
    const XzSeat *me = &h->g->seats[h->seat];
    int sizes[3];
    for (int s = 0; s < 3; s++) {
        sizes[s] = 0;
        for (int r = 0; r < 9; r++) sizes[s] += h->counts[s * 9 + r];
    }
    for (int k = 0; k < me->nmelds; k++) sizes[me->melds[k].tile / 9] += 3;
    int suit = -1;
    for (int s = 0; s < 3; s++)
        if (s != h->void_suit && (suit < 0 || sizes[s] > sizes[suit])) suit = s;
    for (int k = 0; k < me->nmelds; k++)
        if (me->melds[k].tile / 9 != suit) return -1;
    int total = sizes[0] + sizes[1] + sizes[2];
    int live = h->live;
    int need = live > 40 ? 9 : live > 25 ? 10 : 12;
    if (sizes[suit] * 14 < need * total) return -1;
    int32_t one[3] = {0, 0, 0};
    one[suit] = h->keys[suit];
    int qsh = xz_shanten(one, me->nmelds, 1 << suit, -1);
    static const int qing_slack[3] = XZ_H_QING_SLACK;
    int slack = qing_slack[live > 45 ? 0 : live > 25 ? 1 : 2];
    int64_t cap = h->g->rules->cap_multiple;
    if (cap && cap <= 8) slack -= 1; /* a capped hand gains less from 清一色's ×4 */
    return qsh <= now + slack ? suit : -1;
}

static int find_type(const XzAction *legal, int n, int type) {
    for (int i = 0; i < n; i++)
        if (legal[i].type == type) return i;
    return 0;
}

static int claim(Hb *h, const XzAction *legal, int n) { /* HeuristicBot._claim */
    int t = h->g->w.tile;
    int nm = h->n, ms = h->meld_suits;
    int now = hb_shanten(h, nm, ms);
    int qing = qing_suit(h, now);
    if (qing >= 0 && t / 9 != qing) return find_type(legal, n, XZ_ACTION_PASS);
    int ms2 = ms | 1 << (t / 9);
    for (int i = 0; i < n; i++) {
        if (legal[i].type != XZ_ACTION_GANG) continue;
        hb_move(h, t, -3);
        int after = hb_shanten(h, nm + 1, ms2);
        hb_move(h, t, 3);
        if (after <= now || (XZ_H_FAR_KONG && now >= 2 && after == now + 1 && h->live > 20)) return i;
    }
    for (int i = 0; i < n; i++) {
        if (legal[i].type != XZ_ACTION_PENG) continue;
        hb_move(h, t, -2);
        int best = 99;
        for (int d = 0; d < 27; d++) {
            if (!h->counts[d]) continue;
            hb_move(h, d, -1);
            int v = hb_shanten(h, nm + 1, ms2);
            hb_move(h, d, 1);
            if (v < best) best = v;
        }
        hb_move(h, t, 2);
        if (best < now || (best == now && now <= 1)) return i;
        if (XZ_H_PUNG_PLAN && best == now) { /* pung_plan: 对对胡 shape (pung_shape) or the 清一色 suit */
            int shape = nm;
            for (int u = 0; u < 27; u++) shape += h->counts[u] >= 2;
            if (qing >= 0 || shape >= 5) return i;
        }
    }
    return find_type(legal, n, XZ_ACTION_PASS);
}

/* HeuristicBot._kong: a concealed or added kong that costs no shanten, or -1 */
static int kong(Hb *h, const XzAction *legal, int n, int now) {
    for (int i = 0; i < n; i++) {
        if (legal[i].type != XZ_ACTION_GANG) continue;
        int t = legal[i].tile, after;
        if (t / 9 == h->void_suit) continue;
        if (h->counts[t] == 4) {
            hb_move(h, t, -4);
            after = hb_shanten(h, h->n + 1, h->meld_suits | 1 << (t / 9));
            hb_move(h, t, 4);
        } else { /* added kong: the tile leaves the hand, the peng becomes a kong */
            hb_move(h, t, -1);
            after = hb_shanten(h, h->n, h->meld_suits);
            hb_move(h, t, 1);
        }
        if (after <= now || (XZ_H_FAR_KONG && now >= 2 && after == now + 1 && h->live > 20)) return i;
    }
    return -1;
}

/* hand.winning_tiles of the 13-equivalent hand in h with owned copies */
static int winning_tiles(const Hb *h, const int *owned, int *out) {
    int sizes[3] = {0, 0, 0};
    for (int t = 0; t < 27; t++) sizes[t / 9] += h->counts[t];
    if (sizes[0] + sizes[1] + sizes[2] + 3 * h->n != 13) return 0;
    int mask = (sizes[0] > 0) | (sizes[1] > 0) << 1 | (sizes[2] > 0) << 2 | h->meld_suits;
    int v = h->void_suit;
    if (v >= 0 && (mask >> v & 1)) return 0;
    int k = 0;
    for (int t = 0; t < 27; t++) {
        if (h->counts[t] >= 4 || owned[t] >= 4) continue;
        int m = mask | 1 << (t / 9);
        if (m == 7 || (v >= 0 && (m >> v & 1))) continue;
        int32_t keys[3] = {h->keys[0], h->keys[1], h->keys[2]};
        keys[t / 9] += P5[t % 9];
        if (xz_complete_keys(keys[0], keys[1], keys[2], h->n == 0)) out[k++] = t;
    }
    return k;
}

/* HeuristicBot._ready_discard: keep the waits worth most (live copies × points) against danger */
static int ready_discard(Hb *h, const XzAction *legal, const int *fin, int nfin) {
    const XzGame *g = h->g;
    const XzSeat *me = &g->seats[h->seat];
    int owned[27];
    for (int t = 0; t < 27; t++) owned[t] = h->counts[t];
    for (int k = 0; k < me->nmelds; k++) owned[me->melds[k].tile] += meld_size(&me->melds[k]);
    double base = (double)g->rules->base_score;
    int best = -1;
    double best_v = 0.0;
    for (int f = 0; f < nfin; f++) {
        int i = fin[f], t = legal[i].tile;
        hb_move(h, t, -1);
        owned[t]--;
        double ev = 0.0;
        int waits[27];
        int nw = winning_tiles(h, owned, waits);
        for (int k = 0; k < nw; k++) {
            int w = waits[k], live = 4 - h->visible[w];
            if (live <= 0) continue;
            int8_t won[27];
            memcpy(won, h->counts, 27);
            won[w]++;
            ev += (double)(live * xz_discard_win_points(g->rules, won, me));
        }
        hb_move(h, t, 1);
        owned[t]++;
        double v = ev - 3.0 * base * danger(h, t);
        if (best < 0 || v > best_v || (v == best_v && t < legal[best].tile)) {
            best = i; best_v = v;
        }
    }
    return best;
}

static int turn(Hb *h, const XzAction *legal, int n) { /* HeuristicBot._turn */
    const XzGame *g = h->g;
    int nm = h->n, ms = h->meld_suits, v = h->void_suit;
    int disc[XZ_KINDS], nd = 0, has_gang = 0;
    for (int i = 0; i < n; i++) {
        if (legal[i].type == XZ_ACTION_DISCARD && nd < XZ_KINDS) disc[nd++] = i;
        has_gang |= legal[i].type == XZ_ACTION_GANG;
    }
    int now = hb_shanten(h, nm, ms);
    if (has_gang) {
        int k = kong(h, legal, n, now);
        if (k >= 0) return k;
    }
    if (nd == 1) return disc[0];
    if (nd == 0) return 0;
    /* quick play reads no danger: the copies in sight matter only to a ready hand's waits */
    if (h->quick) {
        memset(h->visible, 0, sizeof h->visible);
        h->nthreats = 0;
    } else {
        visible_counts(g, h->seat, h->visible);
        threats(h);
    }
    double top = 0.0;
    for (int i = 0; i < h->nthreats; i++)
        if (h->th_p[i] > top) top = h->th_p[i];
    int holding_void = 0;
    for (int r = 0; v >= 0 && r < 9; r++) holding_void |= h->counts[v * 9 + r] > 0;
    if (holding_void) {
        int voids[XZ_KINDS], nv = 0;
        for (int k = 0; k < nd; k++)
            if (legal[disc[k]].tile / 9 == v) voids[nv++] = disc[k];
        if (!nv) {
            memcpy(voids, disc, sizeof(int) * (size_t)nd);
            nv = nd;
        }
        int best = -1;
        double bd = 0.0;
        int safest = top >= XZ_H_VOID_SAFE_AT; /* someone may be ready: the safest void tile; else the most dangerous early */
        for (int k = 0; k < nv; k++) {
            int i = voids[k], t = legal[i].tile;
            double d = danger(h, t);
            int better = best < 0 || (safest ? (d < bd || (d == bd && t < legal[best].tile))
                                             : (d > bd || (d == bd && t < legal[best].tile)));
            if (better) {
                best = i; bd = d;
            }
        }
        return best;
    }
    int sh[XZ_KINDS];
    int best_sh = 0;
    for (int k = 0; k < nd; k++) {
        int t = legal[disc[k]].tile;
        hb_move(h, t, -1);
        sh[k] = hb_shanten(h, nm, ms);
        hb_move(h, t, 1);
        if (k == 0 || sh[k] < best_sh) best_sh = sh[k];
    }
    int fold = (best_sh >= 2 && top >= XZ_H_FOLD_AT) || (best_sh == 1 && top >= 0.85 && h->live < 20);
    if (h->nthreats && fold) { /* the safest tile (the closest hand among equally safe ones) */
        int best = -1;
        double bd = 0.0;
        for (int k = 0; k < nd; k++) {
            int i = disc[k], t = legal[i].tile;
            double d = round3(danger(h, t));
            if (best < 0 || d < bd || (d == bd && (sh[k] < sh[best] || (sh[k] == sh[best] && t < legal[disc[best]].tile)))) {
                best = k; bd = d;
            }
        }
        return disc[best];
    }
    int fin[XZ_KINDS], nfin = 0;
    for (int k = 0; k < nd; k++)
        if (sh[k] == best_sh) fin[nfin++] = disc[k];
    int qing = qing_suit(h, best_sh);
    if (qing >= 0) { /* the plan throws the other suit: its least useful tile, lowest shanten first */
        int low = -1;
        for (int k = 0; k < nd; k++)
            if (legal[disc[k]].tile / 9 != qing && (low < 0 || sh[k] < low)) low = sh[k];
        if (low >= 0) {
            nfin = 0;
            for (int k = 0; k < nd; k++)
                if (legal[disc[k]].tile / 9 != qing && sh[k] == low) fin[nfin++] = disc[k];
            best_sh = low;
        }
    }
    if (nfin == 1) return fin[0];
    if (best_sh == 0) {
        if (h->quick) visible_counts(g, h->seat, h->visible);
        return ready_discard(h, legal, fin, nfin);
    }
    if (best_sh >= 2 || h->quick) { /* the most isolated tile: (-near, edge, -danger late, -tile), max */
        int late = h->live < 30;
        int best = -1, bnear = 0, bedge = 0;
        double bd = 0.0;
        for (int f = 0; f < nfin; f++) {
            int i = fin[f], t = legal[i].tile, s = t / 9, r = t % 9;
            int near = -1;
            for (int x = r - 2 > 0 ? r - 2 : 0; x <= (r + 2 < 8 ? r + 2 : 8); x++) near += h->counts[s * 9 + x];
            int edge = r == 0 || r == 8;
            double d = late ? danger(h, t) : 0.0;
            int better = best < 0 || near < bnear
                         || (near == bnear && (edge > bedge || (edge == bedge && (d < bd
                         || (d == bd && t < legal[best].tile)))));
            if (better) {
                best = i; bnear = near; bedge = edge; bd = d;
            }
        }
        return best;
    }
    /* one step from ready: live effective tiles, worth more toward 七对 / 清一色, against danger */
    int pairs = 0;
    for (int u = 0; u < 27; u++) pairs += h->counts[u] >= 2;
    int best = -1;
    double bv = 0.0;
    for (int f = 0; f < nfin; f++) {
        int i = fin[f], t = legal[i].tile;
        hb_move(h, t, -1);
        int uk = 0;
        for (int u = 0; u < 27; u++) {
            if (u / 9 == v || h->visible[u] >= 4) continue;
            hb_move(h, u, 1);
            if (hb_shanten(h, nm, ms) < best_sh) uk += 4 - h->visible[u];
            hb_move(h, u, -1);
        }
        hb_move(h, t, 1);
        double d = danger(h, t);
        double bonus = 1.0 + (nm == 0 && pairs >= 5 && h->counts[t] != 2 ? 0.4 : 0.0);
        double val = uk * bonus - XZ_H_DANGER_WEIGHT * d;
        if (best < 0 || val > bv || (val == bv && t < legal[best].tile)) {
            best = i; bv = val;
        }
    }
    return best;
}

static int heuristic_decide(const XzGame *g, int seat, const XzAction *legal, int n, int quick) {
    if (n <= 1) return 0;
    for (int i = 0; i < n; i++)
        if (legal[i].type == XZ_ACTION_HU) return i;
    Hb h;
    xz_hb_init(&h, g, seat, quick);
    switch (legal[0].type) {
    case XZ_ACTION_DINGQUE:
        return dingque(&h, legal, n);
    case XZ_ACTION_EXCHANGE:
        return exchange(&h, legal, n);
    default:
        return g->phase == XZ_PHASE_TURN ? turn(&h, legal, n) : claim(&h, legal, n);
    }
}

static int heuristic_choose(XzBot *bot, const XzGame *g, int seat, const XzAction *legal, int n) {
    (void)bot;
    return heuristic_decide(g, seat, legal, n, 0);
}

static int heuristic_quick_choose(XzBot *bot, const XzGame *g, int seat, const XzAction *legal, int n) {
    (void)bot;
    return heuristic_decide(g, seat, legal, n, 1);
}

int xz_heuristic_bot(XzBot *bot, int quick) {
    if (!sh_key && build_tables() < 0) return -1;
    bot->choose = quick ? heuristic_quick_choose : heuristic_choose;
    bot->salt = 0;
    return 0;
}

/* ------------------------------------------------------------------------------------------
 * The reading, for the learned bot (xz_reading.h)
 * ------------------------------------------------------------------------------------------ */
void xz_hb_init(Hb *h, const XzGame *g, int seat, int quick) {
    const XzSeat *s = &g->seats[seat];
    h->g = g;
    h->seat = seat;
    h->quick = quick;
    memcpy(h->counts, s->counts, 27);
    memcpy(h->keys, s->keys, sizeof h->keys);
    h->n = s->nmelds;
    h->meld_suits = s->meld_suits;
    h->void_suit = s->void_suit;
    h->live = g->tail - g->head;
    h->nthreats = 0;
}

int xz_hb_shanten(const Hb *h, int n, int meld_suits) { return hb_shanten(h, n, meld_suits); }
void xz_hb_visible(Hb *h) { visible_counts(h->g, h->seat, h->visible); }
void xz_hb_threats(Hb *h) { threats(h); }
double xz_hb_danger(const Hb *h, int t) { return danger(h, t); }
int xz_hb_qing_suit(Hb *h, int now) { return qing_suit(h, now); }
int xz_hb_winning_tiles(const Hb *h, const int *owned, int *out) { return winning_tiles(h, owned, out); }
void xz_suit_value(const int8_t *counts, int suit, int *n, int *shape) { suit_value(counts, suit, n, shape); }
