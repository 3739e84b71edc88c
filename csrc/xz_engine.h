/* The compiled core of xuezhan: one hand of blood-battle mahjong (docs/rules.md §2-§9),
 * the same state machine as the Python engine (xuezhan.engine), played by compiled bots.
 *
 * The Python engine is the reference: for the same seed and rules this engine deals the
 * same wall (Python's Mersenne Twister, reproduced), offers the same legal actions in the
 * same order, and records the same actions, events, ledger and result. */
#ifndef XZ_ENGINE_H
#define XZ_ENGINE_H

#include <stddef.h>
#include <stdint.h>

#define XZ_KINDS 27
#define XZ_MAX_ACTIONS 1024
#define XZ_MAX_LEGAL 512
#define XZ_MAX_LEDGER 4096
#define XZ_MAX_EVENTS 65536 /* int64 words */
#define XZ_MAX_WINS 256
#define XZ_MAX_KONGS 32
#define XZ_RIVER 64

/* Every id the core shares with the Python side (action types XZ_ACTION_*, ledger reasons
 * XZ_REASON_*, phases XZ_PHASE_*, meld kinds XZ_MELD_*, river states XZ_RIVER_*, events
 * XZ_EVENT_*, fan patterns XZ_PAT_* and extras XZ_EXTRA_*, the rule options' values), the rules
 * (XzRules, read from the words of xuezhan.native.marshal_rules by xz_rules_from_words), the
 * action space, the observation layout and the heuristic's tunables: generated at build time
 * from the Python tables by xuezhan.native.gen (setup.py runs it; never committed). */
#include "xz_gen.h"

/* the fan patterns and extras the scorer (xz_engine.c) implements, ended by -1; the Python side
 * refuses rules that give fan to any other (xuezhan.native.refusal) */
extern const int xz_fan_implemented[];

typedef struct {
    uint8_t seat, type, tile, suit; /* 255: none */
    uint8_t tiles[3];
    uint8_t ntiles;
} XzAction;

typedef struct { uint8_t kind, tile; } XzMeld;

typedef struct {
    int8_t counts[XZ_KINDS];
    uint32_t held;      /* bit t: holds a tile t */
    int32_t keys[3];
    int sizes[3];
    XzMeld melds[8];
    int nmelds;
    int meld_suits;
    int void_suit;      /* -1: none */
    int won, wins, revealed;
    uint8_t river[XZ_RIVER], river_state[XZ_RIVER];
    int nriver;
    uint8_t aside[XZ_RIVER];
    int naside;
    uint32_t pass_hu;   /* tile kinds passed on (过水不胡) */
    int pass_hu_any;
    int draws;
    int chosen;         /* exchange / dingque choice made */
    XzAction choice;
    int64_t wm;         /* cached wait mask, -1 when the hand changed */
} XzSeat;

typedef struct {
    int seat, kind; /* kind: XZ_REASON_ANGANG, XZ_REASON_BUGANG, XZ_REASON_ZHIGANG */
    int tile;
    int payer[3];
    int64_t pts[3];
    int npay;
    int transferred;
} XzKong;

typedef struct {
    int seat, from, tile, order, robbed;
    int base, fan;
    int64_t multiple, hand_points, points, json_points;
    int nextras;
    int extra_id[8];
    int extra_fan[8];
} XzWin;

typedef struct { int from, to, reason; int64_t points; } XzEntry;

typedef struct {
    int tile, source;
    int options_seat[3];
    XzAction options[3][4];
    int noptions[3];
    int nopt;          /* seats offered a claim, in play order from the source */
    int answered[3];
    XzAction answers[3];
    int answer_order[3]; /* option slot of the k-th answer */
    int nanswers;
    int after_kong, last_tile, robbing;
} XzWindow;

typedef struct {
    uint32_t mt[624];
    int mti;
} XzMT;

typedef struct {
    const XzRules *rules;
    XzSeat seats[4];
    uint8_t wall[108];
    int nwall, head, tail;
    uint8_t layout[108];
    int dice[2];
    int dealer, phase, turn;
    int drawn;            /* -1 none */
    int after_kong, drew_last, must_discard;
    int turn_kongs[XZ_MAX_KONGS];
    int nturn_kongs;
    int zhigang_source;   /* -1 none */
    int has_window;
    XzWindow w;
    int pending_bugang;   /* -1 none */
    int bugang_late;
    int clean_start;
    int exchange_direction; /* 0: not known */
    XzEntry ledger[XZ_MAX_LEDGER];
    int nledger;
    XzWin wins[XZ_MAX_WINS];
    int nwins;
    XzKong kongs[XZ_MAX_KONGS];
    int nkongs;
    int win_groups;
    XzAction actions[XZ_MAX_ACTIONS];
    int nactions;
    int record_events;
    int64_t *events;      /* XZ_MAX_EVENTS words when record_events */
    int nevents_words;
    int nevents;          /* events emitted (recorded or not) */
    int wall_empty_at;    /* event number of wall_empty, -1 none */
    int overflow;         /* a fixed buffer ran out: the hand is void (never expected) */
    int next_dealer;      /* -1: dice; set when over */
} XzGame;

/* a bot: chooses the index of one of ``n`` legal actions (n >= 2) */
struct XzBot;
typedef int (*XzChooseFn)(struct XzBot *bot, const XzGame *g, int seat, const XzAction *legal, int n);
typedef struct XzBot {
    XzChooseFn choose;
    uint64_t salt;
} XzBot;

void xz_init_tables(void);
void xz_mt_seed(XzMT *mt, uint64_t seed);
/* xz_mt_seed of four distinct generators at once, m[k] from seeds[k] (faster than one by one) */
void xz_mt_seed4(XzMT *const m[4], const uint64_t seeds[4]);
double xz_mt_random(XzMT *mt);
int xz_throw_for_dealer(XzMT *mt);
/* order[i] = random.Random(seed).shuffle(list(range(n)))[i], for n <= 108: a list x
 * shuffled by that generator is [x[order[0]], x[order[1]], ...] */
void xz_shuffle_order(uint64_t seed, int n, uint8_t *order);
uint64_t xz_bot_seed(uint64_t hand_seed, int seat);
void xz_random_bot(XzBot *bot, uint64_t salt);
/* bots.heuristic.HeuristicBot (xz_heuristic.c); ``quick`` as HeuristicBot(quick=True). Builds the
 * shanten tables on first use (not thread-safe: call it once before playing in threads); -1 if
 * they cannot be allocated */
int xz_heuristic_bot(XzBot *bot, int quick);
/* hand.shanten(counts, n_melds, meld_suits=..., void=...) on the three suit keys (void -1: none) */
int xz_shanten(const int32_t keys[3], int n_melds, int meld_suits, int void_suit);
/* bots.learned.LearnedBot (xz_learned.c) on the weights of xz_learned_set: -3 before any were
 * set, -2 if the reading's tables cannot be allocated */
int xz_learned_bot(XzBot *bot);
/* the scorer's weights as float32 in the order s_w0, s_b0, s_w1, s_b1, s_w2, s_b2 (bots.learned.SHAPES),
 * xz_learned_size() of them, copied: 0, -1 for another number, -2 out of memory. Not thread-safe:
 * set them before playing in threads */
int xz_learned_set(const float *w, size_t n);
size_t xz_learned_size(void);
/* bots.learned.features: the table summary (XZ_L_NT floats) and one row a legal action (XZ_L_NA each) */
void xz_learned_features(const XzGame *g, int seat, const XzAction *legal, int n, float *table, float *rows);
/* the compiled bots by code (XZ_BOT_*, xuezhan.native.layout.BOT_CODES): 0 on success, -1 for an unknown code,
 * -2 when the bot's tables cannot be allocated, -3 for the learned bot before its weights are set */
int xz_make_bot(XzBot *bot, int code, uint64_t salt);
/* hand.is_complete_keys on suit keys; the points one payer pays for a plain discard win of the
 * concealed ``counts`` (winning tile included) with the melds of ``s`` (heuristic.wait_points) */
int xz_complete_keys(int32_t k0, int32_t k1, int32_t k2, int seven);
int64_t xz_discard_win_points(const XzRules *R, const int8_t *counts, const XzSeat *s);
/* *dst = *src, the unused tails of the ledger, the wins and the actions left out */
void xz_copy_game(XzGame *dst, const XzGame *src);
/* what a search's world deals afresh (engine.views.sample_world): the copies the seat has not seen, the
 * hidden seats in seat order with their number of tiles, void and whether they hold none of it, the
 * bystanders' tiles, and with ``weighted`` the rates of the weighted draws (1 / weight, inf: never
 * but when nothing else is left) */
typedef struct {
    int me, nhidden, n_by, weighted;
    int unseen[27];
    int hidden[3], n[3], void_suit[3], no_void[3];
    double scale[3][27];
    int given[3];        /* the hidden seat's hand is given (sample_world's ``hands``) */
    int8_t hand[3][27];
} XzDeal;
/* deal the world of ``d`` into ``g`` (a copy of the viewed state) with the draws sample_world makes of
 * ``mt``, and work the claim window's options out again from the dealt hands; -1 if the tiles do not
 * fit the state, -2 (no draw made) if a given hand does not fit the copies unseen */
int xz_deal_world(XzGame *g, const XzDeal *d, XzMT *mt);
/* ExpertBot.ready_world's loop: worlds of ``d`` dealt into ``g`` from ``base`` until none of the
 * ``check`` seats is ready (``tries`` at most, the last kept); given hands that do not fit: one world of
 * the plain deal. 0, or -1 if the tiles do not fit the state */
int xz_deal_ready_world(XzGame *g, const XzGame *base, XzDeal *d, XzMT *mt, const int *check, int ncheck, int tries);
/* Random.getrandbits(64) */
uint64_t xz_mt_bits64(XzMT *mt);
/* a hand in the middle of play from the integers of xuezhan.engine.packed.pack_state
 * (xz_load.c); -1 (and nothing to play) when they are malformed */
int xz_load_game(XzGame *g, const XzRules *rules, const int64_t *words, size_t n);

/* deal a hand as Match.start_hand does: dealer by dice when dealer < 0, then the shuffle,
 * then a random exchange direction when the rules ask for one */
void xz_new_game(XzGame *g, const XzRules *rules, uint64_t seed, int dealer);
/* the same from a generator already seeded with the hand's seed (xz_mt_seed), which it uses up */
void xz_new_game_mt(XzGame *g, const XzRules *rules, XzMT *mt, int dealer);
/* a prepared deal (Game.from_deal): the 108 tiles as the hands by seat (the dealer's 14) then the
 * wall from the head; ``direction`` 0 unless a random 换三张 direction is fixed; -1 if not 108 tiles */
int xz_new_game_from_deal(XzGame *g, const XzRules *rules, const uint8_t *tiles, int dealer, int direction);
int xz_pending(const XzGame *g, int *out);
int xz_legal(XzGame *g, int seat, XzAction *out);
void xz_apply(XzGame *g, const XzAction *a);
/* play a dealt hand to its end with one bot per seat, in the order of runtime.HandDriver.run */
void xz_play(XzGame *g, XzBot *bots[4]);
void xz_deltas(const XzGame *g, int64_t out[4]);
/* apply ``a`` if it is legal (NULL), else change nothing and say why (Game._why_illegal's codes);
 * a tile, suit or seat out of range is given as 254, ntiles 255 for tiles no legal action has */
const char *xz_try_apply(XzGame *g, const XzAction *a);

/* --- the reinforcement-learning environments (xz_env.c) -------------------------------------------
 * One seat's observation (the layout of xuezhan.rl.encoding) and its action mask over the fixed
 * action space of xuezhan.engine.actions.action_index, written from the state of a hand. */
/* the action's index in the fixed action space (the seat is not part of it) */
int xz_action_index(const XzAction *a);
/* what ``seat`` may see of the hand, as XZ_OBS_SIZE floats */
void xz_observe(const XzGame *g, int seat, float *out);
/* 1 at the index of each legal action of ``seat``, else 0 (XZ_ACTION_SPACE bytes); returns how many */
int xz_mask(XzGame *g, int seat, int8_t *out);

#ifdef Py_PYTHON_H
/* The CPython side (xz_module.c, xz_env.c). */
typedef struct {
    PyObject_HEAD
    XzRules rules;
    XzGame *g;
    int64_t *events;
} HandObject;

/* the rules from the Python side's XZ_RULE_WORDS integers (xuezhan.native.marshal_rules); -1 with an error set */
int xz_py_rules(PyObject *seq, XzRules *R);
/* add the types of xz_env.c (Table, a Hand with learners, bots and the encoders) to the module */
int xz_env_add_types(PyObject *module, PyTypeObject *hand_type);
#endif

#endif
