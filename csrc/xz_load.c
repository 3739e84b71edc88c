/* A hand in the middle, loaded into the core: the state of a Python engine's Game (hands, melds,
 * rivers, wall, open claim window, kongs and their payers, wins, ledger) as a flat array of
 * integers written by xuezhan.engine.packed.pack_state, so that a search play-out from a
 * sampled world runs in C. Every value is checked against the core's bounds: a malformed array
 * is refused (-1), never read past. */
#include "xz_engine.h"

#include <string.h>

typedef struct {
    const int64_t *w;
    size_t n, i;
    int bad;
} Reader;

static int64_t next(Reader *r, int64_t lo, int64_t hi) {
    if (r->i >= r->n) {
        r->bad = 1;
        return lo;
    }
    int64_t v = r->w[r->i++];
    if (v < lo || v > hi) {
        r->bad = 1;
        return lo;
    }
    return v;
}

#define BIG ((int64_t)1 << 40)
static const int32_t POW5_[9] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625};

/* an action: seat, type, tile, suit (-1 none), ntiles (0 or 3), three tiles */
static XzAction read_action(Reader *r) {
    XzAction a;
    a.seat = (uint8_t)next(r, 0, 3);
    a.type = (uint8_t)next(r, XZ_ACTION_EXCHANGE, XZ_ACTION_PASS);
    int64_t tile = next(r, -1, 26), suit = next(r, -1, 2);
    a.tile = (uint8_t)(tile < 0 ? 255 : tile);
    a.suit = (uint8_t)(suit < 0 ? 255 : suit);
    int64_t nt = next(r, 0, 3);
    if (nt != 0 && nt != 3) r->bad = 1;
    a.ntiles = (uint8_t)nt;
    for (int k = 0; k < 3; k++) a.tiles[k] = (uint8_t)next(r, 0, 26);
    return a;
}

int xz_load_game(XzGame *g, const XzRules *rules, const int64_t *words, size_t n) {
    Reader r = {words, n, 0, 0};
    memset(g, 0, sizeof *g);
    g->rules = rules;
    g->dealer = (int)next(&r, 0, 3);
    g->phase = (int)next(&r, XZ_PHASE_EXCHANGE, XZ_PHASE_OVER);
    g->turn = (int)next(&r, 0, 3);
    g->drawn = (int)next(&r, -1, 26);
    g->after_kong = (int)next(&r, 0, 1);
    g->drew_last = (int)next(&r, 0, 1);
    g->must_discard = (int)next(&r, 0, 1);
    g->zhigang_source = (int)next(&r, -1, 3);
    g->pending_bugang = (int)next(&r, -1, 26);
    g->bugang_late = (int)next(&r, 0, 1);
    g->clean_start = (int)next(&r, 0, 1);
    g->win_groups = (int)next(&r, 0, XZ_MAX_WINS);
    g->nactions = (int)next(&r, 0, XZ_MAX_ACTIONS - 1);
    g->exchange_direction = (int)next(&r, 0, 3);
    g->nwall = (int)next(&r, 0, 108);
    for (int i = 0; i < g->nwall; i++) g->wall[i] = (uint8_t)next(&r, 0, 26);
    g->head = (int)next(&r, 0, g->nwall);
    g->tail = (int)next(&r, g->head, g->nwall);
    for (int i = 0; i < 4; i++) {
        XzSeat *s = &g->seats[i];
        for (int t = 0; t < 27; t++) {
            int c = (int)next(&r, 0, 4);
            s->counts[t] = (int8_t)c;
            if (c) s->held |= 1U << t;
            s->keys[t / 9] += c * POW5_[t % 9];
            s->sizes[t / 9] += c;
        }
        s->wm = -1;
        s->void_suit = (int)next(&r, -1, 2);
        s->won = (int)next(&r, 0, 1);
        s->wins = (int)next(&r, 0, XZ_MAX_WINS);
        s->revealed = (int)next(&r, 0, 1);
        s->draws = (int)next(&r, 0, 108);
        s->pass_hu = (uint32_t)next(&r, 0, (1 << 27) - 1);
        s->pass_hu_any = (int)next(&r, 0, 1);
        s->chosen = (int)next(&r, 0, 1);
        if (s->chosen) s->choice = read_action(&r);
        s->nmelds = (int)next(&r, 0, 4);
        for (int k = 0; k < s->nmelds; k++) {
            s->melds[k].kind = (uint8_t)next(&r, XZ_MELD_PENG, XZ_MELD_ANGANG);
            s->melds[k].tile = (uint8_t)next(&r, 0, 26);
            s->meld_suits |= 1 << (s->melds[k].tile / 9);
        }
        if (s->sizes[0] + s->sizes[1] + s->sizes[2] + 3 * s->nmelds > 14) r.bad = 1;
        s->nriver = (int)next(&r, 0, XZ_RIVER - 1);
        for (int k = 0; k < s->nriver; k++) {
            s->river[k] = (uint8_t)next(&r, 0, 26);
            s->river_state[k] = (uint8_t)next(&r, XZ_RIVER_OPEN, XZ_RIVER_ROBBED);
        }
        s->naside = (int)next(&r, 0, XZ_RIVER - 1);
        for (int k = 0; k < s->naside; k++) s->aside[k] = (uint8_t)next(&r, 0, 26);
    }
    g->nkongs = (int)next(&r, 0, XZ_MAX_KONGS - 1);
    for (int i = 0; i < g->nkongs; i++) {
        XzKong *k = &g->kongs[i];
        k->seat = (int)next(&r, 0, 3);
        k->kind = (int)next(&r, XZ_REASON_ANGANG, XZ_REASON_ZHIGANG);
        k->tile = (int)next(&r, 0, 26);
        k->transferred = (int)next(&r, 0, 1);
        k->npay = (int)next(&r, 0, 3);
        for (int p = 0; p < k->npay; p++) {
            k->payer[p] = (int)next(&r, 0, 3);
            k->pts[p] = next(&r, 0, BIG);
        }
    }
    g->nturn_kongs = (int)next(&r, 0, g->nkongs);
    for (int i = 0; i < g->nturn_kongs; i++) g->turn_kongs[i] = (int)next(&r, 0, g->nkongs - 1);
    g->nwins = (int)next(&r, 0, XZ_MAX_WINS - 1);
    for (int i = 0; i < g->nwins; i++) {
        XzWin *w = &g->wins[i];
        w->seat = (int)next(&r, 0, 3);
        w->from = (int)next(&r, -1, 3);
        w->tile = (int)next(&r, 0, 26);
        w->order = (int)next(&r, 1, XZ_MAX_WINS);
        w->robbed = (int)next(&r, 0, 1);
    }
    g->nledger = (int)next(&r, 0, XZ_MAX_LEDGER - 1);
    for (int i = 0; i < g->nledger; i++) {
        XzEntry *e = &g->ledger[i];
        e->from = (int)next(&r, 0, 3);
        e->to = (int)next(&r, 0, 3);
        e->points = next(&r, 0, BIG);
        e->reason = (int)next(&r, XZ_REASON_HU, XZ_REASON_TUI_SHUI);
    }
    g->has_window = (int)next(&r, 0, 1);
    if (g->has_window) {
        XzWindow *w = &g->w;
        w->tile = (int)next(&r, 0, 26);
        w->source = (int)next(&r, 0, 3);
        w->after_kong = (int)next(&r, 0, 1);
        w->last_tile = (int)next(&r, 0, 1);
        w->robbing = (int)next(&r, 0, 1);
        w->nopt = (int)next(&r, 0, 3);
        for (int i = 0; i < w->nopt; i++) {
            w->options_seat[i] = (int)next(&r, 0, 3);
            w->noptions[i] = (int)next(&r, 1, 4);
            for (int k = 0; k < w->noptions[i]; k++) w->options[i][k] = read_action(&r);
        }
        w->nanswers = (int)next(&r, 0, w->nopt);
        for (int a = 0; a < w->nanswers; a++) {
            int i = (int)next(&r, 0, w->nopt > 0 ? w->nopt - 1 : 0);
            if (w->answered[i]) r.bad = 1;
            w->answered[i] = 1;
            w->answer_order[a] = i;
            w->answers[i] = read_action(&r);
        }
    }
    if ((g->phase == XZ_PHASE_CLAIM || g->phase == XZ_PHASE_ROB) != g->has_window || r.i != n) r.bad = 1;
    g->next_dealer = -1;
    g->wall_empty_at = -1;
    return r.bad ? -1 : 0;
}
