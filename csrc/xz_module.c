/* xuezhan.native._core: the batch entry point of the compiled core.
 *
 *   play(seeds, first_dealer, chain, rules, bots, records) -> list of hands
 *
 * Plays one hand per seed without calling back into Python: hand k is dealt from seeds[k]
 * (as Match.start_hand deals from Random(hand_seed)), its dealer is first_dealer for the first
 * hand (-1: by dice) and, with chain, the previous hand's next dealer (-1: by dice) after it.
 * Each hand is (dealer, next_dealer | None, exhausted, deltas, wins, detail): wins are
 * (seat, fan) pairs; detail is None unless records, else (dice, layout, exchange_direction,
 * actions, events, ledger, winners) with the last four as packed int64 arrays (see
 * xuezhan/native/__init__.py, which reads them). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "xz_engine.h"

/* the fan patterns and extras the scorer implements (xz_engine.c's xz_fan_implemented), by name */
static PyObject *fan_implemented(void) {
    static const char *const names[XZ_FAN_COUNT] = XZ_FAN_NAMES;
    int n = 0;
    while (xz_fan_implemented[n] >= 0) n++;
    PyObject *out = PyTuple_New(n);
    if (!out) return NULL;
    for (int i = 0; i < n; i++) {
        PyObject *name = PyUnicode_FromString(names[xz_fan_implemented[i]]);
        if (!name) {
            Py_DECREF(out);
            return NULL;
        }
        PyTuple_SET_ITEM(out, i, name);
    }
    return out;
}

static PyObject *packed(const int64_t *words, Py_ssize_t n) {
    return PyBytes_FromStringAndSize((const char *)words, n * (Py_ssize_t)sizeof(int64_t));
}

static PyObject *hand_detail(const XzGame *g) {
    PyObject *dice = g->dice[0] ? Py_BuildValue("(ii)", g->dice[0], g->dice[1]) : Py_NewRef(Py_None);
    PyObject *layout = PyBytes_FromStringAndSize((const char *)g->layout, 108);
    PyObject *direction = g->rules->exchange_three != XZ_EXCHANGE_THREE_NONE && g->exchange_direction ? PyLong_FromLong(g->exchange_direction)
                                                                       : Py_NewRef(Py_None);
    int64_t *buf = PyMem_Malloc(sizeof(int64_t) * (size_t)(g->nactions * 7 + g->nledger * 4 + g->nwins * 26 + 1));
    if (!dice || !layout || !direction || !buf) {
        Py_XDECREF(dice); Py_XDECREF(layout); Py_XDECREF(direction); PyMem_Free(buf);
        return PyErr_NoMemory();
    }
    Py_ssize_t n = 0;
    for (int i = 0; i < g->nactions; i++) {
        const XzAction *a = &g->actions[i];
        buf[n++] = a->seat; buf[n++] = a->type;
        buf[n++] = a->tile == 255 ? -1 : a->tile;
        buf[n++] = a->suit == 255 ? -1 : a->suit;
        buf[n++] = a->ntiles ? a->tiles[0] : -1;
        buf[n++] = a->ntiles ? a->tiles[1] : -1;
        buf[n++] = a->ntiles ? a->tiles[2] : -1;
    }
    PyObject *actions = packed(buf, n);
    n = 0;
    for (int i = 0; i < g->nledger; i++) {
        buf[n++] = g->ledger[i].from; buf[n++] = g->ledger[i].to;
        buf[n++] = g->ledger[i].points; buf[n++] = g->ledger[i].reason;
    }
    PyObject *ledger = packed(buf, n);
    n = 0;
    for (int i = 0; i < g->nwins; i++) {
        const XzWin *w = &g->wins[i];
        buf[n++] = w->seat; buf[n++] = w->from; buf[n++] = w->tile; buf[n++] = w->fan;
        buf[n++] = w->multiple; buf[n++] = w->order; buf[n++] = w->base; buf[n++] = w->json_points;
        buf[n++] = w->robbed; buf[n++] = w->nextras;
        for (int k = 0; k < 8; k++) {
            buf[n++] = k < w->nextras ? w->extra_id[k] : -1;
            buf[n++] = k < w->nextras ? w->extra_fan[k] : 0;
        }
    }
    PyObject *winners = packed(buf, n);
    PyMem_Free(buf);
    PyObject *events = packed(g->events, g->nevents_words);
    if (!actions || !ledger || !winners || !events) {
        Py_XDECREF(actions); Py_XDECREF(ledger); Py_XDECREF(winners); Py_XDECREF(events);
        Py_DECREF(dice); Py_DECREF(layout); Py_DECREF(direction);
        return NULL;
    }
    return Py_BuildValue("(NNNNNNN)", dice, layout, direction, actions, events, ledger, winners);
}

static PyObject *hand_tuple(const XzGame *g, int records) {
    int64_t d[4];
    xz_deltas(g, d);
    PyObject *wins = PyTuple_New(g->nwins);
    if (!wins) return NULL;
    for (int i = 0; i < g->nwins; i++) {
        PyObject *w = Py_BuildValue("(ii)", g->wins[i].seat, g->wins[i].fan);
        if (!w) { Py_DECREF(wins); return NULL; }
        PyTuple_SET_ITEM(wins, i, w);
    }
    PyObject *detail = records ? hand_detail(g) : Py_NewRef(Py_None);
    if (!detail) { Py_DECREF(wins); return NULL; }
    PyObject *nd = g->next_dealer >= 0 ? PyLong_FromLong(g->next_dealer) : Py_NewRef(Py_None);
    int exhausted = g->wall_empty_at >= 0 && g->wall_empty_at >= g->nevents - 3;
    return Py_BuildValue("(iNO(LLLL)NN)", g->dealer, nd, exhausted ? Py_True : Py_False,
                         (long long)d[0], (long long)d[1], (long long)d[2], (long long)d[3], wins, detail);
}

/* a compiled bot by code (``bot`` NULL: only check that it exists and can be made); -1 with an error set */
static int make_bot(XzBot *bot, long code, uint64_t salt) {
    XzBot scratch;
    int r = code < 0 || code > 255 ? -1 : xz_make_bot(bot ? bot : &scratch, (int)code, salt);
    if (r == -1) PyErr_Format(PyExc_ValueError, "no compiled bot with code %ld", code);
    else if (r == -3) PyErr_SetString(PyExc_ValueError, "the compiled learned bot has no weights (set_learned)");
    else if (r < 0) PyErr_NoMemory();
    return r < 0 ? -1 : 0;
}

static PyObject *core_play(PyObject *self, PyObject *args) {
    (void)self;
    PyObject *seeds_obj, *rules_obj, *bots_obj;
    int first_dealer, chain, records;
    if (!PyArg_ParseTuple(args, "OipOOp", &seeds_obj, &first_dealer, &chain, &rules_obj, &bots_obj, &records))
        return NULL;
    if (first_dealer < -1 || first_dealer > 3) {
        PyErr_SetString(PyExc_ValueError, "first_dealer must be -1 (dice) or a seat 0-3");
        return NULL;
    }
    XzRules R;
    if (xz_py_rules(rules_obj, &R) < 0) return NULL;
    PyObject *bots_fast = PySequence_Fast(bots_obj, "bots must be a sequence of four bot codes");
    if (!bots_fast) return NULL;
    int bot_kind[4];
    if (PySequence_Fast_GET_SIZE(bots_fast) != 4) {
        Py_DECREF(bots_fast);
        PyErr_SetString(PyExc_ValueError, "bots must be four bot codes");
        return NULL;
    }
    for (int i = 0; i < 4; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(bots_fast, i));
        if (v == -1 && PyErr_Occurred()) { Py_DECREF(bots_fast); return NULL; }
        bot_kind[i] = (int)v;
        if (make_bot(NULL, v, 0) < 0) { Py_DECREF(bots_fast); return NULL; }
    }
    Py_DECREF(bots_fast);
    PyObject *seeds = PySequence_Fast(seeds_obj, "seeds must be a sequence of integers");
    if (!seeds) return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seeds);
    XzGame *g = PyMem_Malloc(sizeof(XzGame));
    int64_t *events = records ? PyMem_Malloc(sizeof(int64_t) * XZ_MAX_EVENTS) : NULL;
    PyObject *out = PyList_New(n);
    if (!g || (records && !events) || !out) {
        PyMem_Free(g); PyMem_Free(events); Py_XDECREF(out); Py_DECREF(seeds);
        return PyErr_NoMemory();
    }
    xz_init_tables();
    int dealer = first_dealer;
    for (Py_ssize_t k = 0; k < n; k++) {
        PyObject *item = PySequence_Fast_GET_ITEM(seeds, k);
        if (!PyLong_Check(item)) {
            PyErr_Format(PyExc_TypeError, "seeds[%zd] is not an integer", k);
            goto fail;
        }
        unsigned long long seed = PyLong_AsUnsignedLongLong(item);
        if (seed == (unsigned long long)-1 && PyErr_Occurred()) {
            PyErr_Clear();
            PyErr_Format(PyExc_ValueError, "seeds[%zd] is not an integer from 0 to 2**64 - 1", k);
            goto fail;
        }
        g->record_events = records;
        g->events = events;
        XzBot bots[4];
        XzBot *bp[4];
        for (int s = 0; s < 4; s++) {
            xz_make_bot(&bots[s], bot_kind[s], xz_bot_seed((uint64_t)seed, s)); /* checked above */
            bp[s] = &bots[s];
        }
        Py_BEGIN_ALLOW_THREADS /* the hand touches no Python object */
        xz_new_game(g, &R, (uint64_t)seed, dealer);
        xz_play(g, bp);
        Py_END_ALLOW_THREADS
        if (g->overflow || g->phase != XZ_PHASE_OVER) {
            PyErr_Format(PyExc_RuntimeError, "hand %zd ran past the compiled core's buffers", k);
            goto fail;
        }
        PyObject *h = hand_tuple(g, records);
        if (!h) goto fail;
        PyList_SET_ITEM(out, k, h);
        dealer = chain ? g->next_dealer : first_dealer;
    }
    PyMem_Free(g);
    PyMem_Free(events);
    Py_DECREF(seeds);
    return out;
fail:
    PyMem_Free(g);
    PyMem_Free(events);
    Py_DECREF(seeds);
    Py_DECREF(out);
    return NULL;
}

static PyObject *core_mt_random(PyObject *self, PyObject *args) {
    /* the first ``count`` random() values of Random(seed): a check that the generators agree */
    (void)self;
    unsigned long long seed;
    int count;
    if (!PyArg_ParseTuple(args, "Ki", &seed, &count)) return NULL;
    if (count < 0 || count > 100000) {
        PyErr_SetString(PyExc_ValueError, "count must be from 0 to 100000");
        return NULL;
    }
    XzMT mt;
    xz_mt_seed(&mt, seed);
    PyObject *out = PyList_New(count);
    if (!out) return NULL;
    for (int i = 0; i < count; i++) {
        PyObject *v = PyFloat_FromDouble(xz_mt_random(&mt));
        if (!v) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *core_shanten(PyObject *self, PyObject *args) {
    /* hand.shanten(counts, n_melds, meld_suits=..., void=...) as the compiled bots compute it */
    (void)self;
    Py_buffer counts;
    int n_melds, meld_suits, void_suit;
    if (!PyArg_ParseTuple(args, "y*iii", &counts, &n_melds, &meld_suits, &void_suit)) return NULL;
    int ok = counts.len == 27 && n_melds >= 0 && n_melds <= 4 && meld_suits >= 0 && meld_suits <= 7
             && void_suit >= -1 && void_suit <= 2;
    int32_t keys[3] = {0, 0, 0};
    static const int32_t pow5[9] = {1, 5, 25, 125, 625, 3125, 15625, 78125, 390625};
    for (int t = 0; ok && t < 27; t++) {
        uint8_t c = ((const uint8_t *)counts.buf)[t];
        if (c > 4) ok = 0;
        else keys[t / 9] += c * pow5[t % 9];
    }
    PyBuffer_Release(&counts);
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "27 counts of 0-4, 0-4 melds, a suit mask 0-7 and a void -1-2");
        return NULL;
    }
    XzBot scratch;
    if (xz_heuristic_bot(&scratch, 0) < 0) return PyErr_NoMemory();
    return PyLong_FromLong(xz_shanten(keys, n_melds, meld_suits, void_suit));
}

static int read_action(PyObject *obj, XzAction *a) {
    /* None (-> type 255: no action) or 8 integers, as xuezhan.engine.packed.pack_action */
    int64_t v[8];
    if (obj == Py_None) {
        a->type = 255;
        return 0;
    }
    if (!PyArg_ParseTuple(obj, "LLLLLLLL", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])) return -1;
    for (int i = 0; i < 8; i++)
        if (v[i] < -1 || v[i] > 26) v[i] = 254; /* refused when applied, as a value no action holds */
    a->seat = (uint8_t)(v[0] < 0 ? 254 : v[0]);
    a->type = (uint8_t)(v[1] < 0 ? 254 : v[1]);
    a->tile = (uint8_t)(v[2] < 0 ? 255 : v[2]);
    a->suit = (uint8_t)(v[3] < 0 ? 255 : v[3]);
    a->ntiles = (uint8_t)(v[4] == 0 ? 0 : v[4] == 3 ? 3 : 255);
    for (int k = 0; k < 3; k++) a->tiles[k] = (uint8_t)(v[5 + k] < 0 ? 0 : v[5 + k]);
    return 0;
}

/* what both play-out calls read: the rules, the compiled bots, the actions, the hand state loaded and a
 * scratch hand for each play-out (``R`` is where the loaded hands' rules live: keep it in place) */
typedef struct {
    XzRules R;
    XzBot bots[4];
    XzBot *bp[4];
    Py_ssize_t na;
    XzAction *actions;
    XzGame *base, *g;
} PlayOuts;

static void play_outs_free(PlayOuts *p) {
    PyMem_Free(p->actions);
    PyMem_Free(p->base);
    PyMem_Free(p->g);
}

/* 0, or -1 with an error set; play_outs_free either way */
static int play_outs_read(PlayOuts *p, PyObject *rules_obj, const Py_buffer *state, PyObject *actions_obj,
                          PyObject *bots_obj) {
    memset(p, 0, sizeof *p);
    PyObject *fast = NULL, *acts = NULL;
    int r = -1;
    if (xz_py_rules(rules_obj, &p->R) < 0) goto done;
    fast = PySequence_Fast(bots_obj, "bots must be four bot codes");
    if (!fast) goto done;
    if (PySequence_Fast_GET_SIZE(fast) != 4) {
        PyErr_SetString(PyExc_ValueError, "bots must be four bot codes");
        goto done;
    }
    for (int i = 0; i < 4; i++) {
        long code = PyLong_AsLong(PySequence_Fast_GET_ITEM(fast, i));
        if ((code == -1 && PyErr_Occurred()) || make_bot(&p->bots[i], code, 0) < 0) goto done;
        p->bp[i] = &p->bots[i];
    }
    acts = PySequence_Fast(actions_obj, "actions must be a sequence");
    if (!acts) goto done;
    p->na = PySequence_Fast_GET_SIZE(acts);
    p->actions = PyMem_Malloc(sizeof(XzAction) * (size_t)(p->na ? p->na : 1));
    p->base = PyMem_Malloc(sizeof(XzGame));
    p->g = PyMem_Malloc(sizeof(XzGame));
    if (!p->actions || !p->base || !p->g) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t k = 0; k < p->na; k++)
        if (read_action(PySequence_Fast_GET_ITEM(acts, k), &p->actions[k]) < 0) goto done;
    if (state->len % (Py_ssize_t)sizeof(int64_t)
        || xz_load_game(p->base, &p->R, (const int64_t *)state->buf, (size_t)state->len / sizeof(int64_t)) < 0) {
        PyErr_SetString(PyExc_ValueError, "a malformed hand state");
        goto done;
    }
    r = 0;
done:
    Py_XDECREF(fast);
    Py_XDECREF(acts);
    return r;
}

/* one play-out: ``world`` copied into ``g``, its live wall in ``order`` (NULL: as dealt), ``a`` applied
 * (type 255: none) and the hand played to its end by ``bp``; its deltas in ``d``. -1 with an error set */
static int play_action(XzGame *g, const XzGame *world, const uint8_t *order, const XzAction *a, XzBot *bp[4],
                       int64_t d[4]) {
    xz_copy_game(g, world);
    int n = order ? world->tail - world->head : 0;
    for (int i = 0; i < n; i++) g->wall[g->head + i] = world->wall[world->head + order[i]];
    if (a->type != 255) {
        const char *why = xz_try_apply(g, a);
        if (why) {
            PyErr_Format(PyExc_ValueError, "the action is not legal in this state (%s)", why);
            return -1;
        }
    }
    Py_BEGIN_ALLOW_THREADS
    xz_play(g, bp);
    Py_END_ALLOW_THREADS
    if (g->overflow || g->phase != XZ_PHASE_OVER) {
        PyErr_SetString(PyExc_RuntimeError, "the hand state could not be played to its end");
        return -1;
    }
    xz_deltas(g, d);
    return 0;
}

static PyObject *core_play_outs(PyObject *self, PyObject *args) {
    /* (rules, state, actions, bots, wall_seeds): the hand of ``state`` (int64 words,
     * xuezhan.engine.packed.pack_state) played to its end by the compiled bots once for every
     * wall seed and action, in that order (seeds outer): its live wall shuffled by
     * random.Random(seed) when the seed is not 0, then the action (8 integers, or None) applied;
     * returns a list of the four deltas of the whole hand, one tuple a play-out */
    (void)self;
    PyObject *rules_obj, *actions_obj, *bots_obj, *seeds_obj, *seeds = NULL, *out = NULL;
    Py_buffer state;
    if (!PyArg_ParseTuple(args, "Oy*OOO", &rules_obj, &state, &actions_obj, &bots_obj, &seeds_obj)) return NULL;
    PlayOuts p;
    if (play_outs_read(&p, rules_obj, &state, actions_obj, bots_obj) < 0) goto fail;
    seeds = PySequence_Fast(seeds_obj, "wall seeds must be a sequence");
    out = seeds ? PyList_New(0) : NULL;
    if (!out) goto fail;
    uint8_t order[108];
    int n = p.base->tail - p.base->head;
    for (Py_ssize_t s = 0; s < PySequence_Fast_GET_SIZE(seeds); s++) {
        unsigned long long seed = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seeds, s));
        if (seed == (unsigned long long)-1 && PyErr_Occurred()) goto fail;
        if (seed) xz_shuffle_order(seed, n, order); /* seeding costs more than the shuffle: once a seed */
        for (Py_ssize_t k = 0; k < p.na; k++) {
            int64_t d[4];
            if (play_action(p.g, p.base, seed ? order : NULL, &p.actions[k], p.bp, d) < 0) goto fail;
            PyObject *row = Py_BuildValue("(LLLL)", (long long)d[0], (long long)d[1], (long long)d[2],
                                          (long long)d[3]);
            if (!row || PyList_Append(out, row) < 0) {
                Py_XDECREF(row);
                goto fail;
            }
            Py_DECREF(row);
        }
    }
    play_outs_free(&p);
    Py_DECREF(seeds);
    PyBuffer_Release(&state);
    return out;
fail:
    play_outs_free(&p);
    Py_XDECREF(seeds);
    Py_XDECREF(out);
    PyBuffer_Release(&state);
    return NULL;
}

/* the deal of a search's worlds (core_search_worlds): 1 if it reads, else 0 */
static int read_deal(XzDeal *D, const Py_buffer *deal, const Py_buffer *scale, const Py_buffer *given) {
    memset(D, 0, sizeof *D);
    const int64_t *w = deal->buf;
    size_t n = (size_t)deal->len / sizeof(int64_t);
    int ok = deal->len % (Py_ssize_t)sizeof(int64_t) == 0 && n >= 30;
    if (ok) {
        D->me = (int)w[0];
        D->nhidden = (int)w[1];
        D->n_by = (int)w[2];
        ok = D->me >= 0 && D->me < 4 && D->nhidden >= 0 && D->nhidden <= 3 && D->n_by >= 0 && D->n_by <= 108
             && n == 30 + 4 * (size_t)D->nhidden;
    }
    for (int t = 0; ok && t < 27; t++) {
        D->unseen[t] = (int)w[3 + t];
        ok = w[3 + t] >= 0 && w[3 + t] <= 4;
    }
    for (int h = 0; ok && h < D->nhidden; h++) {
        const int64_t *q = w + 30 + 4 * h;
        D->hidden[h] = (int)q[0];
        D->n[h] = (int)q[1];
        D->void_suit[h] = (int)q[2];
        D->no_void[h] = (int)q[3];
        ok = q[0] >= 0 && q[0] < 4 && q[0] != D->me && q[1] >= 0 && q[1] <= 14 && q[2] >= -1 && q[2] <= 2
             && (q[3] == 0 || (q[3] == 1 && q[2] >= 0));
    }
    D->weighted = scale->len > 0;
    if (ok && D->weighted) {
        ok = scale->len == (Py_ssize_t)(sizeof(double) * 27 * (size_t)D->nhidden);
        for (int h = 0; ok && h < D->nhidden; h++)
            for (int t = 0; t < 27; t++) {
                double x = ((const double *)scale->buf)[27 * h + t];
                if (!(x > 0)) ok = 0; /* a rate is positive, inf included; NaN is not */
                D->scale[h][t] = x;
            }
    }
    if (ok && given->len) {
        ok = given->len == 28 * D->nhidden;
        for (int h = 0; ok && h < D->nhidden; h++) {
            const int8_t *q = (const int8_t *)given->buf + 28 * h;
            D->given[h] = q[0] != 0;
            for (int t = 0; t < 27; t++) {
                D->hand[h][t] = q[1 + t];
                if (q[1 + t] < 0 || q[1 + t] > 4) ok = 0;
            }
        }
    }
    return ok;
}

/* a random.Random's state (getstate()[1]: 624 words and the index) into ``mt``: 1 if it reads, else 0 */
static int read_mt(XzMT *mt, PyObject *obj) {
    PyObject *mf = PySequence_Fast(obj, "mt must be a random.Random state");
    int ok = mf && PySequence_Fast_GET_SIZE(mf) == 625;
    for (int i = 0; ok && i < 625; i++) {
        unsigned long v = PyLong_AsUnsignedLong(PySequence_Fast_GET_ITEM(mf, i));
        if ((v == (unsigned long)-1 && PyErr_Occurred()) || v > 0xFFFFFFFFUL || (i == 624 && v > 624)) ok = 0;
        else if (i < 624) mt->mt[i] = (uint32_t)v;
        else mt->mti = (int)v;
    }
    Py_XDECREF(mf);
    PyErr_Clear();
    return ok;
}

static PyObject *core_search_worlds(PyObject *self, PyObject *args) {
    /* (rules, state, deal, scale, mt, worlds, orders, actions, bots, given, check, tries): a search's
     * play-outs with its worlds dealt in the core. ``state`` is a world of the view packed (pack_state)
     * whose hidden hands are dealt afresh; ``deal`` the int64 words me, the hidden seats' count, the
     * bystanders' tiles, 27 unseen copies, then per hidden seat its seat, tiles, void (-1) and whether it
     * holds none of it; ``scale`` the float64 rates of the weighted draws (27 a hidden seat) or empty;
     * ``mt`` the state of a random.Random (getstate()[1]: 624 words and the index). For each of
     * ``worlds`` worlds, drawn as the search's Python loop draws them (the world, then orders - 1 wall
     * seeds, getrandbits(64) | 1), each action is played to the end under each wall order. ``given``:
     * empty, or per hidden seat a flag and 27 counts, its hand in every world, the world dealt again
     * (``tries`` at most) while one of the ``check`` seats is ready (ExpertBot.ready_world). Returns the
     * tuple of each action's points for ``me`` summed over the orders, one a world, and the generator's
     * state after */
    (void)self;
    PyObject *rules_obj, *actions_obj, *bots_obj, *mt_obj, *check_obj, *cf = NULL, *out = NULL, *mt_out = NULL;
    PyObject *result = NULL;
    Py_buffer state, deal, scale, given;
    int worlds, orders, tries;
    if (!PyArg_ParseTuple(args, "Oy*y*y*OiiOOy*Oi", &rules_obj, &state, &deal, &scale, &mt_obj, &worlds, &orders,
                          &actions_obj, &bots_obj, &given, &check_obj, &tries))
        return NULL;
    PlayOuts p;
    XzDeal D;
    XzMT mt;
    XzGame *world = NULL;
    int check[4], ncheck = 0;
    if (play_outs_read(&p, rules_obj, &state, actions_obj, bots_obj) < 0) goto fail;
    int ok = read_deal(&D, &deal, &scale, &given) && read_mt(&mt, mt_obj) && worlds >= 1 && orders >= 1
             && tries >= 1 && p.na <= 64;
    cf = PySequence_Fast(check_obj, "check must be seats");
    if (!cf) goto fail;
    ncheck = (int)PySequence_Fast_GET_SIZE(cf);
    ok = ok && ncheck <= 4;
    for (int i = 0; ok && i < ncheck; i++) {
        long o = PyLong_AsLong(PySequence_Fast_GET_ITEM(cf, i));
        check[i] = (int)o;
        ok = o >= 0 && o < 4;
    }
    PyErr_Clear();
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "a malformed deal of the search's worlds");
        goto fail;
    }
    world = PyMem_Malloc(sizeof(XzGame));
    out = world ? PyList_New(0) : PyErr_NoMemory();
    if (!out) goto fail;
    uint8_t order[108];
    int64_t sums[64];
    for (int wi = 0; wi < worlds; wi++) {
        if (xz_deal_ready_world(world, p.base, &D, &mt, check, ncheck, tries) < 0) {
            PyErr_SetString(PyExc_ValueError, "the deal does not fit the hand state");
            goto fail;
        }
        int n = world->tail - world->head;
        for (Py_ssize_t k = 0; k < p.na; k++) sums[k] = 0;
        for (int s = 0; s < orders; s++) {
            uint64_t wall_seed = s ? xz_mt_bits64(&mt) | 1 : 0;
            if (wall_seed) xz_shuffle_order(wall_seed, n, order);
            for (Py_ssize_t k = 0; k < p.na; k++) {
                int64_t d[4];
                if (play_action(p.g, world, wall_seed ? order : NULL, &p.actions[k], p.bp, d) < 0) goto fail;
                sums[k] += d[D.me];
            }
        }
        PyObject *row = PyTuple_New(p.na);
        if (!row) goto fail;
        for (Py_ssize_t k = 0; k < p.na; k++) {
            PyObject *v = PyLong_FromLongLong((long long)sums[k]);
            if (!v) {
                Py_DECREF(row);
                goto fail;
            }
            PyTuple_SET_ITEM(row, k, v);
        }
        if (PyList_Append(out, row) < 0) {
            Py_DECREF(row);
            goto fail;
        }
        Py_DECREF(row);
    }
    mt_out = PyTuple_New(625);
    if (!mt_out) goto fail;
    for (int i = 0; i < 625; i++) {
        PyObject *v = PyLong_FromUnsignedLong(i < 624 ? mt.mt[i] : (unsigned long)mt.mti);
        if (!v) goto fail;
        PyTuple_SET_ITEM(mt_out, i, v);
    }
    result = Py_BuildValue("(OO)", out, mt_out);
fail:
    play_outs_free(&p);
    PyMem_Free(world);
    Py_XDECREF(cf);
    Py_XDECREF(out);
    Py_XDECREF(mt_out);
    PyBuffer_Release(&state);
    PyBuffer_Release(&deal);
    PyBuffer_Release(&scale);
    PyBuffer_Release(&given);
    return result;
}

/* --- Hand: one hand played action by action (the records of xuezhan.engine.Game) ----------------- */
static void hand_dealloc(HandObject *self) {
    PyMem_Free(self->g);
    PyMem_Free(self->events);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int hand_init(HandObject *self, PyObject *args, PyObject *kwds) {
    (void)kwds;
    unsigned long long seed;
    int dealer, direction = 0;
    PyObject *rules_obj;
    Py_buffer deal = {0};
    if (!PyArg_ParseTuple(args, "KiO|y*i", &seed, &dealer, &rules_obj, &deal, &direction)) return -1;
    int prepared = deal.buf != NULL;
    if (prepared && (deal.len != 108 || dealer < 0 || direction < 0 || direction > 3)) {
        PyBuffer_Release(&deal);
        PyErr_SetString(PyExc_ValueError, "a prepared deal is 108 tiles with its dealer and a direction 0-3");
        return -1;
    }
    if (dealer < -1 || dealer > 3) {
        if (prepared) PyBuffer_Release(&deal);
        PyErr_SetString(PyExc_ValueError, "dealer must be -1 (dice) or a seat 0-3");
        return -1;
    }
    uint8_t tiles[108];
    if (prepared) {
        memcpy(tiles, deal.buf, 108);
        PyBuffer_Release(&deal);
    }
    if (xz_py_rules(rules_obj, &self->rules) < 0) return -1;
    if (!self->g) self->g = PyMem_Malloc(sizeof(XzGame));
    if (!self->events) self->events = PyMem_Malloc(sizeof(int64_t) * XZ_MAX_EVENTS);
    if (!self->g || !self->events) {
        PyErr_NoMemory();
        return -1;
    }
    xz_init_tables();
    self->g->record_events = 1;
    self->g->events = self->events;
    if (!prepared) {
        xz_new_game(self->g, &self->rules, (uint64_t)seed, dealer);
    } else if (xz_new_game_from_deal(self->g, &self->rules, tiles, dealer, direction) < 0) {
        PyMem_Free(self->g);
        self->g = NULL;
        PyErr_SetString(PyExc_ValueError, "a prepared deal holds every tile four times");
        return -1;
    }
    return 0;
}

static int ready(HandObject *self) {
    if (!self->g) {
        PyErr_SetString(PyExc_ValueError, "the hand was not dealt");
        return 0;
    }
    return 1;
}

static PyObject *action_tuple(const XzAction *a) {
    return Py_BuildValue("(iiiiiii)", a->seat, a->type, a->tile == 255 ? -1 : a->tile, a->suit == 255 ? -1 : a->suit,
                         a->ntiles ? a->tiles[0] : -1, a->ntiles ? a->tiles[1] : -1, a->ntiles ? a->tiles[2] : -1);
}

static PyObject *hand_pending(HandObject *self, PyObject *unused) {
    (void)unused;
    if (!ready(self)) return NULL;
    int seats[4], n = xz_pending(self->g, seats);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) PyList_SET_ITEM(out, i, PyLong_FromLong(seats[i]));
    return out;
}

/* a seat 0-3 from a Python integer; -1 with an error set */
static int seat_arg(PyObject *arg) {
    long seat = PyLong_AsLong(arg);
    if (seat == -1 && PyErr_Occurred()) return -1;
    if (seat < 0 || seat > 3) {
        PyErr_SetString(PyExc_ValueError, "a seat is 0-3");
        return -1;
    }
    return (int)seat;
}

static PyObject *hand_legal(HandObject *self, PyObject *arg) {
    if (!ready(self)) return NULL;
    int seat = seat_arg(arg);
    if (seat < 0) return NULL;
    XzAction legal[XZ_MAX_LEGAL];
    int n = self->g->phase == XZ_PHASE_OVER ? 0 : xz_legal(self->g, seat, legal);
    PyObject *out = PyList_New(n);
    for (int i = 0; out && i < n; i++) {
        PyObject *t = action_tuple(&legal[i]);
        if (!t) { Py_DECREF(out); return NULL; }
        PyList_SET_ITEM(out, i, t);
    }
    return out;
}

static PyObject *hand_apply(HandObject *self, PyObject *args) {
    /* (seat, type, tile, suit, ntiles, t0, t1, t2): 254 for a value out of range, ntiles 255 for
     * tiles no legal action can have; returns None when applied, else the reason's code */
    if (!ready(self)) return NULL;
    int v[8];
    if (!PyArg_ParseTuple(args, "iiiiiiii", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7])) return NULL;
    for (int i = 0; i < 8; i++)
        if (v[i] < 0 || v[i] > 255) {
            PyErr_SetString(PyExc_ValueError, "action fields are 0-255");
            return NULL;
        }
    XzAction a = {(uint8_t)v[0], (uint8_t)v[1], (uint8_t)v[2], (uint8_t)v[3],
                  {(uint8_t)v[5], (uint8_t)v[6], (uint8_t)v[7]}, (uint8_t)v[4]};
    const char *why = xz_try_apply(self->g, &a);
    if (self->g->overflow) {
        PyErr_SetString(PyExc_RuntimeError, "the hand ran past the compiled core's buffers");
        return NULL;
    }
    if (why) return PyUnicode_FromString(why);
    Py_RETURN_NONE;
}

static PyObject *hand_summary(HandObject *self, PyObject *unused) {
    (void)unused;
    if (!ready(self)) return NULL;
    return hand_tuple(self->g, 1);
}

static PyObject *hand_get_over(HandObject *self, void *closure) {
    (void)closure;
    if (!ready(self)) return NULL;
    return PyBool_FromLong(self->g->phase == XZ_PHASE_OVER);
}

static PyObject *hand_get_step(HandObject *self, void *closure) {
    (void)closure;
    if (!ready(self)) return NULL;
    return PyLong_FromLong(self->g->nactions);
}

static PyObject *hand_choose(HandObject *self, PyObject *args) {
    /* (seat, bot code, salt): the index in legal(seat) of the compiled bot's choice, None when the
     * seat has nothing to do */
    if (!ready(self)) return NULL;
    int seat;
    long code;
    unsigned long long salt = 0;
    if (!PyArg_ParseTuple(args, "il|K", &seat, &code, &salt)) return NULL;
    if (seat < 0 || seat > 3) {
        PyErr_SetString(PyExc_ValueError, "a seat is 0-3");
        return NULL;
    }
    XzBot bot;
    if (make_bot(&bot, code, (uint64_t)salt) < 0) return NULL;
    XzAction legal[XZ_MAX_LEGAL];
    int n = self->g->phase == XZ_PHASE_OVER ? 0 : xz_legal(self->g, seat, legal);
    if (!n) Py_RETURN_NONE;
    return PyLong_FromLong(n > 1 ? bot.choose(&bot, self->g, seat, legal, n) : 0);
}

static PyObject *hand_learned_features(HandObject *self, PyObject *arg) {
    /* (seat): bots.learned.features of the seat's legal actions as the compiled learned bot reads
     * them: (the table summary, one row a legal action), tuples of floats; None when the seat has
     * nothing to do */
    if (!ready(self)) return NULL;
    int seat = seat_arg(arg);
    if (seat < 0) return NULL;
    XzBot scratch;
    if (xz_heuristic_bot(&scratch, 0) < 0) return PyErr_NoMemory(); /* the shanten tables */
    XzAction legal[XZ_MAX_LEGAL];
    int n = self->g->phase == XZ_PHASE_OVER ? 0 : xz_legal(self->g, seat, legal);
    if (!n) Py_RETURN_NONE;
    float table[XZ_L_NT];
    float *rows = PyMem_Malloc(sizeof(float) * XZ_L_NA * (size_t)n);
    if (!rows) return PyErr_NoMemory();
    xz_learned_features(self->g, seat, legal, n, table, rows);
    PyObject *tb = PyTuple_New(XZ_L_NT), *rs = PyList_New(n);
    for (int i = 0; tb && i < XZ_L_NT; i++) PyTuple_SET_ITEM(tb, i, PyFloat_FromDouble(table[i]));
    for (int i = 0; tb && rs && i < n; i++) {
        PyObject *row = PyTuple_New(XZ_L_NA);
        if (!row) { Py_CLEAR(rs); break; }
        for (int k = 0; k < XZ_L_NA; k++) PyTuple_SET_ITEM(row, k, PyFloat_FromDouble(rows[i * XZ_L_NA + k]));
        PyList_SET_ITEM(rs, i, row);
    }
    PyMem_Free(rows);
    if (!tb || !rs) {
        Py_XDECREF(tb);
        Py_XDECREF(rs);
        return NULL;
    }
    return Py_BuildValue("(NN)", tb, rs);
}

static PyMethodDef hand_methods[] = {
    {"pending", (PyCFunction)hand_pending, METH_NOARGS, "The seats that must act now."},
    {"legal", (PyCFunction)hand_legal, METH_O, "The legal actions of a seat, as tuples."},
    {"apply", (PyCFunction)hand_apply, METH_VARARGS, "Apply an action, or return why it is illegal."},
    {"summary", (PyCFunction)hand_summary, METH_NOARGS, "The hand as play() gives it, with records."},
    {"choose", (PyCFunction)hand_choose, METH_VARARGS, "The index of a compiled bot's choice among legal(seat)."},
    {"learned_features", (PyCFunction)hand_learned_features, METH_O,
     "The learned bot's features of a seat's legal actions: (table, rows)."},
    {NULL, NULL, 0, NULL},
};

static PyGetSetDef hand_getset[] = {
    {"over", (getter)hand_get_over, NULL, "The hand is over.", NULL},
    {"step", (getter)hand_get_step, NULL, "Actions applied so far.", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyTypeObject HandType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "xuezhan.native._core.Hand",
    .tp_basicsize = sizeof(HandObject),
    .tp_dealloc = (destructor)hand_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Hand(seed, dealer, rules): one hand dealt from a seed, played action by action.",
    .tp_methods = hand_methods,
    .tp_getset = hand_getset,
    .tp_init = (initproc)hand_init,
    .tp_new = PyType_GenericNew,
};

static PyObject *core_set_learned(PyObject *self, PyObject *arg) {
    /* (bytes of float32): the compiled learned bot's weights (xz_learned_set) */
    (void)self;
    Py_buffer w;
    if (PyObject_GetBuffer(arg, &w, PyBUF_SIMPLE) < 0) return NULL;
    int r = w.len % (Py_ssize_t)sizeof(float) ? -1 : xz_learned_set((const float *)w.buf, (size_t)w.len / sizeof(float));
    PyBuffer_Release(&w);
    if (r == -2) return PyErr_NoMemory();
    if (r < 0) {
        PyErr_Format(PyExc_ValueError, "the learned bot's weights are %zu float32 values", xz_learned_size());
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"play", core_play, METH_VARARGS, "Play one hand per seed with compiled bots; see the module docs."},
    {"mt_random", core_mt_random, METH_VARARGS, "The first values of random.Random(seed).random()."},
    {"shanten", core_shanten, METH_VARARGS, "hand.shanten as the compiled bots compute it."},
    {"set_learned", core_set_learned, METH_O, "The compiled learned bot's weights, float32 bytes."},
    {"search_worlds", core_search_worlds, METH_VARARGS,
     "a search's play-outs, its worlds dealt in the core (xuezhan.native.search_worlds)"},
    {"play_outs", core_play_outs, METH_VARARGS,
     "A hand in the middle played to its end by compiled bots, once per wall order and action."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "The compiled core of xuezhan.", -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    xz_init_tables();
    if (PyType_Ready(&HandType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    PyObject *fan = fan_implemented();
    int added = fan ? PyModule_AddObjectRef(m, "FAN_IMPLEMENTED", fan) : -1;
    Py_XDECREF(fan);
    if (added < 0
        || PyModule_AddIntConstant(m, "RULE_WORDS", XZ_RULE_WORDS) < 0
        || PyModule_AddStringConstant(m, "GEN_DIGEST", XZ_GEN_DIGEST) < 0
        || PyModule_AddObjectRef(m, "Hand", (PyObject *)&HandType) < 0
        || xz_env_add_types(m, &HandType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
