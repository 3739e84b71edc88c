/* The learned bot, compiled: bots.learned.LearnedBot, on weights the Python side gives the core
 * (xuezhan.native.use_learned_weights).
 *
 * xz_learned_features mirrors bots.learned.features, feature by feature and in its order: the
 * table summary (XZ_LT_*) and one row of what each legal action does (XZ_LA_*), read through the
 * heuristic's reading of the table (xz_reading.h: shanten, threats, danger, the 清一色 plan, the
 * waits and their points), as the Python features read it through HeuristicBot. The features are
 * computed in doubles in Python's order and handed to the network as floats, as numpy does.
 * The network is the scorer of bots.learned.LearnedNet (two hidden layers with ReLU, one score
 * an action); the legal action with the highest score is played, the first of equal ones. Its sums
 * run in another order than numpy's, so a score may differ from numpy's in its last bits: two
 * actions within a few millionths of each other may then be ranked the other way. */
#include "xz_reading.h"

#include <stdlib.h>
#include <string.h>

#define NT XZ_L_NT
#define NA XZ_L_NA
#define H XZ_L_HIDDEN
#define NW ((NT + NA) * H + H + H * H + H + H + 1)

static float *weights; /* s_w0 (NT + NA rows of H), s_b0, s_w1 (H rows of H), s_b1, s_w2 (H), s_b2 */

int xz_learned_set(const float *w, size_t n) {
    if (n != (size_t)NW) return -1;
    if (!weights) {
        weights = malloc(sizeof(float) * NW);
        if (!weights) return -2;
    }
    memcpy(weights, w, sizeof(float) * NW);
    return 0;
}

size_t xz_learned_size(void) { return (size_t)NW; }

int xz_learned_ready(void) { return weights != NULL; }

static double dmin(double a, double b) { return a < b ? a : b; }
static double dmax(double a, double b) { return a > b ? a : b; }

/* bots.learned._after */
static void after_row(double *row, int now, int after) {
    row[XZ_LA_SHANTEN_CHANGE] = dmax(-1.0, dmin(3.0, (double)(after - now)));
    row[XZ_LA_AFTER_0 + (after < 3 ? after : 3)] = 1.0;
}

/* bots.learned._discard: what discarding t does beyond its shanten */
static void discard_row(double *row, Hb *h, int t, int after, double stake) {
    const XzGame *g = h->g;
    const XzSeat *me = &g->seats[h->seat];
    int s = t / 9, r = t % 9;
    row[XZ_LA_VOID_TILE] = s == h->void_suit;
    row[XZ_LA_DANGER] = dmin(xz_hb_danger(h, t), 4.0);
    int near = 0;
    for (int x = r - 2 > 0 ? r - 2 : 0; x <= (r + 2 < 8 ? r + 2 : 8); x++) near += h->counts[s * 9 + x];
    row[XZ_LA_NEAR] = (double)(near - 1) / 4;
    row[XZ_LA_EDGE] = r == 0 || r == 8;
    hb_move(h, t, -1);
    if (after == 0) {
        int owned[27], waits[27];
        for (int u = 0; u < 27; u++) owned[u] = h->counts[u];
        for (int k = 0; k < me->nmelds; k++) owned[me->melds[k].tile] += meld_size(&me->melds[k]);
        double worth = 0.0;
        int live_waits = 0;
        int nw = xz_hb_winning_tiles(h, owned, waits);
        for (int k = 0; k < nw; k++) {
            int w = waits[k], live = 4 - h->visible[w];
            if (live <= 0) continue;
            live_waits += live;
            int8_t won[27];
            memcpy(won, h->counts, 27);
            won[w]++;
            worth += (double)(live * xz_discard_win_points(g->rules, won, me));
        }
        row[XZ_LA_READY_WORTH] = dmin(worth / stake / 8, 4.0);
        row[XZ_LA_WAITS] = (double)live_waits / 8;
    } else if (after <= 2) {
        int effective = 0;
        for (int u = 0; u < 27; u++) {
            if (u / 9 == h->void_suit || h->visible[u] >= 4) continue;
            hb_move(h, u, 1);
            if (xz_hb_shanten(h, h->n, h->meld_suits) < after) effective += 4 - h->visible[u];
            hb_move(h, u, -1);
        }
        row[XZ_LA_EFFECTIVE] = (double)effective / 20;
    }
    hb_move(h, t, 1);
}

void xz_learned_features(const XzGame *g, int seat, const XzAction *legal, int n, float *table, float *rows) {
    Hb h;
    xz_hb_init(&h, g, seat, 0);
    const XzSeat *me = &g->seats[seat];
    int nm = h.n, ms = h.meld_suits, v = h.void_suit;
    int phase = g->phase;
    double stake = (double)g->rules->base_score;
    int in_play = phase == XZ_PHASE_TURN || phase == XZ_PHASE_CLAIM || phase == XZ_PHASE_ROB;
    int now = in_play ? xz_hb_shanten(&h, nm, ms) : 8;
    xz_hb_visible(&h);
    if (in_play) xz_hb_threats(&h);
    int qing = in_play && v >= 0 ? xz_hb_qing_suit(&h, now) : -1;

    double tb[NT];
    memset(tb, 0, sizeof tb);
    tb[XZ_LT_SHANTEN] = (double)(now < 8 ? now : 8) / 4;
    tb[XZ_LT_LIVE] = (double)h.live / 55;
    tb[XZ_LT_MELDS] = (double)nm / 4;
    if (v >= 0) {
        int held = 0;
        for (int r = 0; r < 9; r++) held += h.counts[v * 9 + r];
        tb[XZ_LT_VOID_HELD] = (double)held / 6;
    }
    if (phase == XZ_PHASE_TURN) tb[XZ_LT_PHASE_TURN] = 1.0;
    else if (phase == XZ_PHASE_CLAIM) tb[XZ_LT_PHASE_CLAIM] = 1.0;
    else if (phase == XZ_PHASE_ROB) tb[XZ_LT_PHASE_ROB] = 1.0;
    else if (n > 0 && legal[0].type == XZ_ACTION_DINGQUE) tb[XZ_LT_PHASE_DINGQUE] = 1.0;
    else if (n > 0 && legal[0].type == XZ_ACTION_EXCHANGE) tb[XZ_LT_PHASE_EXCHANGE] = 1.0;
    if (h.nthreats) {
        double top = h.th_p[0], sum = 0.0;
        for (int i = 0; i < h.nthreats; i++) {
            if (h.th_p[i] > top) top = h.th_p[i];
            sum += h.th_p[i];
        }
        tb[XZ_LT_THREAT_TOP] = top;
        tb[XZ_LT_THREAT_MEAN] = sum / h.nthreats;
    }
    int won = 0;
    for (int o = 0; o < 4; o++) won += o != seat && g->seats[o].won;
    tb[XZ_LT_OPPONENTS_WON] = (double)won / 3;
    int64_t deltas[4];
    xz_deltas(g, deltas);
    tb[XZ_LT_POINTS] = dmax(-4.0, dmin(4.0, (double)deltas[seat] / stake / 8));
    tb[XZ_LT_QING_PLAN] = qing >= 0;
    tb[XZ_LT_ONE] = 1.0;
    for (int i = 0; i < NT; i++) table[i] = (float)tb[i];

    int drawn = g->turn == seat && phase == XZ_PHASE_TURN ? g->drawn : -1;
    int offered = g->has_window ? g->w.tile : -1;
    for (int i = 0; i < n; i++) {
        const XzAction *a = &legal[i];
        double row[NA];
        memset(row, 0, sizeof row);
        int type = a->type;
        int kind = type == XZ_ACTION_DISCARD ? 0 : type == XZ_ACTION_GANG ? 1 : type == XZ_ACTION_PENG ? 2
                 : type == XZ_ACTION_HU ? 3 : type == XZ_ACTION_PASS ? 4 : type == XZ_ACTION_DINGQUE ? 5
                 : type == XZ_ACTION_EXCHANGE ? 6 : 7;
        row[kind] = 1.0;
        int t = type == XZ_ACTION_PENG ? offered : (a->tile < 27 ? a->tile : -1);
        if (type == XZ_ACTION_DISCARD && t >= 0) {
            hb_move(&h, t, -1);
            int after = xz_hb_shanten(&h, nm, ms);
            hb_move(&h, t, 1);
            after_row(row, now, after);
            discard_row(row, &h, t, after, stake);
            if (qing >= 0 && t / 9 != qing) row[XZ_LA_OFF_PLAN] = 1.0;
            row[XZ_LA_DRAWN] = drawn == t;
        } else if (type == XZ_ACTION_GANG && t >= 0) {
            int ms2 = ms | 1 << (t / 9), after;
            if (phase == XZ_PHASE_CLAIM) { /* a kong on a discard: three from the hand */
                hb_move(&h, t, -3);
                after = xz_hb_shanten(&h, nm + 1, ms2);
                hb_move(&h, t, 3);
                row[XZ_LA_EXPOSED_KONG] = 1.0;
            } else if (h.counts[t] == 4) {
                hb_move(&h, t, -4);
                after = xz_hb_shanten(&h, nm + 1, ms2);
                hb_move(&h, t, 4);
                row[XZ_LA_CONCEALED_KONG] = 1.0;
            } else {
                hb_move(&h, t, -1);
                after = xz_hb_shanten(&h, nm, ms);
                hb_move(&h, t, 1);
                row[XZ_LA_ADDED_KONG] = 1.0;
            }
            after_row(row, now, after);
            row[XZ_LA_VOID_TILE] = t / 9 == v;
        } else if (type == XZ_ACTION_PENG && t >= 0) {
            int ms2 = ms | 1 << (t / 9);
            hb_move(&h, t, -2);
            int best = 99;
            for (int d = 0; d < 27; d++) {
                if (!h.counts[d]) continue;
                hb_move(&h, d, -1);
                int s2 = xz_hb_shanten(&h, nm + 1, ms2);
                hb_move(&h, d, 1);
                if (s2 < best) best = s2;
            }
            int shape = nm; /* HeuristicBot.pung_shape */
            for (int u = 0; u < 27; u++) shape += h.counts[u] >= 2;
            row[XZ_LA_PUNG_SHAPE] = (double)shape / 7;
            hb_move(&h, t, 2);
            row[XZ_LA_VOID_TILE] = t / 9 == v;
            after_row(row, now, best);
            if (qing >= 0 && t / 9 != qing) row[XZ_LA_OFF_PLAN] = 1.0;
        } else if (type == XZ_ACTION_DINGQUE && a->suit < 3) {
            int size, shape;
            xz_suit_value(h.counts, a->suit, &size, &shape);
            row[XZ_LA_SUIT_SIZE] = (double)size / 14;
            row[XZ_LA_SUIT_SHAPE] = (double)shape / 10;
        } else if (type == XZ_ACTION_EXCHANGE && a->ntiles) {
            for (int k = 0; k < a->ntiles; k++) hb_move(&h, a->tiles[k], -1);
            int after = xz_shanten(h.keys, 0, 0, -1);
            for (int k = 0; k < a->ntiles; k++) hb_move(&h, a->tiles[k], 1);
            int size, shape;
            xz_suit_value(h.counts, a->tiles[0] / 9, &size, &shape);
            after_row(row, 0, after);
            row[XZ_LA_SUIT_SIZE] = (double)size / 14;
            row[XZ_LA_SUIT_SHAPE] = (double)shape / 10;
        }
        if (t >= 0) {
            row[XZ_LA_COPIES] = (double)h.counts[t] / 4;
            row[XZ_LA_SEEN] = (double)h.visible[t] / 4;
        }
        for (int k = 0; k < NA; k++) rows[i * NA + k] = (float)row[k];
    }
    (void)me;
}

/* LearnedNet.scores: one score an action row. Each sum runs over its inputs in one order whatever
 * the vector width, so the AVX2 build of this function (where the CPU has it) and the plain one
 * give the same floats. */
#if defined(__GNUC__) && defined(__x86_64__) && defined(__linux__) && !defined(__clang__)
__attribute__((target_clones("avx2", "default")))
#endif
static void learned_scores(const float *table, const float *rows, int n, float *out) {
    const float *w0 = weights, *b0 = w0 + (NT + NA) * H, *w1 = b0 + H, *b1 = w1 + H * H, *w2 = b1 + H,
                *b2 = w2 + H;
    float base[H];
    for (int j = 0; j < H; j++) base[j] = b0[j];
    for (int f = 0; f < NT; f++) {
        float x = table[f];
        if (x == 0.0f) continue;
        const float *wr = w0 + f * H;
        for (int j = 0; j < H; j++) base[j] += x * wr[j];
    }
    for (int i = 0; i < n; i++) {
        const float *row = rows + i * NA;
        float h0[H], h1[H];
        memcpy(h0, base, sizeof h0);
        for (int f = 0; f < NA; f++) {
            float x = row[f];
            if (x == 0.0f) continue;
            const float *wr = w0 + (NT + f) * H;
            for (int j = 0; j < H; j++) h0[j] += x * wr[j];
        }
        for (int j = 0; j < H; j++) {
            h0[j] = h0[j] > 0.0f ? h0[j] : 0.0f;
            h1[j] = b1[j];
        }
        for (int k = 0; k < H; k++) {
            float x = h0[k];
            if (x == 0.0f) continue;
            const float *wr = w1 + k * H;
            for (int j = 0; j < H; j++) h1[j] += x * wr[j];
        }
        float s = b2[0];
        for (int j = 0; j < H; j++) s += (h1[j] > 0.0f ? h1[j] : 0.0f) * w2[j];
        out[i] = s;
    }
}

static int learned_choose(XzBot *bot, const XzGame *g, int seat, const XzAction *legal, int n) {
    (void)bot;
    if (n <= 1) return 0;
    float table[NT], rows[XZ_MAX_LEGAL * NA], scores[XZ_MAX_LEGAL];
    xz_learned_features(g, seat, legal, n, table, rows);
    learned_scores(table, rows, n, scores);
    int best = 0;
    for (int i = 1; i < n; i++)
        if (scores[i] > scores[best]) best = i;
    return best;
}

int xz_learned_bot(XzBot *bot) {
    if (!weights) return -3;
    if (xz_heuristic_bot(bot, 0) < 0) return -2; /* the reading's shanten tables */
    bot->choose = learned_choose;
    bot->salt = 0;
    return 0;
}
