/* The rules from the Python side: the XZ_RULE_WORDS integers of xuezhan.native.marshal_rules,
 * checked and read into an XzRules (for xz_module.c's Hand and xz_env.c's Table). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string.h>

#include "xz_engine.h"

int xz_py_rules(PyObject *seq, XzRules *R) {
    PyObject *fast = PySequence_Fast(seq, "rules must be a sequence of integers");
    if (!fast) return -1;
    if (PySequence_Fast_GET_SIZE(fast) != XZ_RULE_WORDS) {
        PyErr_Format(PyExc_ValueError, "rules must hold %d integers", XZ_RULE_WORDS);
        Py_DECREF(fast);
        return -1;
    }
    long long v[XZ_RULE_WORDS];
    for (int i = 0; i < XZ_RULE_WORDS; i++) {
        v[i] = PyLong_AsLongLong(PySequence_Fast_GET_ITEM(fast, i));
        if (v[i] == -1 && PyErr_Occurred()) {
            Py_DECREF(fast);
            return -1;
        }
    }
    Py_DECREF(fast);
    memset(R, 0, sizeof *R);
    /* each word within the bounds of xuezhan.rules (the Python side validated them; a bad tuple is
     * refused, not played) */
    int ok = xz_rules_from_words(v, R) == 0;
    for (int i = 0; ok && i < XZ_FAN_COUNT; i++) {
        int f = R->fan[i];
        if (f == XZ_FAN_CAP) {
            if (i >= XZ_EXTRA_FIRST || R->cap_multiple == 0) ok = 0;
        } else if (f < 0 || f > XZ_MAX_FAN || (i < XZ_EXTRA_FIRST && f == 0)) {
            ok = 0;
        }
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "rules out of bounds");
        return -1;
    }
    return 0;
}
