/* The reinforcement-learning environments on the compiled core (xuezhan.rl on xuezhan.native).
 *
 * xz_observe writes one seat's observation, field by field the layout of xuezhan.rl.encoding
 * (the module docstring there is the reference; tests/test_rl_native.py checks every field
 * against the Python encoder), and xz_mask its legal actions over the fixed action space of
 * xuezhan.engine.actions.action_index. Both read only what the seat may see, as
 * xuezhan.engine.views.SeatView decides it.
 *
 * The Table type is a Hand (xz_module.c) with learners and bots: the learners' actions come in
 * by their index in the action space, and after each one the compiled bots of the other seats
 * play until a learner must decide, in the order of runtime.HandDriver.run. Observations and
 * masks are written straight into the caller's buffers (a numpy array or a bytearray). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "xz_engine.h"

/* --- the observation layout: XZ_OBS_* (xuezhan.rl.encoding._GLOBAL) and XZ_SEAT_* (offsets in a
 * seat's block, _PER_SEAT), generated into xz_gen.h ---------------------------------------------- */
#define RIVER_PLACES XZ_SEAT_RIVER_ORDER_SIZE

_Static_assert(XZ_OBS_SEAT0 + 4 * XZ_SEAT_SIZE == XZ_OBS_SIZE, "the observation layout adds up to XZ_OBS_SIZE");
_Static_assert(XZ_MELD_PENG == 0 && XZ_MELD_GANG == 1 && XZ_MELD_ANGANG == 2, "meld kinds index the peng, gang, angang fields");

/* --- the fixed action space (xuezhan.engine.actions: XZ_INDEX_* in xz_gen.h) -------------------- */
static inline int action_index(const XzAction *a) {
    switch (a->type) {
    case XZ_ACTION_DISCARD: return XZ_INDEX_DISCARD + a->tile;
    case XZ_ACTION_GANG: return XZ_INDEX_GANG + a->tile;
    case XZ_ACTION_PENG: return XZ_INDEX_PENG;
    case XZ_ACTION_HU: return XZ_INDEX_HU;
    case XZ_ACTION_PASS: return XZ_INDEX_PASS;
    case XZ_ACTION_DINGQUE: return XZ_INDEX_DINGQUE + a->suit;
    case XZ_ACTION_EXCHANGE: {
        /* three tiles of one suit: that suit's block of 165, then the place of the sorted ranks in
         * itertools.combinations_with_replacement(range(9), 3) */
        int t[3] = {a->tiles[0], a->tiles[1], a->tiles[2]};
        for (int i = 1; i < 3; i++)
            for (int j = i; j > 0 && t[j - 1] > t[j]; j--) { int x = t[j]; t[j] = t[j - 1]; t[j - 1] = x; }
        int r0 = t[0] % 9, r1 = t[1] % 9, r2 = t[2] % 9, at = 0;
        for (int x = 0; x < r0; x++) at += (9 - x) * (10 - x) / 2; /* combinations that begin lower */
        for (int y = r0; y < r1; y++) at += 9 - y;
        return XZ_INDEX_EXCHANGE + 165 * (t[0] / 9) + at + (r2 - r1);
    }
    default: return XZ_ACTION_SPACE - 1; /* escape: never offered by the core */
    }
}

int xz_action_index(const XzAction *a) { return action_index(a); }

/* --- one seat's observation (encoding._fill: _fill_global, _fill_seat, _fill_counters) ----------
 * Counted in local integers first, then written as floats a field at a time: the loops over the 27
 * kinds are straight lines the compiler turns into vector code, and no float but a win's tile is
 * read back. */
static inline void put_counts(float *restrict out, const int *restrict counts) {
    for (int t = 0; t < XZ_KINDS; t++) out[t] = (float)counts[t];
}

void xz_observe(const XzGame *g, int me, float *restrict o) {
    memset(o, 0, sizeof(float) * XZ_OBS_SIZE);
    int visible[XZ_KINDS]; /* SeatView.visible_counts */
    int counts[XZ_KINDS];
    const int8_t *mine = g->seats[me].counts;
    for (int t = 0; t < XZ_KINDS; t++) visible[t] = mine[t];
    put_counts(o + XZ_OBS_HAND, visible);
    if (g->phase == XZ_PHASE_TURN && g->turn == me && g->drawn >= 0) o[XZ_OBS_DRAWN + g->drawn] = 1.0f;
    if (g->has_window) o[XZ_OBS_OFFERED + g->w.tile] = 1.0f;
    o[XZ_OBS_PHASE + g->phase] = 1.0f;
    o[XZ_OBS_WALL] = (float)(g->tail - g->head);
    o[XZ_OBS_DEALER + ((g->dealer - me) & 3)] = 1.0f;
    o[XZ_OBS_TURN + ((g->turn - me) & 3)] = 1.0f;
    int64_t deltas[4];
    xz_deltas(g, deltas);
    for (int k = 0; k < 4; k++) {
        int seat = (me + k) & 3;
        const XzSeat *s = &g->seats[seat];
        float *b = o + XZ_OBS_SEAT0 + k * XZ_SEAT_SIZE;
        int shown = seat == me || s->revealed; /* its concealed tiles and concealed kongs face up */
        int hidden_kongs = 0;
        for (int m = 0; m < s->nmelds; m++) {
            int kind = s->melds[m].kind, t = s->melds[m].tile;
            if (kind == XZ_MELD_ANGANG && !shown) {
                hidden_kongs++;
                continue;
            }
            b[kind * XZ_KINDS + t] = 1.0f;
            visible[t] += kind == XZ_MELD_PENG ? 3 : 4;
        }
        b[XZ_SEAT_HIDDEN_KONGS] = (float)hidden_kongs;
        int nriver = s->nriver, places = nriver < RIVER_PLACES ? nriver : RIVER_PLACES;
        float *order = b + XZ_SEAT_RIVER_ORDER;
        memset(counts, 0, sizeof counts);
        for (int i = 0; i < nriver; i++) {
            int t = s->river[i], claimed = s->river_state[i] == XZ_RIVER_CLAIMED;
            if (i < places) order[i] = claimed ? (float)-(t + 1) : (float)(t + 1);
            counts[t] += !claimed;
        }
        put_counts(b + XZ_SEAT_RIVER, counts);
        for (int t = 0; t < XZ_KINDS; t++) visible[t] += counts[t];
        for (int i = 0; i < s->naside; i++) visible[s->aside[i]]++;
        int concealed = 0;
        for (int t = 0; t < XZ_KINDS; t++) {
            counts[t] = s->counts[t];
            concealed += counts[t];
        }
        if (shown) put_counts(b + XZ_SEAT_SHOWN, counts);
        if (seat != me && s->revealed)
            for (int t = 0; t < XZ_KINDS; t++) visible[t] += counts[t];
        b[XZ_SEAT_CONCEALED] = (float)concealed;
        b[XZ_SEAT_VOID + (s->void_suit < 0 ? 3 : s->void_suit)] = 1.0f;
        b[XZ_SEAT_WON] = s->won ? 1.0f : 0.0f;
        b[XZ_SEAT_WINS] = (float)s->wins;
        b[XZ_SEAT_POINTS] = (float)(double)deltas[seat];
    }
    for (int i = 0; i < g->nwins; i++)
        o[XZ_OBS_SEAT0 + ((g->wins[i].seat - me) & 3) * XZ_SEAT_SIZE + XZ_SEAT_WON_ON + g->wins[i].tile] += 1.0f;
    if (g->pending_bugang >= 0) visible[g->pending_bugang]++; /* declared, open to robbing: face up */
    for (int t = 0; t < XZ_KINDS; t++) counts[t] = 4 - visible[t];
    put_counts(o + XZ_OBS_UNSEEN, counts);
}

int xz_mask(XzGame *g, int seat, int8_t *out) {
    memset(out, 0, XZ_ACTION_SPACE);
    if (g->phase == XZ_PHASE_OVER) return 0;
    XzAction legal[XZ_MAX_LEGAL];
    int n = xz_legal(g, seat, legal);
    for (int i = 0; i < n; i++) out[action_index(&legal[i])] = 1;
    return n;
}

/* ------------------------------------------------------------------------------------------
 * Table: a Hand with learners and compiled bots
 * ------------------------------------------------------------------------------------------ */
typedef struct {
    HandObject hand;
    int bot_code[4];  /* -1: a learner's seat */
    XzBot bots[4];
    int ledger_seen;  /* payments already handed out by rewards() */
    uint64_t seed;
    /* the legal actions of ``cache_seat`` when ``cache_step`` actions had been applied (step_tables
     * observes a learner, then checks its action against them at the next call); -1: none */
    int cache_seat, cache_step, ncache;
    XzAction cache[XZ_MAX_LEGAL];
    int16_t cache_index[XZ_MAX_LEGAL]; /* the index of each in the action space */
    XzAction chosen; /* step_tables: the learner's action, checked, waiting for the others' */
    /* the generator of the hand of ``next_seed``, seeded ahead by step_tables four tables at a
     * time (preseed), or not yet (next_ready 0) */
    XzMT next_mt;
    uint64_t next_seed;
    int next_ready;
} TableObject;

/* the bots play until a learner must decide or the hand is over (runtime.HandDriver.run) */
static void run_bots(TableObject *t) {
    XzGame *g = t->hand.g;
    XzAction legal[XZ_MAX_LEGAL];
    int seats[4];
    for (;;) {
        if (g->overflow) return;
        int np = xz_pending(g, seats);
        if (!np) return;
        int moved = 0;
        for (int i = 0; i < np; i++) {
            int s = seats[i];
            if (t->bot_code[s] < 0) continue; /* a learner decides */
            int n = g->phase == XZ_PHASE_OVER ? 0 : xz_legal(g, s, legal);
            if (!n) continue;
            int k = n > 1 ? t->bots[s].choose(&t->bots[s], g, s, legal, n) : 0;
            if (k < 0 || k >= n) k = 0;
            xz_apply(g, &legal[k]);
            moved = 1;
        }
        if (!moved) return;
    }
}

/* the first learner with something to decide, in the engine's order; -1 when none */
static int first_learner(TableObject *t) {
    XzGame *g = t->hand.g;
    if (g->phase == XZ_PHASE_OVER) return -1;
    XzAction legal[XZ_MAX_LEGAL];
    int seats[4], np = xz_pending(g, seats);
    for (int i = 0; i < np; i++)
        if (t->bot_code[seats[i]] < 0 && xz_legal(g, seats[i], legal) > 0) return seats[i];
    return -1;
}

static int overflowed(TableObject *t) {
    if (!t->hand.g->overflow) return 0;
    PyErr_SetString(PyExc_RuntimeError, "the hand ran past the compiled core's buffers");
    return 1;
}

/* a new hand: from ``seed`` (``tiles`` NULL) or from a prepared deal (Hand's layout of it) */
static int deal(TableObject *t, uint64_t seed, int dealer, const uint8_t *tiles, int direction) {
    XzGame *g = t->hand.g;
    g->record_events = 1;
    g->events = t->hand.events;
    if (!tiles && t->next_ready && t->next_seed == seed) {
        xz_new_game_mt(g, &t->hand.rules, &t->next_mt, dealer);
        t->next_ready = 0; /* used up */
    } else if (!tiles) {
        xz_new_game(g, &t->hand.rules, seed, dealer);
    } else if (xz_new_game_from_deal(g, &t->hand.rules, tiles, dealer, direction) < 0) { /* nothing changed */
        PyErr_SetString(PyExc_ValueError, "a prepared deal holds every tile four times");
        return -1;
    }
    t->seed = seed;
    t->ledger_seen = 0;
    t->cache_seat = -1;
    for (int s = 0; s < 4; s++)
        if (t->bot_code[s] >= 0) xz_make_bot(&t->bots[s], t->bot_code[s], xz_bot_seed(seed, s));
    run_bots(t);
    return overflowed(t) ? -1 : 0;
}

static int table_init(TableObject *self, PyObject *args, PyObject *kwds) {
    static char *kwlist[] = {"rules", "bots", NULL};
    PyObject *rules_obj, *bots_obj;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO", kwlist, &rules_obj, &bots_obj)) return -1;
    if (xz_py_rules(rules_obj, &self->hand.rules) < 0) return -1;
    PyObject *fast = PySequence_Fast(bots_obj, "bots must be four bot codes (-1 for a learner)");
    if (!fast) return -1;
    int ok = PySequence_Fast_GET_SIZE(fast) == 4;
    for (int s = 0; ok && s < 4; s++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, s));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(fast); return -1; }
        XzBot probe;
        ok = v == -1 || (v >= 0 && v < 256 && xz_make_bot(&probe, (int)v, 0) == 0);
        self->bot_code[s] = (int)v;
    }
    Py_DECREF(fast);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "bots must be four codes: -1 for a learner, else a compiled bot's code");
        return -1;
    }
    if (!self->hand.g) self->hand.g = PyMem_Malloc(sizeof(XzGame));
    if (!self->hand.events) self->hand.events = PyMem_Malloc(sizeof(int64_t) * XZ_MAX_EVENTS);
    if (!self->hand.g || !self->hand.events) {
        PyErr_NoMemory();
        return -1;
    }
    xz_init_tables();
    return deal(self, 0, -1, NULL, 0); /* a hand is always there: Hand's methods may be called at once */
}

static int seat_arg(PyObject *arg, int *seat) {
    long v = PyLong_AsLong(arg);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v > 3) {
        PyErr_SetString(PyExc_ValueError, "a seat is 0-3");
        return -1;
    }
    *seat = (int)v;
    return 0;
}

static PyObject *table_deal(TableObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs < 1 || nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "deal(seed, dealer=-1)");
        return NULL;
    }
    unsigned long long seed = PyLong_AsUnsignedLongLong(args[0]);
    if (seed == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    long dealer = nargs > 1 ? PyLong_AsLong(args[1]) : -1;
    if (dealer == -1 && PyErr_Occurred()) return NULL;
    if (dealer < -1 || dealer > 3) {
        PyErr_SetString(PyExc_ValueError, "dealer must be -1 (dice) or a seat 0-3");
        return NULL;
    }
    if (deal(self, (uint64_t)seed, (int)dealer, NULL, 0) < 0) return NULL;
    return PyLong_FromLong(first_learner(self));
}

static PyObject *table_deal_from(TableObject *self, PyObject *args) {
    /* deal_from(tiles, dealer, direction): a prepared deal, as Hand(0, dealer, rules, tiles, direction) */
    Py_buffer tiles;
    int dealer, direction;
    if (!PyArg_ParseTuple(args, "y*ii", &tiles, &dealer, &direction)) return NULL;
    uint8_t copy[108];
    int ok = tiles.len == 108 && dealer >= 0 && dealer <= 3 && direction >= 0 && direction <= 3;
    if (ok) memcpy(copy, tiles.buf, 108);
    PyBuffer_Release(&tiles);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "a prepared deal is 108 tiles with its dealer and a direction 0-3");
        return NULL;
    }
    if (deal(self, 0, dealer, copy, direction) < 0) return NULL;
    return PyLong_FromLong(first_learner(self));
}

static PyObject *table_first(TableObject *self, PyObject *unused) {
    (void)unused;
    return PyLong_FromLong(first_learner(self));
}

static PyObject *table_deciding(TableObject *self, PyObject *unused) {
    (void)unused;
    XzGame *g = self->hand.g;
    XzAction legal[XZ_MAX_LEGAL];
    int seats[4], np = g->phase == XZ_PHASE_OVER ? 0 : xz_pending(g, seats);
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < np; i++) {
        if (self->bot_code[seats[i]] >= 0 || !xz_legal(g, seats[i], legal)) continue;
        PyObject *s = PyLong_FromLong(seats[i]);
        if (!s || PyList_Append(out, s) < 0) Py_CLEAR(out);
        Py_XDECREF(s);
    }
    return out;
}

/* the legal action of ``seat`` with index ``index``, or NULL */
static const XzAction *find_legal(XzGame *g, int seat, long index, XzAction *legal) {
    if (g->phase == XZ_PHASE_OVER || index < 0 || index >= XZ_ACTION_SPACE) return NULL;
    int n = xz_legal(g, seat, legal);
    for (int i = 0; i < n; i++)
        if (action_index(&legal[i]) == index) return &legal[i];
    return NULL;
}

/* the arguments (seat, index) of take and is_legal */
static int seat_and_index(PyObject *const *args, Py_ssize_t nargs, const char *name, int *seat, long *index) {
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "%s(seat, index)", name);
        return -1;
    }
    if (seat_arg(args[0], seat) < 0) return -1;
    *index = PyLong_AsLong(args[1]);
    return *index == -1 && PyErr_Occurred() ? -1 : 0;
}

static PyObject *table_take(TableObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* take(seat, index): the learner's action, then the bots; returns the next learner to decide
     * (-1: none), or -2 when the index is not legal for the seat now, -3 when the hand is over
     * (nothing changed then) */
    int seat;
    long index;
    if (seat_and_index(args, nargs, "take", &seat, &index) < 0) return NULL;
    XzGame *g = self->hand.g;
    if (g->phase == XZ_PHASE_OVER) return PyLong_FromLong(-3);
    XzAction legal[XZ_MAX_LEGAL];
    const XzAction *a = find_legal(g, seat, index, legal);
    if (!a) return PyLong_FromLong(-2);
    xz_apply(g, a);
    run_bots(self);
    if (overflowed(self)) return NULL;
    return PyLong_FromLong(first_learner(self));
}

static PyObject *table_is_legal(TableObject *self, PyObject *const *args, Py_ssize_t nargs) {
    int seat;
    long index;
    if (seat_and_index(args, nargs, "is_legal", &seat, &index) < 0) return NULL;
    XzAction legal[XZ_MAX_LEGAL];
    return PyBool_FromLong(find_legal(self->hand.g, seat, index, legal) != NULL);
}

/* a writable C-contiguous buffer of ``n`` items of ``itemsize`` bytes (or of n * itemsize bytes) */
static int out_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t n, Py_ssize_t itemsize, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_FORMAT | PyBUF_C_CONTIGUOUS) < 0) return -1;
    const char *f = view->format ? view->format : "B";
    if (*f == '<' || *f == '=' || *f == '@') f++;
    int bytes = view->itemsize == 1 && (f[0] == 'B' || f[0] == 'b' || f[0] == 'c') && !f[1];
    int typed = itemsize == 4 ? view->itemsize == 4 && f[0] == 'f' && !f[1] : bytes;
    if (view->len != n * itemsize || !(bytes || typed)) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable contiguous buffer of %zd %s", what, n,
                     itemsize == 4 ? "float32 values" : "bytes");
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *table_observe(TableObject *self, PyObject *const *args, Py_ssize_t nargs) {
    /* observe(seat, observation, mask): the seat's observation into ``observation`` (XZ_OBS_SIZE
     * float32) and its action mask into ``mask`` (XZ_ACTION_SPACE int8); either may be None.
     * Returns how many actions are legal. */
    int seat;
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "observe(seat, observation, mask)");
        return NULL;
    }
    if (seat_arg(args[0], &seat) < 0) return NULL;
    Py_buffer obs = {0}, mask = {0};
    if (args[1] != Py_None && out_buffer(args[1], &obs, XZ_OBS_SIZE, 4, "the observation") < 0) return NULL;
    if (args[2] != Py_None && out_buffer(args[2], &mask, XZ_ACTION_SPACE, 1, "the mask") < 0) {
        if (obs.buf) PyBuffer_Release(&obs);
        return NULL;
    }
    int n = 0;
    if (obs.buf) {
        xz_observe(self->hand.g, seat, (float *)obs.buf);
        PyBuffer_Release(&obs);
    }
    if (mask.buf) {
        n = xz_mask(self->hand.g, seat, (int8_t *)mask.buf);
        PyBuffer_Release(&mask);
    }
    return PyLong_FromLong(n);
}

static PyObject *table_rewards(TableObject *self, PyObject *unused) {
    /* the points each seat gained since the last call, as floats */
    (void)unused;
    XzGame *g = self->hand.g;
    double r[4] = {0, 0, 0, 0};
    for (int i = self->ledger_seen; i < g->nledger; i++) {
        r[g->ledger[i].from] -= (double)g->ledger[i].points;
        r[g->ledger[i].to] += (double)g->ledger[i].points;
    }
    self->ledger_seen = g->nledger;
    return Py_BuildValue("(dddd)", r[0], r[1], r[2], r[3]);
}

static PyObject *table_deltas(TableObject *self, PyObject *unused) {
    (void)unused;
    int64_t d[4];
    xz_deltas(self->hand.g, d);
    return Py_BuildValue("(LLLL)", (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3]);
}

static PyObject *table_action_index(PyObject *cls, PyObject *args) {
    /* action_index(type, tile, suit, t0, t1, t2): the index of a packed action (as Hand.legal gives) */
    (void)cls;
    int v[6];
    if (!PyArg_ParseTuple(args, "iiiiii", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5])) return NULL;
    if (v[0] < 0 || v[0] > XZ_ACTION_PASS) {
        PyErr_SetString(PyExc_ValueError, "no such action type");
        return NULL;
    }
    for (int i = 1; i < 6; i++)
        if (v[i] < -1 || v[i] >= XZ_KINDS || (i == 2 && v[i] > 2)) {
            PyErr_SetString(PyExc_ValueError, "a tile is -1 or 0-26, a suit -1 or 0-2");
            return NULL;
        }
    XzAction a = {0, (uint8_t)v[0], (uint8_t)(v[1] < 0 ? 255 : v[1]), (uint8_t)(v[2] < 0 ? 255 : v[2]),
                  {(uint8_t)(v[3] < 0 ? 0 : v[3]), (uint8_t)(v[4] < 0 ? 0 : v[4]), (uint8_t)(v[5] < 0 ? 0 : v[5])},
                  (uint8_t)(v[3] < 0 ? 0 : 3)};
    if ((a.type == XZ_ACTION_DISCARD || a.type == XZ_ACTION_GANG) && v[1] < 0) {
        PyErr_SetString(PyExc_ValueError, "a discard or a kong names its tile");
        return NULL;
    }
    if ((a.type == XZ_ACTION_DINGQUE && v[2] < 0) || (a.type == XZ_ACTION_EXCHANGE && (v[3] < 0 || v[4] < 0 || v[5] < 0
        || v[3] / 9 != v[4] / 9 || v[4] / 9 != v[5] / 9))) {
        PyErr_SetString(PyExc_ValueError, "a dingque names its suit, an exchange three tiles of one suit");
        return NULL;
    }
    return PyLong_FromLong(xz_action_index(&a));
}

static PyObject *table_get_phase(TableObject *self, void *closure) {
    (void)closure;
    return PyLong_FromLong(self->hand.g->phase);
}

static PyObject *table_get_seed(TableObject *self, void *closure) {
    (void)closure;
    return PyLong_FromUnsignedLongLong(self->seed);
}

static PyMethodDef table_methods[] = {
    {"deal", (PyCFunction)(void (*)(void))table_deal, METH_FASTCALL,
     "deal(seed, dealer=-1): a new hand (Match.start_hand's deal from seed), the bots play; the first learner."},
    {"deal_from", (PyCFunction)table_deal_from, METH_VARARGS,
     "deal_from(tiles, dealer, direction): a prepared deal (hands by seat, then the wall); the first learner."},
    {"first", (PyCFunction)table_first, METH_NOARGS, "The first learner that must decide now (-1: none)."},
    {"deciding", (PyCFunction)table_deciding, METH_NOARGS, "The learners that must decide now, in order."},
    {"take", (PyCFunction)(void (*)(void))table_take, METH_FASTCALL,
     "take(seat, index): a learner's action, then the bots; the next learner (-1 none, -2 illegal, -3 over)."},
    {"is_legal", (PyCFunction)(void (*)(void))table_is_legal, METH_FASTCALL,
     "is_legal(seat, index): whether the action of this index is legal for the seat now."},
    {"observe", (PyCFunction)(void (*)(void))table_observe, METH_FASTCALL,
     "observe(seat, observation, mask): write the seat's observation and action mask into the buffers."},
    {"rewards", (PyCFunction)table_rewards, METH_NOARGS, "Points each seat gained since the last call."},
    {"deltas", (PyCFunction)table_deltas, METH_NOARGS, "Each seat's points in this hand."},
    {"action_index", (PyCFunction)table_action_index, METH_VARARGS | METH_STATIC,
     "action_index(type, tile, suit, t0, t1, t2): an action's index in the fixed action space."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef table_getset[] = {
    {"phase", (getter)table_get_phase, NULL, "The phase (0 exchange .. 5 over).", NULL},
    {"seed", (getter)table_get_seed, NULL, "The seed of the hand dealt.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject TableType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xuezhan.native._core.Table",
    .tp_basicsize = sizeof(TableObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Table(rules, bots): hands dealt from seeds, learners' actions by index, compiled bots elsewhere.",
    .tp_methods = table_methods,
    .tp_getset = table_getset,
    .tp_init = (initproc)table_init,
    .tp_new = PyType_GenericNew,
};

/* ------------------------------------------------------------------------------------------
 * Many tables in one call (xuezhan.rl.vector.VectorEnv): each table's learner acts, its bots play
 * on, and the next learner's observation and mask are written into row i of the batch.
 * ------------------------------------------------------------------------------------------ */

/* the tables of a batch: a tuple of Table objects; -1 with an error set otherwise */
static Py_ssize_t tables_arg(PyObject *obj) {
    if (!PyTuple_Check(obj)) {
        PyErr_SetString(PyExc_TypeError, "tables must be a tuple of Table objects");
        return -1;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(obj);
    for (Py_ssize_t i = 0; i < n; i++)
        if (!PyObject_TypeCheck(PyTuple_GET_ITEM(obj, i), &TableType)) {
            PyErr_SetString(PyExc_TypeError, "tables must be a tuple of Table objects");
            return -1;
        }
    return n;
}

/* a writable C-contiguous buffer of exactly ``len`` bytes with items of ``itemsize`` bytes (any
 * integer or float format of that size: the caller's numpy dtype says which) */
static int batch_buffer(PyObject *obj, Py_buffer *view, Py_ssize_t len, Py_ssize_t itemsize, const char *what) {
    if (PyObject_GetBuffer(obj, view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) < 0) return -1;
    if (view->len != len || view->itemsize != itemsize) {
        PyErr_Format(PyExc_ValueError, "%s must be a writable contiguous buffer of %zd bytes in items of %zd",
                     what, len, itemsize);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* row i of the batch: the first learner of table t (-1 when none: a finished hand), its observation
 * and mask (zeros when none) */
static void observe_row(TableObject *t, int8_t *seat, float *obs, int8_t *mask) {
    XzGame *g = t->hand.g;
    XzAction *legal = t->cache;
    int seats[4], np = g->phase == XZ_PHASE_OVER ? 0 : xz_pending(g, seats), n = 0, first = -1;
    for (int i = 0; i < np && first < 0; i++) /* first_learner, keeping its legal actions */
        if (t->bot_code[seats[i]] < 0 && (n = xz_legal(g, seats[i], legal)) > 0) first = seats[i];
    *seat = (int8_t)first;
    t->cache_seat = first;
    t->cache_step = g->nactions;
    t->ncache = n;
    memset(mask, 0, XZ_ACTION_SPACE);
    if (first < 0) {
        memset(obs, 0, sizeof(float) * XZ_OBS_SIZE);
        return;
    }
    xz_observe(g, first, obs);
    for (int i = 0; i < n; i++) {
        int index = action_index(&legal[i]);
        t->cache_index[i] = (int16_t)index;
        mask[index] = 1;
    }
}

/* the legal action of learner ``seat`` at table t with index ``index`` (the cached list when it is
 * still the hand's now), or NULL */
static const XzAction *learner_action(TableObject *t, int seat, int64_t index, XzAction *legal) {
    XzGame *g = t->hand.g;
    if (seat < 0 || seat > 3 || t->bot_code[seat] >= 0 || index < 0 || index >= XZ_ACTION_SPACE) return NULL;
    if (t->cache_seat != seat || t->cache_step != g->nactions || g->phase == XZ_PHASE_OVER)
        return find_legal(g, seat, (long)index, legal);
    for (int i = 0; i < t->ncache; i++)
        if (t->cache_index[i] == index) return &t->cache[i];
    return NULL;
}

/* Seed ahead the generators of the hands the tables deal next (``seeds``), four tables at a time:
 * a table's next seed is known as soon as it deals, long before its hand ends, and seeding four
 * side by side costs about what seeding one does (xz_mt_seed4). Fewer than four waiting are left
 * for a later call; a table whose hand ends before its turn seeds its own at the deal. */
static void preseed(PyObject *tables, Py_ssize_t n, const uint64_t *seeds) {
    XzMT *mt[4];
    uint64_t group[4];
    TableObject *waiting[4];
    int k = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        TableObject *t = (TableObject *)PyTuple_GET_ITEM(tables, i);
        int listed = t->next_ready && t->next_seed == seeds[i];
        for (int q = 0; q < k && !listed; q++) listed = waiting[q] == t; /* a table named twice */
        if (listed) continue;
        waiting[k] = t;
        mt[k] = &t->next_mt;
        group[k++] = seeds[i];
        if (k < 4) continue;
        xz_mt_seed4(mt, group);
        for (int q = 0; q < 4; q++) {
            waiting[q]->next_seed = group[q];
            waiting[q]->next_ready = 1;
        }
        k = 0;
    }
}

enum { B_SEATS, B_ACTIONS, B_SEEDS, B_HANDS, B_OBS, B_MASKS, B_REWARDS, B_DONE, B_FINAL, B_COUNT };

static PyObject *step_tables(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    /* step_tables(tables, seats, actions, seeds, hands, observations, masks, rewards, done, final):
     * table i's learner ``seats[i]`` (int8) takes the action of index ``actions[i]`` (int64), then its
     * bots play until a learner must decide. ``rewards`` (float32, 4 a table) gets the points each
     * seat gained; a hand that ends sets ``done[i]`` (int8) and, when ``seeds`` (uint64 hand seeds,
     * one a table) is not None, table i deals the hand of ``seeds[i]`` at once. ``hands`` (int64, one
     * a table, or None) numbers each table's hand: ``final[i]`` (int64, or None) gets the number of
     * the hand that ended at table i (-1 where none did), and a table that deals again adds the
     * number of tables to its own. Then ``seats[i]`` is the learner to decide next (-1: none, a
     * finished hand not dealt again) and row i of ``observations`` (float32) and ``masks`` (int8) its
     * observation and mask. Returns how many hands ended. Every action is checked first: when table
     * i's is not legal, -1 - i is returned and nothing changes. */
    (void)module;
    if (nargs != 10) {
        PyErr_SetString(PyExc_TypeError,
                        "step_tables(tables, seats, actions, seeds, hands, observations, masks, rewards, done, final)");
        return NULL;
    }
    Py_ssize_t n = tables_arg(args[0]);
    if (n < 0) return NULL;
    Py_buffer b[B_COUNT];
    memset(b, 0, sizeof(b));
    const Py_ssize_t len[B_COUNT] = {n, n * 8, n * 8, n * 8, n * XZ_OBS_SIZE * 4, n * XZ_ACTION_SPACE, n * 16, n, n * 8};
    const Py_ssize_t item[B_COUNT] = {1, 8, 8, 8, 4, 1, 4, 1, 8};
    static const char *what[B_COUNT] = {"seats", "actions", "seeds", "hands", "observations", "masks", "rewards",
                                        "done", "final"};
    PyObject *result = NULL;
    long ended = 0;
    for (int k = 0; k < B_COUNT; k++) {
        if ((k == B_SEEDS || k == B_HANDS || k == B_FINAL) && args[1 + k] == Py_None) continue;
        if (batch_buffer(args[1 + k], &b[k], len[k], item[k], what[k]) < 0) goto done;
    }
    if (b[B_FINAL].obj && !b[B_HANDS].obj) {
        PyErr_SetString(PyExc_ValueError, "final needs the hands' numbers");
        goto done;
    }
    int8_t *seats = b[B_SEATS].buf, *masks = b[B_MASKS].buf, *finished = b[B_DONE].buf;
    const int64_t *actions = b[B_ACTIONS].buf;
    const uint64_t *seeds = b[B_SEEDS].buf;
    int64_t *hands = b[B_HANDS].buf, *final = b[B_FINAL].buf;
    float *obs = b[B_OBS].buf, *rewards = b[B_REWARDS].buf;
    XzAction legal[XZ_MAX_LEGAL];
    for (Py_ssize_t i = 0; i < n; i++) { /* every action checked before any is applied */
        TableObject *t = (TableObject *)PyTuple_GET_ITEM(args[0], i);
        const XzAction *a = learner_action(t, seats[i], actions[i], legal);
        if (!a) {
            result = PyLong_FromSsize_t(-1 - i);
            goto done;
        }
        t->chosen = *a;
    }
    if (seeds) preseed(args[0], n, seeds);
    for (Py_ssize_t i = 0; i < n; i++) {
        TableObject *t = (TableObject *)PyTuple_GET_ITEM(args[0], i);
        XzGame *g = t->hand.g;
        xz_apply(g, &t->chosen);
        run_bots(t);
        if (overflowed(t)) goto done;
        float *r = rewards + 4 * i;
        double paid[4] = {0, 0, 0, 0};
        for (int e = t->ledger_seen; e < g->nledger; e++) {
            paid[g->ledger[e].from] -= (double)g->ledger[e].points;
            paid[g->ledger[e].to] += (double)g->ledger[e].points;
        }
        t->ledger_seen = g->nledger;
        for (int s = 0; s < 4; s++) r[s] = (float)paid[s];
        int over = g->phase == XZ_PHASE_OVER;
        finished[i] = (int8_t)over;
        ended += over;
        if (final) final[i] = over ? hands[i] : -1;
        if (over && seeds) {
            if (deal(t, seeds[i], -1, NULL, 0) < 0) goto done;
            if (hands) hands[i] += n;
        }
        observe_row(t, &seats[i], obs + (size_t)i * XZ_OBS_SIZE, masks + (size_t)i * XZ_ACTION_SPACE);
    }
    result = PyLong_FromLong(ended);
done:
    for (int k = 0; k < B_COUNT; k++)
        if (b[k].obj) PyBuffer_Release(&b[k]);
    return result;
}

static PyObject *observe_tables(PyObject *module, PyObject *const *args, Py_ssize_t nargs) {
    /* observe_tables(tables, seats, observations, masks): row i is table i's first learner to decide
     * (-1: none), its observation and its mask, as step_tables writes them */
    (void)module;
    if (nargs != 4) {
        PyErr_SetString(PyExc_TypeError, "observe_tables(tables, seats, observations, masks)");
        return NULL;
    }
    Py_ssize_t n = tables_arg(args[0]);
    if (n < 0) return NULL;
    Py_buffer seats = {0}, obs = {0}, masks = {0};
    if (batch_buffer(args[1], &seats, n, 1, "seats") < 0) return NULL;
    if (batch_buffer(args[2], &obs, n * XZ_OBS_SIZE * 4, 4, "observations") < 0) {
        PyBuffer_Release(&seats);
        return NULL;
    }
    if (batch_buffer(args[3], &masks, n * XZ_ACTION_SPACE, 1, "masks") < 0) {
        PyBuffer_Release(&seats);
        PyBuffer_Release(&obs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++)
        observe_row((TableObject *)PyTuple_GET_ITEM(args[0], i), (int8_t *)seats.buf + i,
                    (float *)obs.buf + (size_t)i * XZ_OBS_SIZE, (int8_t *)masks.buf + (size_t)i * XZ_ACTION_SPACE);
    PyBuffer_Release(&seats);
    PyBuffer_Release(&obs);
    PyBuffer_Release(&masks);
    Py_RETURN_NONE;
}

static PyMethodDef batch_functions[] = {
    {"step_tables", (PyCFunction)(void (*)(void))step_tables, METH_FASTCALL,
     "step_tables(tables, seats, actions, seeds, hands, observations, masks, rewards, done, final): one step at\n"
     "every table; how many hands ended (-1 - i: table i's action is not legal, nothing changed)."},
    {"observe_tables", (PyCFunction)(void (*)(void))observe_tables, METH_FASTCALL,
     "observe_tables(tables, seats, observations, masks): every table's learner to decide, observed."},
    {NULL, NULL, 0, NULL},
};

int xz_env_add_types(PyObject *module, PyTypeObject *hand_type) {
    TableType.tp_base = hand_type; /* pending, legal, apply, summary, over, step of the hand */
    TableType.tp_dealloc = hand_type->tp_dealloc;
    if (PyType_Ready(&TableType) < 0) return -1;
    if (PyModule_AddFunctions(module, batch_functions) < 0
        || PyModule_AddIntConstant(module, "OBS_SIZE", XZ_OBS_SIZE) < 0
        || PyModule_AddIntConstant(module, "ACTION_SPACE_SIZE", XZ_ACTION_SPACE) < 0)
        return -1;
    return PyModule_AddObjectRef(module, "Table", (PyObject *)&TableType);
}
