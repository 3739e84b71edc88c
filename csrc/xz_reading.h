/* What a seat reads of the table, as the heuristic reads it (xz_heuristic.c): shared by the
 * compiled heuristic and the compiled learned bot (xz_learned.c), as bots.learned reads the table
 * through HeuristicBot's methods. Internal to the core. */
#ifndef XZ_READING_H
#define XZ_READING_H

#include "xz_engine.h"

typedef struct {
    const XzGame *g;
    int seat, quick;
    int8_t counts[27]; /* view.counts, changed and put back as in Python */
    int32_t keys[3];
    int n, meld_suits, void_suit, live;
    int visible[27];
    int nthreats;
    int th_seat[3];
    double th_p[3], th_worth[3];
} Hb;

/* 5 ** rank: a suit key holds a count per rank in base 5 (hand.suit_keys) */
static const int32_t xz_p5[10] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625, 1953125};

static inline void hb_move(Hb *h, int t, int d) {
    h->counts[t] = (int8_t)(h->counts[t] + d);
    h->keys[t / 9] += d * xz_p5[t % 9];
}

static inline int meld_size(const XzMeld *m) { return m->kind == XZ_MELD_PENG ? 3 : 4; }

/* hand.shanten of the hand in h with ``n`` melds in the suits ``meld_suits`` and its void */
int xz_hb_shanten(const Hb *h, int n, int meld_suits);
/* the reading of ``seat`` at ``g``: its hand, melds, void and the live wall; nothing in sight yet */
void xz_hb_init(Hb *h, const XzGame *g, int seat, int quick);
/* SeatView.visible_counts into h->visible */
void xz_hb_visible(Hb *h);
/* HeuristicBot.threats into h->th_* */
void xz_hb_threats(Hb *h);
/* HeuristicBot.danger of discarding t (after xz_hb_visible and xz_hb_threats) */
double xz_hb_danger(const Hb *h, int t);
/* HeuristicBot.qing_suit: the suit of a 清一色 plan, or -1 */
int xz_hb_qing_suit(Hb *h, int now);
/* hand.winning_tiles of the 13-equivalent hand in h with ``owned`` copies; returns how many */
int xz_hb_winning_tiles(const Hb *h, const int *owned, int *out);
/* bots.learned._suit_shape / heuristic._suit_value: (tiles in the suit, pairs * 2 + neighbours) */
void xz_suit_value(const int8_t *counts, int suit, int *n, int *shape);

#endif
