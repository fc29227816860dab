/* Roll-up kernels (arxpy.lattice.kernels wraps them): group keys and add up sizes,
 * group classes beside a population's classes without records, sum distribution pairs,
 * rewrite packed digits, pack key columns, sum tables over packed digits.
 *
 * numpy needs about ten passes to group packed class keys and add up the class sizes
 * (mark, list, look up, count); at the sizes roll-up works on (a few thousand to tens of
 * thousands of classes) each pass costs its call overhead and a trip through memory.
 * These kernels do the same work in one to three passes and give the same answer as
 * the numpy path, in the same order: distinct keys ascending in the dense mode (as a
 * table scan lists them), in order of first appearance in the hash mode (as
 * pandas.factorize does); pairs by class, then value.
 *
 * Arrays cross as buffers (int64, C-contiguous); the caller allocates the outputs.
 * The GIL is held throughout and no kernel calls back into Python, so the scratch
 * tables kept between calls (zero on entry, cleared entry by entry on exit) are never
 * used by two calls at once.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int is_int64(const Py_buffer *view) {
    if (view->itemsize != 8 || view->ndim != 1) return 0;
    if (view->format == NULL) return 1;
    const char *f = view->format;
    if (*f == '<' || *f == '=' || *f == '@') f++;
    return (f[0] == 'l' || f[0] == 'q') && f[1] == '\0';
}

static int get_array(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t n,
                     const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (!is_int64(view)) {
        PyErr_Format(PyExc_TypeError, "%s must be a one-dimensional int64 array", name);
        PyBuffer_Release(view);
        return -1;
    }
    if (n >= 0 && view->shape[0] < n) {
        PyErr_Format(PyExc_ValueError, "%s is shorter than the keys", name);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

/* Keys given as high * place + low (low may be NULL: the keys are high itself), so a
 * key built from two parts need not be written out first. */
typedef struct {
    const int64_t *high;
    const int64_t *low;
    int64_t place;
} Keys;

static inline int64_t key_at(const Keys *keys, Py_ssize_t i) {
    return keys->low ? keys->high[i] * keys->place + keys->low[i] : keys->high[i];
}

/* The dense mode's table, zero between calls (a call clears the entries it set), kept
 * for the next call unless large: roll-up calls it thousands of times per search. */
static int32_t *scratch = NULL;
static size_t scratch_len = 0;
#define SCRATCH_KEPT (1 << 20)

static void release_large_scratch(void) {
    if (scratch_len > SCRATCH_KEPT) {
        free(scratch);
        scratch = NULL;
        scratch_len = 0;
    }
}

/* The zeroed scratch table of at least span entries (grown when smaller; its users
 * clear the entries they set before returning); NULL with MemoryError set. */
static int32_t *zeroed_scratch(int64_t span) {
    if ((size_t)span > scratch_len) {
        free(scratch);
        scratch = calloc((size_t)span, sizeof(int32_t));
        scratch_len = scratch ? (size_t)span : 0;
        if (scratch == NULL) PyErr_NoMemory();
    }
    return scratch;
}

/* Dense mode: keys in [0, span). The table marks the keys present, a scan numbers them
 * in ascending order, a last pass looks every key up and adds its weight. */
static Py_ssize_t group_dense(const Keys *keys, Py_ssize_t n, int64_t span,
                              const int64_t *weight, int64_t *inverse, int64_t *distinct,
                              int64_t *sizes) {
    int32_t *table = zeroed_scratch(span);
    if (table == NULL) return -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = key_at(keys, i);
        if ((uint64_t)k >= (uint64_t)span) {
            for (Py_ssize_t j = 0; j < i; j++) table[key_at(keys, j)] = 0;
            release_large_scratch();
            PyErr_SetString(PyExc_ValueError, "a key lies outside [0, span)");
            return -1;
        }
        table[k] = 1;
    }
    Py_ssize_t m = 0;
    for (int64_t v = 0; v < span; v++) {
        if (table[v]) {
            distinct[m] = v;
            sizes[m] = 0;
            table[v] = (int32_t)m++;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = table[key_at(keys, i)];
        inverse[i] = c;
        sizes[c] += weight ? weight[i] : 1;
    }
    for (Py_ssize_t j = 0; j < m; j++) table[distinct[j]] = 0;
    release_large_scratch();
    return m;
}

/* The hash mode's slots, kept between calls unless large: roll-up groups thousands of
 * times per search, and from the root each table is a few hundred kilobytes. */
static int32_t *hash_slots = NULL;
static size_t hash_slots_len = 0;

static int32_t *reserve_hash_slots(size_t capacity) {
    if (capacity > hash_slots_len) {
        free(hash_slots);
        hash_slots = malloc(capacity * sizeof(int32_t));
        hash_slots_len = hash_slots ? capacity : 0;
        if (hash_slots == NULL) PyErr_NoMemory();
    }
    return hash_slots;
}

static void release_large_hash_slots(void) {
    if (hash_slots_len > SCRATCH_KEPT) {
        free(hash_slots);
        hash_slots = NULL;
        hash_slots_len = 0;
    }
}

/* Hash mode: any int64 keys. Open addressing (Fibonacci hashing, linear probing) in a
 * table at most half full; classes are numbered as they first appear. */
static Py_ssize_t group_hash(const Keys *keys, Py_ssize_t n, const int64_t *weight,
                             int64_t *inverse, int64_t *distinct, int64_t *sizes) {
    int shift = 64;
    size_t capacity = 1;
    while (capacity < 2 * (size_t)n + 2) {
        capacity <<= 1;
        shift--;
    }
    int32_t *slot = reserve_hash_slots(capacity);
    if (slot == NULL) return -1;
    memset(slot, 0xff, capacity * sizeof(int32_t)); /* -1: empty */
    size_t mask = capacity - 1;
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = key_at(keys, i);
        size_t h = shift < 64 ? (size_t)(((uint64_t)k * 0x9E3779B97F4A7C15ULL) >> shift) : 0;
        int32_t c;
        for (;;) {
            c = slot[h];
            if (c < 0) {
                c = (int32_t)m++;
                slot[h] = c;
                distinct[c] = k;
                sizes[c] = 0;
                break;
            }
            if (distinct[c] == k) break;
            h = (h + 1) & mask;
        }
        inverse[i] = c;
        sizes[c] += weight ? weight[i] : 1;
    }
    release_large_hash_slots();
    return m;
}

/* Hash mode's numbering (order of first appearance) through a table indexed by the key
 * itself, for keys in [0, span) with a small span: no hashing, no probing, and a table
 * that stays in cache (the dense mode's scratch, cleared entry by entry on exit). */
static Py_ssize_t group_first_seen(const Keys *keys, Py_ssize_t n, int64_t span,
                                   const int64_t *weight, int64_t *inverse, int64_t *distinct,
                                   int64_t *sizes) {
    int32_t *table = zeroed_scratch(span); /* class + 1, 0 for a key not seen yet */
    if (table == NULL) return -1;
    Py_ssize_t m = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t k = key_at(keys, i);
        if ((uint64_t)k >= (uint64_t)span) {
            for (Py_ssize_t j = 0; j < m; j++) table[distinct[j]] = 0;
            release_large_scratch();
            PyErr_SetString(PyExc_ValueError, "a key lies outside [0, span)");
            return -1;
        }
        int32_t c = table[k] - 1;
        if (c < 0) {
            c = (int32_t)m++;
            table[k] = c + 1;
            distinct[c] = k;
            sizes[c] = 0;
        }
        inverse[i] = c;
        sizes[c] += weight ? weight[i] : 1;
    }
    for (Py_ssize_t j = 0; j < m; j++) table[distinct[j]] = 0;
    release_large_scratch();
    return m;
}

/* Pair sums' per-value accumulator (zero between calls: each call clears what it
 * adds) and list of touched values, kept for the next call unless large. */
static int64_t *value_acc = NULL, *value_touched = NULL;
static size_t value_len = 0;

/* The radices of a tuple of Python ints, each at least 1. */
static int read_radices(PyObject *tuple, int64_t *radix) {
    for (Py_ssize_t j = 0, n = PyTuple_GET_SIZE(tuple); j < n; j++) {
        radix[j] = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, j));
        if (PyErr_Occurred()) return -1;
        if (radix[j] < 1) {
            PyErr_SetString(PyExc_ValueError, "radices must be positive");
            return -1;
        }
    }
    return 0;
}

/* The digits of a packed key (mixed radix, the first digit most significant); sets the
   error when the key is negative or exceeds the radices' span. */
static inline int split_key(int64_t k, const int64_t *radix, Py_ssize_t digits,
                            int64_t *digit) {
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "keys must not be negative");
        return -1;
    }
    for (Py_ssize_t j = digits - 1; j > 0; j--) {
        digit[j] = k % radix[j];
        k /= radix[j];
    }
    if (k >= radix[0]) {
        PyErr_SetString(PyExc_ValueError, "a key exceeds the radices' span");
        return -1;
    }
    digit[0] = k;
    return 0;
}

static int reserve_value_scratch(int64_t width) {
    if ((size_t)width <= value_len) return 0;
    free(value_acc);
    free(value_touched);
    value_acc = calloc((size_t)width, sizeof(int64_t));
    value_touched = malloc((size_t)width * sizeof(int64_t));
    value_len = (value_acc && value_touched) ? (size_t)width : 0;
    if (value_len == 0) {
        free(value_acc);
        free(value_touched);
        value_acc = value_touched = NULL;
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

static void release_large_value_scratch(void) {
    if (value_len > SCRATCH_KEPT) {
        free(value_acc);
        free(value_touched);
        value_acc = value_touched = NULL;
        value_len = 0;
    }
}

static int compare_int64(const void *a, const void *b) {
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* Pair sums: the (class, value) pairs of a distribution rolled up to new classes
 * (``cls(i)`` = inverse[class_of[i]], or class_of[i]), equal pairs summed, listed by
 * class, then value. A counting sort by class (stable: each source class's values stay
 * ascending), then per class: the values as they are when ascending, else an
 * accumulator over the values, read off whole when the class has many entries for the
 * domain, else by its touched values, sorted. The caller uses
 * it where a (classes x values) table would be dense (the numpy path's bincount).
 * Pairs are written without branches, so each output holds one entry more than pairs. */
static Py_ssize_t sum_pairs(const int64_t *class_of, Py_ssize_t n_source, const int64_t *inverse,
                            Py_ssize_t n_inverse, const int64_t *value, const int64_t *count,
                            int64_t width, int64_t n_classes, int64_t *out_class,
                            int64_t *out_value, int64_t *out_count) {
    Py_ssize_t n = n_source;
    int64_t *end = calloc((size_t)n_classes + 1, sizeof(int64_t));
    int64_t *sorted_value = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    int64_t *sorted_count = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (reserve_value_scratch(width) < 0) {
        free(end);
        free(sorted_value);
        free(sorted_count);
        return -1;
    }
    int64_t *acc = value_acc, *touched = value_touched;
    Py_ssize_t m = -1;
    if (!end || !sorted_value || !sorted_count || !acc || !touched) {
        PyErr_NoMemory();
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = class_of[i];
        if (inverse) {
            if ((uint64_t)c >= (uint64_t)n_inverse) goto out_of_range;
            c = inverse[c];
        }
        if ((uint64_t)c >= (uint64_t)n_classes || (uint64_t)value[i] >= (uint64_t)width ||
            (count && count[i] < 0))
            goto out_of_range;
        end[c + 1]++;
    }
    for (int64_t c = 0; c < n_classes; c++) end[c + 1] += end[c];
    /* end[c] is now where class c starts; filling moves it to where class c ends. */
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t c = inverse ? inverse[class_of[i]] : class_of[i];
        int64_t at = end[c]++;
        sorted_value[at] = value[i];
        sorted_count[at] = count ? count[i] : 1;
    }
    m = 0;
    int64_t start = 0;
    for (int64_t c = 0; c < n_classes; c++) {
        int64_t stop = end[c];
        Py_ssize_t seg = (Py_ssize_t)(stop - start);
        if (seg == 0) continue;
        /* A class from one source class (or from runs that happen to be in order) holds
         * its values strictly ascending already: copied out as they are. */
        int ascending = 1;
        for (int64_t j = start + 1; j < stop && ascending; j++)
            ascending = sorted_value[j] > sorted_value[j - 1];
        if (ascending) {
            for (int64_t j = start; j < stop; j++) {
                out_class[m] = c;
                out_value[m] = sorted_value[j];
                out_count[m] = sorted_count[j];
                m += sorted_count[j] > 0;
            }
            start = stop;
            continue;
        }
        /* Many entries for the domain: accumulate, then read the accumulator off whole,
         * without branches. Few: accumulate, then sort the values touched. */
        if (seg * 4 >= width) {
            for (int64_t j = start; j < stop; j++) acc[sorted_value[j]] += sorted_count[j];
            start = stop;
            for (int64_t v = 0; v < width; v++) {
                out_class[m] = c;
                out_value[m] = v;
                out_count[m] = acc[v];
                m += acc[v] > 0;
                acc[v] = 0;
            }
            continue;
        }
        int64_t t = 0;
        for (int64_t j = start; j < stop; j++) {
            /* Zero counts add nothing (and would list a value twice). */
            int64_t v = sorted_value[j], k = sorted_count[j];
            if (k == 0) continue;
            if (acc[v] == 0) touched[t++] = v;
            acc[v] += k;
        }
        start = stop;
        if (t > 32) {
            qsort(touched, (size_t)t, sizeof(int64_t), compare_int64);
        } else {
            for (int64_t a = 1; a < t; a++) { /* insertion sort: few values */
                int64_t v = touched[a], b = a - 1;
                while (b >= 0 && touched[b] > v) {
                    touched[b + 1] = touched[b];
                    b--;
                }
                touched[b + 1] = v;
            }
        }
        for (int64_t a = 0; a < t; a++) {
            int64_t v = touched[a];
            out_class[m] = c;
            out_value[m] = v;
            out_count[m++] = acc[v];
            acc[v] = 0;
        }
    }
    goto done;
out_of_range:
    PyErr_SetString(PyExc_ValueError,
                    "a class or value lies outside its range, or a count is negative");
done:
    free(end);
    free(sorted_value);
    free(sorted_count);
    release_large_value_scratch();
    return m;
}

PyDoc_STRVAR(group_doc,
"group(key, span, weight, inverse, distinct, sizes, low=None, place=1) -> number of classes\n\n"
"Number the distinct values of the keys (``key``, or key * place + low) and add up\n"
"``weight`` (or count, when None) per\n"
"value. ``span`` > 0 asks for the dense mode (keys in [0, span), ascending order),\n"
"``span`` = 0 for the hash mode (order of first appearance). Writes each key's class\n"
"to ``inverse`` and the first m entries of ``distinct`` and ``sizes``.");

static PyObject *group(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *key_o, *weight_o, *inverse_o, *distinct_o, *sizes_o, *low_o = Py_None;
    long long span, place = 1;
    if (!PyArg_ParseTuple(args, "OLOOOO|OL", &key_o, &span, &weight_o, &inverse_o, &distinct_o,
                          &sizes_o, &low_o, &place))
        return NULL;
    if (span < 0 || span > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "span must lie in [0, 2**31)");
        return NULL;
    }
    Py_buffer key, low, weight, inverse, distinct, sizes;
    if (get_array(key_o, &key, 0, -1, "key") < 0) return NULL;
    Py_ssize_t n = key.shape[0];
    if (n > INT32_MAX) {
        PyBuffer_Release(&key);
        PyErr_SetString(PyExc_ValueError, "too many keys");
        return NULL;
    }
    int have_low = low_o != Py_None, have_weight = weight_o != Py_None;
    Py_ssize_t m = -1;
    if (have_low && get_array(low_o, &low, 0, n, "low") < 0) goto release_key;
    if (have_weight && get_array(weight_o, &weight, 0, n, "weight") < 0) goto release_low;
    if (get_array(inverse_o, &inverse, 1, n, "inverse") < 0) goto release_weight;
    if (get_array(distinct_o, &distinct, 1, n, "distinct") < 0) goto release_inverse;
    if (get_array(sizes_o, &sizes, 1, n, "sizes") < 0) goto release_distinct;
    const int64_t *w = have_weight ? (const int64_t *)weight.buf : NULL;
    Keys keys = {key.buf, have_low ? (const int64_t *)low.buf : NULL, place};
    if (span > 0)
        m = group_dense(&keys, n, span, w, inverse.buf, distinct.buf, sizes.buf);
    else
        m = group_hash(&keys, n, w, inverse.buf, distinct.buf, sizes.buf);
    PyBuffer_Release(&sizes);
release_distinct:
    PyBuffer_Release(&distinct);
release_inverse:
    PyBuffer_Release(&inverse);
release_weight:
    if (have_weight) PyBuffer_Release(&weight);
release_low:
    if (have_low) PyBuffer_Release(&low);
release_key:
    PyBuffer_Release(&key);
    if (m < 0) return NULL;
    return PyLong_FromSsize_t(m);
}

PyDoc_STRVAR(sum_pairs_doc,
"sum_pairs(class_of, inverse, value, count, width, n_classes, out_class, out_value,\n"
"          out_count) -> number of pairs\n\n"
"Sum ``count`` (ones, when None) over equal (inverse[class_of] (class_of, when inverse\n"
"is None), value) pairs, values in [0, width); write the pairs ordered by class, then\n"
"value, to the first m entries of the outputs (each one longer than ``value``).");

static PyObject *sum_pairs_py(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *class_o, *inverse_o, *value_o, *count_o, *oc_o, *ov_o, *on_o;
    long long width, n_classes;
    if (!PyArg_ParseTuple(args, "OOOOLLOOO", &class_o, &inverse_o, &value_o, &count_o, &width,
                          &n_classes, &oc_o, &ov_o, &on_o))
        return NULL;
    if (width < 1 || n_classes < 0 || width > INT32_MAX || n_classes > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "width and n_classes must lie in [1, 2**31)");
        return NULL;
    }
    Py_buffer cls, inv, val, cnt, oc, ov, on;
    int have_inverse = inverse_o != Py_None, have_count = count_o != Py_None;
    Py_ssize_t m = -1;
    if (get_array(value_o, &val, 0, -1, "value") < 0) return NULL;
    Py_ssize_t n = val.shape[0];
    if (get_array(class_o, &cls, 0, n, "class_of") < 0) goto r_val;
    if (have_inverse && get_array(inverse_o, &inv, 0, -1, "inverse") < 0) goto r_cls;
    if (have_count && get_array(count_o, &cnt, 0, n, "count") < 0) goto r_inv;
    if (get_array(oc_o, &oc, 1, n + 1, "out_class") < 0) goto r_cnt;
    if (get_array(ov_o, &ov, 1, n + 1, "out_value") < 0) goto r_oc;
    if (get_array(on_o, &on, 1, n + 1, "out_count") < 0) goto r_ov;
    m = sum_pairs(cls.buf, n, have_inverse ? inv.buf : NULL, have_inverse ? inv.shape[0] : 0,
                  val.buf, have_count ? cnt.buf : NULL, width, n_classes, oc.buf, ov.buf,
                  on.buf);
    PyBuffer_Release(&on);
r_ov:
    PyBuffer_Release(&ov);
r_oc:
    PyBuffer_Release(&oc);
r_cnt:
    if (have_count) PyBuffer_Release(&cnt);
r_inv:
    if (have_inverse) PyBuffer_Release(&inv);
r_cls:
    PyBuffer_Release(&cls);
r_val:
    PyBuffer_Release(&val);
    if (m < 0) return NULL;
    return PyLong_FromSsize_t(m);
}

#define MAX_DIGITS 64

PyDoc_STRVAR(rewrite_doc,
"rewrite(key, place, old_radices, new_radices, maps, out)\n\n"
"Re-express packed keys with some digits generalized: key = (above * span(old) +\n"
"middle) * place + below, where the middle's digits have ``old_radices`` (most\n"
"significant first); each digit d becomes maps[j][d] (d itself when maps[j] is None)\n"
"in radix new_radices[j]. Writes the new keys to ``out``.");

static PyObject *rewrite(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *key_o, *old_o, *new_o, *maps_o, *out_o;
    long long place;
    if (!PyArg_ParseTuple(args, "OLO!O!O!O", &key_o, &place, &PyTuple_Type, &old_o, &PyTuple_Type,
                          &new_o, &PyTuple_Type, &maps_o, &out_o))
        return NULL;
    Py_ssize_t digits = PyTuple_GET_SIZE(old_o);
    if (digits < 1 || digits > MAX_DIGITS || PyTuple_GET_SIZE(new_o) != digits ||
        PyTuple_GET_SIZE(maps_o) != digits || place < 1) {
        PyErr_SetString(PyExc_ValueError, "rewrite needs 1-64 digits, as many radices and maps, "
                        "and a positive place");
        return NULL;
    }
    int64_t old_radix[MAX_DIGITS], new_radix[MAX_DIGITS];
    const int64_t *map[MAX_DIGITS];
    Py_buffer map_view[MAX_DIGITS];
    int have_map[MAX_DIGITS] = {0};
    Py_buffer key, out;
    PyObject *result = NULL;
    Py_ssize_t mapped = 0;
    if (read_radices(old_o, old_radix) < 0 || read_radices(new_o, new_radix) < 0) return NULL;
    for (; mapped < digits; mapped++) {
        PyObject *m = PyTuple_GET_ITEM(maps_o, mapped);
        map[mapped] = NULL;
        if (m == Py_None) continue;
        if (get_array(m, &map_view[mapped], 0, old_radix[mapped], "a map") < 0) goto release_maps;
        have_map[mapped] = 1;
        map[mapped] = map_view[mapped].buf;
    }
    if (get_array(key_o, &key, 0, -1, "key") < 0) goto release_maps;
    if (get_array(out_o, &out, 1, key.shape[0], "out") < 0) goto release_key;
    const int64_t *in = key.buf;
    int64_t *res = out.buf;
    int64_t digit[MAX_DIGITS];
    for (Py_ssize_t i = 0, n = key.shape[0]; i < n; i++) {
        int64_t k = in[i];
        if (k < 0) {
            PyErr_SetString(PyExc_ValueError, "keys must not be negative");
            goto release_out;
        }
        int64_t below = k % place;
        k /= place;
        /* The digits above the middle, if any, stay in k and lead the new key. */
        for (Py_ssize_t j = digits - 1; j >= 0; j--) {
            digit[j] = k % old_radix[j];
            k /= old_radix[j];
        }
        for (Py_ssize_t j = 0; j < digits; j++) {
            int64_t d = map[j] ? map[j][digit[j]] : digit[j];
            k = k * new_radix[j] + d;
        }
        res[i] = k * place + below;
    }
    result = Py_NewRef(Py_None);
release_out:
    PyBuffer_Release(&out);
release_key:
    PyBuffer_Release(&key);
release_maps:
    for (Py_ssize_t j = 0; j < mapped; j++)
        if (have_map[j]) PyBuffer_Release(&map_view[j]);
    return result;
}

PyDoc_STRVAR(pack_doc,
"pack(columns, radices, out)\n\n"
"The mixed-radix number of the columns' codes: out = (...(c0 * r1 + c1) * r2 + ...),\n"
"radices[j] being column j's radix (radices[0] unused). The caller checks that the\n"
"radices' product fits an int64.");

static PyObject *pack(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *columns_o, *radices_o, *out_o;
    if (!PyArg_ParseTuple(args, "O!O!O", &PyTuple_Type, &columns_o, &PyTuple_Type, &radices_o,
                          &out_o))
        return NULL;
    Py_ssize_t k = PyTuple_GET_SIZE(columns_o);
    if (k < 1 || k > MAX_DIGITS || PyTuple_GET_SIZE(radices_o) != k) {
        PyErr_SetString(PyExc_ValueError, "pack needs 1-64 columns and as many radices");
        return NULL;
    }
    int64_t radix[MAX_DIGITS];
    for (Py_ssize_t j = 0; j < k; j++) {
        radix[j] = PyLong_AsLongLong(PyTuple_GET_ITEM(radices_o, j));
        if (PyErr_Occurred()) return NULL;
    }
    Py_buffer out, column[MAX_DIGITS];
    PyObject *result = NULL;
    Py_ssize_t got = 0;
    if (get_array(out_o, &out, 1, -1, "out") < 0) return NULL;
    Py_ssize_t n = out.shape[0];
    for (; got < k; got++)
        if (get_array(PyTuple_GET_ITEM(columns_o, got), &column[got], 0, n, "a column") < 0)
            goto release;
    int64_t *res = out.buf;
    memcpy(res, column[0].buf, (size_t)n * sizeof(int64_t));
    for (Py_ssize_t j = 1; j < k; j++) {
        const int64_t *c = column[j].buf;
        int64_t r = radix[j];
        for (Py_ssize_t i = 0; i < n; i++) res[i] = res[i] * r + c[i];
    }
    result = Py_NewRef(Py_None);
release:
    for (Py_ssize_t j = 0; j < got; j++) PyBuffer_Release(&column[j]);
    PyBuffer_Release(&out);
    return result;
}

PyDoc_STRVAR(digit_sums_doc,
"digit_sums(key, radices, tables, out)\n\n"
"For packed keys (mixed radix, the first digit most significant, radices[j] digit j's\n"
"radix): out[i] = tables[0][d0] + tables[1][d1] + ..., added in that order from 0.0\n"
"(as numpy adds the columns one by one, so the sums are the same to the bit). Tables\n"
"are float64, each at least as long as its radix; the key matrix is never written.");

static int is_float64(const Py_buffer *view) {
    if (view->itemsize != 8 || view->ndim != 1) return 0;
    if (view->format == NULL) return 0;
    const char *f = view->format;
    if (*f == '<' || *f == '=' || *f == '@') f++;
    return f[0] == 'd' && f[1] == '\0';
}

static int get_floats(PyObject *obj, Py_buffer *view, int writable, Py_ssize_t n,
                      const char *name) {
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) < 0) return -1;
    if (!is_float64(view) || view->shape[0] < n) {
        PyErr_Format(PyExc_ValueError, "%s must be a float64 array of at least %zd", name, n);
        PyBuffer_Release(view);
        return -1;
    }
    return 0;
}

static PyObject *digit_sums(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *key_o, *radices_o, *tables_o, *out_o;
    if (!PyArg_ParseTuple(args, "OO!O!O", &key_o, &PyTuple_Type, &radices_o, &PyTuple_Type,
                          &tables_o, &out_o))
        return NULL;
    Py_ssize_t digits = PyTuple_GET_SIZE(radices_o);
    if (digits < 1 || digits > MAX_DIGITS || PyTuple_GET_SIZE(tables_o) != digits) {
        PyErr_SetString(PyExc_ValueError, "digit_sums needs 1-64 radices and as many tables");
        return NULL;
    }
    int64_t radix[MAX_DIGITS];
    const double *table[MAX_DIGITS];
    Py_buffer table_view[MAX_DIGITS], key, out;
    PyObject *result = NULL;
    Py_ssize_t got = 0;
    if (read_radices(radices_o, radix) < 0) return NULL;
    for (; got < digits; got++) {
        if (get_floats(PyTuple_GET_ITEM(tables_o, got), &table_view[got], 0, radix[got],
                       "a table") < 0)
            goto release_tables;
        table[got] = table_view[got].buf;
    }
    if (get_array(key_o, &key, 0, -1, "key") < 0) goto release_tables;
    if (get_floats(out_o, &out, 1, key.shape[0], "out") < 0) goto release_key;
    const int64_t *in = key.buf;
    double *res = out.buf;
    int64_t digit[MAX_DIGITS];
    for (Py_ssize_t i = 0, n = key.shape[0]; i < n; i++) {
        if (split_key(in[i], radix, digits, digit) < 0) goto release_out;
        double sum = 0.0;
        for (Py_ssize_t j = 0; j < digits; j++) sum += table[j][digit[j]];
        res[i] = sum;
    }
    result = Py_NewRef(Py_None);
release_out:
    PyBuffer_Release(&out);
release_key:
    PyBuffer_Release(&key);
release_tables:
    for (Py_ssize_t j = 0; j < got; j++) PyBuffer_Release(&table_view[j]);
    return result;
}

/* ==== Stable argsort of int64 keys (the shuffle's permutation; issue 31) ==========
 * np.argsort(keys, kind="stable") in a pass that spreads (key, index) pairs into
 * buckets by the keys' top bits (about eight pairs a bucket: the shuffle's keys are
 * hashes, so evenly spread), then sorts each bucket: insertion sort when small, else
 * byte by byte (LSD) over the remaining bits. Both keep equal keys in input order, so
 * the answer is the stable argsort's whatever the keys. Sorting 10^7 keys: about a
 * tenth of numpy's time. Runs without the GIL (the arrays are the caller's). */

typedef struct {
    uint64_t key; /* the int64 key with its sign bit flipped: unsigned order = signed */
    int64_t index;
} KeyedIndex;

#define ARGSORT_SMALL_BUCKET 48
#define ARGSORT_MAX_BUCKET_BITS 22

static void insertion_sort_pairs(KeyedIndex *a, Py_ssize_t m) {
    for (Py_ssize_t i = 1; i < m; i++) {
        KeyedIndex x = a[i];
        Py_ssize_t j = i;
        for (; j > 0 && a[j - 1].key > x.key; j--) a[j] = a[j - 1];
        a[j] = x;
    }
}

/* LSD radix sort of a[0:m] on its low `bits` bits (the others are equal), one byte a
 * pass; a byte every key shares costs no pass. tmp holds m pairs. */
static void radix_sort_low(KeyedIndex *a, KeyedIndex *tmp, Py_ssize_t m, int bits) {
    Py_ssize_t count[8][256];
    int bytes = (bits + 7) / 8;
    memset(count, 0, sizeof(count));
    for (Py_ssize_t i = 0; i < m; i++)
        for (int b = 0; b < bytes; b++) count[b][(a[i].key >> (8 * b)) & 255]++;
    KeyedIndex *src = a, *dst = tmp;
    for (int b = 0; b < bytes; b++) {
        if (count[b][(src[0].key >> (8 * b)) & 255] == m) continue;
        Py_ssize_t at = 0;
        for (int d = 0; d < 256; d++) {
            Py_ssize_t c = count[b][d];
            count[b][d] = at;
            at += c;
        }
        for (Py_ssize_t i = 0; i < m; i++) dst[count[b][(src[i].key >> (8 * b)) & 255]++] = src[i];
        KeyedIndex *swap = src;
        src = dst;
        dst = swap;
    }
    if (src != a) memcpy(a, src, (size_t)m * sizeof(KeyedIndex));
}

static int bucket_bits(Py_ssize_t n) {
    int bits = 1;
    while (bits < ARGSORT_MAX_BUCKET_BITS && ((Py_ssize_t)8 << bits) < n) bits++;
    return bits;
}

/* Sorts into `out` the positions 0..n-1 of `keys`; -1 when memory ran out. */
static int argsort_keys(const int64_t *keys, Py_ssize_t n, int64_t *out) {
    int bits = bucket_bits(n), shift = 64 - bits;
    Py_ssize_t buckets = (Py_ssize_t)1 << bits;
    Py_ssize_t *end = calloc((size_t)buckets, sizeof(Py_ssize_t));
    KeyedIndex *pairs = malloc((size_t)n * sizeof(KeyedIndex));
    KeyedIndex *tmp = NULL;
    int status = -1;
    if (end == NULL || pairs == NULL) goto done;
    const uint64_t flip = (uint64_t)1 << 63;
    for (Py_ssize_t i = 0; i < n; i++) end[((uint64_t)keys[i] ^ flip) >> shift]++;
    Py_ssize_t at = 0, largest = 0;
    for (Py_ssize_t b = 0; b < buckets; b++) { /* end[b]: where bucket b starts, for now */
        Py_ssize_t c = end[b];
        end[b] = at;
        at += c;
        if (c > largest) largest = c;
    }
    for (Py_ssize_t i = 0; i < n; i++) { /* in input order: equal keys stay in order */
        uint64_t key = (uint64_t)keys[i] ^ flip;
        pairs[end[key >> shift]++] = (KeyedIndex){key, i};
    }
    if (largest > ARGSORT_SMALL_BUCKET) {
        tmp = malloc((size_t)largest * sizeof(KeyedIndex));
        if (tmp == NULL) goto done;
    }
    for (Py_ssize_t b = 0, start = 0; b < buckets; start = end[b], b++) {
        Py_ssize_t m = end[b] - start;
        if (m > ARGSORT_SMALL_BUCKET)
            radix_sort_low(pairs + start, tmp, m, shift);
        else
            insertion_sort_pairs(pairs + start, m);
    }
    for (Py_ssize_t i = 0; i < n; i++) out[i] = pairs[i].index;
    status = 0;
done:
    free(tmp);
    free(pairs);
    free(end);
    return status;
}

PyDoc_STRVAR(argsort_doc,
"argsort(keys, out)\n\n"
"Writes into out (int64, as long as keys) np.argsort(keys, kind='stable') of the int64\n"
"array keys: equal keys keep their input order. Releases the GIL while sorting.");

static PyObject *argsort(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *keys_o, *out_o;
    if (!PyArg_ParseTuple(args, "OO", &keys_o, &out_o)) return NULL;
    Py_buffer keys, out;
    if (get_array(keys_o, &keys, 0, -1, "keys") < 0) return NULL;
    if (get_array(out_o, &out, 1, keys.shape[0], "out") < 0) {
        PyBuffer_Release(&keys);
        return NULL;
    }
    int status = 0;
    if (keys.shape[0] > 0) {
        Py_BEGIN_ALLOW_THREADS
        status = argsort_keys(keys.buf, keys.shape[0], out.buf);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&out);
    PyBuffer_Release(&keys);
    if (status < 0) return PyErr_NoMemory();
    Py_RETURN_NONE;
}
/* ==== end of the stable argsort ==================================================== */

/* ---- Classes and population classes grouped in one call ------------------------------ */

PyDoc_STRVAR(group_beside_doc,
"group_beside(key, n, span, dense, sizes, people, inverse, distinct, summed,\n"
"             class_sizes, low=None, place=1) -> number of classes, number of groups\n\n"
"Group the keys (``key``, or key * place + low) of n classes followed by population\n"
"classes without records, adding up ``people`` per group and, over the first n keys,\n"
"``sizes`` per class. The m groups holding a class key come first, numbered as\n"
"grouping the n class keys alone numbers them: ascending when ``dense``, else in order\n"
"of first appearance; the other groups follow in order of first appearance. Writes\n"
"the class keys' groups to inverse[:n], the groups' keys and people to ``distinct``\n"
"and ``summed``, and the class sizes to class_sizes[:m]. ``span`` > 0 says every key\n"
"lies in [0, span) and has them numbered through a table of span entries (same order),\n"
"0 has them hashed.");

/* Renumber the m class groups ascending by key: ``distinct``, ``summed`` and
 * ``class_sizes`` permuted, inverse[:n] renumbered. -1 when memory ran out. */
static int classes_ascending(Py_ssize_t n, Py_ssize_t m, int64_t *inverse, int64_t *distinct,
                             int64_t *summed, int64_t *class_sizes) {
    int64_t *order = malloc((size_t)(3 * m + 1) * sizeof(int64_t));
    if (order == NULL) return -1;
    int64_t *rank = order + m, *held = rank + m;
    if (argsort_keys(distinct, m, order) < 0) {
        free(order);
        return -1;
    }
    for (Py_ssize_t r = 0; r < m; r++) rank[order[r]] = r;
    for (Py_ssize_t i = 0; i < n; i++) inverse[i] = rank[inverse[i]];
    int64_t *columns[3] = {distinct, summed, class_sizes};
    for (int c = 0; c < 3; c++) {
        memcpy(held, columns[c], (size_t)m * sizeof(int64_t));
        for (Py_ssize_t r = 0; r < m; r++) columns[c][r] = held[order[r]];
    }
    free(order);
    return 0;
}

static PyObject *group_beside(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *key_o, *sizes_o, *people_o, *inverse_o, *distinct_o, *summed_o, *class_sizes_o;
    PyObject *low_o = Py_None;
    Py_ssize_t n;
    int dense;
    long long span, place = 1;
    if (!PyArg_ParseTuple(args, "OnLpOOOOOO|OL", &key_o, &n, &span, &dense, &sizes_o,
                          &people_o, &inverse_o, &distinct_o, &summed_o, &class_sizes_o, &low_o,
                          &place))
        return NULL;
    if (span < 0 || span > INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "span must lie in [0, 2**31)");
        return NULL;
    }
    Py_buffer key, low, sizes, people, inverse, distinct, summed, class_sizes;
    if (get_array(key_o, &key, 0, -1, "key") < 0) return NULL;
    Py_ssize_t total = key.shape[0], m = -1, groups = -1;
    int have_low = low_o != Py_None;
    if (total > INT32_MAX || n < 0 || n > total) {
        PyErr_SetString(PyExc_ValueError, "n must lie in [0, len(key)] and len(key) below 2**31");
        goto release_key;
    }
    if (have_low && get_array(low_o, &low, 0, total, "low") < 0) goto release_key;
    if (get_array(sizes_o, &sizes, 0, n, "sizes") < 0) goto release_low;
    if (get_array(people_o, &people, 0, total, "people") < 0) goto release_sizes;
    if (get_array(inverse_o, &inverse, 1, total, "inverse") < 0) goto release_people;
    if (get_array(distinct_o, &distinct, 1, total, "distinct") < 0) goto release_inverse;
    if (get_array(summed_o, &summed, 1, total, "summed") < 0) goto release_distinct;
    if (get_array(class_sizes_o, &class_sizes, 1, n, "class_sizes") < 0) goto release_summed;
    Keys keys = {key.buf, have_low ? (const int64_t *)low.buf : NULL, place};
    int64_t *inv = inverse.buf, *cs = class_sizes.buf;
    const int64_t *size = sizes.buf;
    groups = span > 0 ? group_first_seen(&keys, total, span, people.buf, inv, distinct.buf,
                                         summed.buf)
                      : group_hash(&keys, total, people.buf, inv, distinct.buf, summed.buf);
    if (groups >= 0) {
        /* The class keys come first, so their groups are 0..m-1. */
        m = 0;
        for (Py_ssize_t i = 0; i < n; i++) m = inv[i] >= m ? inv[i] + 1 : m;
        memset(cs, 0, (size_t)m * sizeof(int64_t));
        for (Py_ssize_t i = 0; i < n; i++) cs[inv[i]] += size[i];
        if (dense && classes_ascending(n, m, inv, distinct.buf, summed.buf, cs) < 0) {
            PyErr_NoMemory();
            groups = -1;
        }
    }
    PyBuffer_Release(&class_sizes);
release_summed:
    PyBuffer_Release(&summed);
release_distinct:
    PyBuffer_Release(&distinct);
release_inverse:
    PyBuffer_Release(&inverse);
release_people:
    PyBuffer_Release(&people);
release_sizes:
    PyBuffer_Release(&sizes);
release_low:
    if (have_low) PyBuffer_Release(&low);
release_key:
    PyBuffer_Release(&key);
    if (groups < 0) return NULL;
    return Py_BuildValue("nn", m, groups);
}

/* ---- Batch HMAC-SHA-256 (issue 32: identifier treatments in the DuckDB engine) ------
 *
 * hmac_sha256(inner, outer, offsets, data, out[, portable]) writes the 32-byte
 * HMAC-SHA-256 (RFC 2104) of every value of an Arrow string array into out (n * 32
 * bytes): inner is key XOR ipad followed by whatever prefixes every value (arxpy's label
 * and NUL), outer is key XOR opad (64 bytes). Both are hashed once per call, so a short
 * value costs two compressions. SHA-256 is FIPS 180-4 section 6.2; where the processor
 * has the SHA extensions (x86-64) the compression uses them, else the portable one
 * (portable=1 forces it, for the tests). The GIL is released while hashing, so DuckDB's
 * threads hash their chunks in parallel; nothing here is shared between calls.
 */

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
    0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
    0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
    0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
    0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
    0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
    0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
    0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
    0xc67178f2,
};

static const uint32_t sha256_h0[8] = {
    0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
    0x5be0cd19,
};

#define ROTR32(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static uint32_t load_be32(const uint8_t *p) {
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* FIPS 180-4 6.2.2: one 64-byte block into the state. */
static void sha256_block_portable(uint32_t state[8], const uint8_t *block) {
    uint32_t w[64];
    for (int t = 0; t < 16; t++) w[t] = load_be32(block + 4 * t);
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = ROTR32(w[t - 15], 7) ^ ROTR32(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = ROTR32(w[t - 2], 17) ^ ROTR32(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = state[0], b = state[1], c = state[2], d = state[3];
    uint32_t e = state[4], f = state[5], g = state[6], h = state[7];
    for (int t = 0; t < 64; t++) {
        uint32_t t1 = h + (ROTR32(e, 6) ^ ROTR32(e, 11) ^ ROTR32(e, 25)) +
                      ((e & f) ^ (~e & g)) + sha256_k[t] + w[t];
        uint32_t t2 = (ROTR32(a, 2) ^ ROTR32(a, 13) ^ ROTR32(a, 22)) +
                      ((a & b) ^ (a & c) ^ (b & c));
        h = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    state[0] += a; state[1] += b; state[2] += c; state[3] += d;
    state[4] += e; state[5] += f; state[6] += g; state[7] += h;
}

typedef void (*sha256_block_fn)(uint32_t state[8], const uint8_t *block);

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_EXTENSIONS 1

/* The same block with the SHA extensions: the state as (ABEF, CDGH) vectors, four
 * rounds per message vector, the schedule by sha256msg1/msg2. */
__attribute__((target("sha,sse4.1")))
static void sha256_block_shani(uint32_t state[8], const uint8_t *block) {
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
    __m128i dcba = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)state), 0xB1);
    __m128i hgfe = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)(state + 4)), 0x1B);
    __m128i abef = _mm_alignr_epi8(dcba, hgfe, 8), cdgh = _mm_blend_epi16(hgfe, dcba, 0xF0);
    const __m128i abef_in = abef, cdgh_in = cdgh;
    __m128i w[4];
#pragma GCC unroll 16  /* the vectors stay in registers */
    for (int i = 0; i < 16; i++) {
        __m128i x;
        if (i < 4) {
            x = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(block + 16 * i)), bswap);
        } else {  /* w[i & 3] is words 4i-16.., the others follow */
            x = _mm_add_epi32(_mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]),
                              _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
            x = _mm_sha256msg2_epu32(x, w[(i + 3) & 3]);
        }
        w[i & 3] = x;
        __m128i m = _mm_add_epi32(x, _mm_loadu_si128((const __m128i *)(sha256_k + 4 * i)));
        cdgh = _mm_sha256rnds2_epu32(cdgh, abef, m);
        abef = _mm_sha256rnds2_epu32(abef, cdgh, _mm_shuffle_epi32(m, 0x0E));
    }
    abef = _mm_add_epi32(abef, abef_in);
    cdgh = _mm_add_epi32(cdgh, cdgh_in);
    __m128i feba = _mm_shuffle_epi32(abef, 0x1B), dchg = _mm_shuffle_epi32(cdgh, 0xB1);
    _mm_storeu_si128((__m128i *)state, _mm_blend_epi16(feba, dchg, 0xF0));
    _mm_storeu_si128((__m128i *)(state + 4), _mm_alignr_epi8(dchg, feba, 8));
}

static int has_sha_extensions(void) {
    unsigned int a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSE4_1) || !(c & bit_SSSE3)) return 0;
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b & (1u << 29)) != 0;
}
#endif

static sha256_block_fn sha256_block_best(void) {
#ifdef HAVE_SHA_EXTENSIONS
    if (has_sha_extensions()) return sha256_block_shani;
#endif
    return sha256_block_portable;
}

/* A SHA-256 computation under way: the state, the bytes of a partial block, the length. */
typedef struct {
    uint32_t state[8];
    uint8_t tail[64];
    size_t tail_len;
    uint64_t length;
} Sha256;

static void sha256_update(Sha256 *s, const uint8_t *data, size_t len, sha256_block_fn block) {
    s->length += len;
    if (s->tail_len) {
        size_t take = 64 - s->tail_len < len ? 64 - s->tail_len : len;
        memcpy(s->tail + s->tail_len, data, take);
        s->tail_len += take;
        data += take;
        len -= take;
        if (s->tail_len < 64) return;
        block(s->state, s->tail);
        s->tail_len = 0;
    }
    for (; len >= 64; data += 64, len -= 64) block(s->state, data);
    memcpy(s->tail, data, len);
    s->tail_len = len;
}

/* FIPS 180-4 5.1.1 padding, then the digest big-endian. */
static void sha256_final(Sha256 *s, uint8_t digest[32], sha256_block_fn block) {
    uint64_t bits = s->length * 8;
    s->tail[s->tail_len++] = 0x80;
    if (s->tail_len > 56) {
        memset(s->tail + s->tail_len, 0, 64 - s->tail_len);
        block(s->state, s->tail);
        s->tail_len = 0;
    }
    memset(s->tail + s->tail_len, 0, 56 - s->tail_len);
    for (int i = 0; i < 8; i++) s->tail[56 + i] = (uint8_t)(bits >> (56 - 8 * i));
    block(s->state, s->tail);
    for (int i = 0; i < 8; i++) {
        digest[4 * i] = (uint8_t)(s->state[i] >> 24);
        digest[4 * i + 1] = (uint8_t)(s->state[i] >> 16);
        digest[4 * i + 2] = (uint8_t)(s->state[i] >> 8);
        digest[4 * i + 3] = (uint8_t)s->state[i];
    }
}

static void sha256_start(Sha256 *s, const uint8_t *data, size_t len, sha256_block_fn block) {
    memcpy(s->state, sha256_h0, sizeof s->state);
    s->tail_len = 0;
    s->length = 0;
    sha256_update(s, data, len, block);
}

PyDoc_STRVAR(hmac_sha256_doc,
"hmac_sha256(inner, outer, offsets, data, out, portable=False)\n\n"
"HMAC-SHA-256 of each value data[offsets[i]:offsets[i+1]] into out[32i:32i+32]: inner is\n"
"key XOR ipad and a prefix of every value, outer key XOR opad (64 bytes); offsets int64\n"
"(n + 1 of them), out writable (n * 32 bytes). portable: without the SHA extensions.");

static PyObject *hmac_sha256(PyObject *Py_UNUSED(self), PyObject *args) {
    Py_buffer inner, outer, data, out, offsets_view;
    PyObject *offsets_o;
    int portable = 0;
    if (!PyArg_ParseTuple(args, "y*y*Oy*w*|p", &inner, &outer, &offsets_o, &data, &out,
                          &portable))
        return NULL;
    PyObject *result = NULL;
    if (get_array(offsets_o, &offsets_view, 0, -1, "offsets") < 0) goto release;
    const int64_t *offsets = offsets_view.buf;
    Py_ssize_t n = offsets_view.shape[0] - 1;
    if (inner.len < 64 || outer.len != 64 || n < 0 || out.len < n * 32) {
        PyErr_SetString(PyExc_ValueError, "hmac_sha256 needs inner of 64 bytes or more, "
                        "outer of 64, offsets of n + 1 and out of n * 32 bytes");
        goto release_offsets;
    }
    for (Py_ssize_t i = 0; i < n; i++) {  /* every value inside data: no read beyond it */
        if (offsets[i] < 0 || offsets[i + 1] < offsets[i] || offsets[i + 1] > data.len) {
            PyErr_SetString(PyExc_ValueError, "offsets are not ascending within data");
            goto release_offsets;
        }
    }
    sha256_block_fn block = portable ? sha256_block_portable : sha256_block_best();
    Sha256 keyed_inner, keyed_outer;
    sha256_start(&keyed_inner, inner.buf, (size_t)inner.len, block);
    sha256_start(&keyed_outer, outer.buf, 64, block);
    const uint8_t *bytes = data.buf;
    uint8_t *digests = out.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        Sha256 s = keyed_inner;
        sha256_update(&s, bytes + offsets[i], (size_t)(offsets[i + 1] - offsets[i]), block);
        uint8_t first[32];
        sha256_final(&s, first, block);
        s = keyed_outer;
        sha256_update(&s, first, 32, block);
        sha256_final(&s, digests + 32 * i, block);
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
release_offsets:
    PyBuffer_Release(&offsets_view);
release:
    PyBuffer_Release(&inner);
    PyBuffer_Release(&outer);
    PyBuffer_Release(&data);
    PyBuffer_Release(&out);
    return result;
}

/* ---- end of batch HMAC-SHA-256 ------------------------------------------------------ */

/* ---- positions of 64-bit hashes ------------------------------------------------------
 * A record's patient found by its identifier's hash among a million patients: the table
 * (16 MB and more) misses the cache at every look-up, so the slot a few records ahead is
 * fetched while this one is compared (a tenth of pandas' get_indexer's time). */

#if defined(__GNUC__) || defined(__clang__)
#define PREFETCH(address) __builtin_prefetch(address)
#else
#define PREFETCH(address) ((void)0)
#endif
#define HASH_AHEAD 16

PyDoc_STRVAR(hash_find_doc,
"hash_find(table, hashes, out)\n\n"
"out[i] = the position paired with hashes[i] in table, -1 if none: table holds size\n"
"(hash, position) pairs (int64, 2 * size entries, size a power of two), a position -1\n"
"where a slot is empty, a hash in the first free slot from hash mod size on (linear\n"
"probing); hashes (64 bits read as int64) and out int64, of one length.");

static PyObject *hash_find(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *table_o, *hashes_o, *out_o;
    if (!PyArg_ParseTuple(args, "OOO", &table_o, &hashes_o, &out_o)) return NULL;
    Py_buffer table_view, hashes_view, out_view;
    if (get_array(table_o, &table_view, 0, -1, "table") < 0) return NULL;
    PyObject *result = NULL;
    if (get_array(hashes_o, &hashes_view, 0, -1, "hashes") < 0) goto release_table;
    Py_ssize_t n = hashes_view.shape[0];
    if (get_array(out_o, &out_view, 1, n, "out") < 0) goto release_hashes;
    Py_ssize_t size = table_view.shape[0] / 2;
    if (size < 1 || (size & (size - 1)) != 0 || table_view.shape[0] != 2 * size) {
        PyErr_SetString(PyExc_ValueError, "hash_find needs a table of 2 * size entries, "
                        "size a power of two");
        goto release_out;
    }
    const int64_t *table = table_view.buf;
    const uint64_t *hashes = hashes_view.buf;
    int64_t *out = out_view.buf;
    const uint64_t mask = (uint64_t)size - 1;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i + HASH_AHEAD < n) PREFETCH(table + 2 * (hashes[i + HASH_AHEAD] & mask));
        uint64_t slot = hashes[i] & mask;
        int64_t found = -1;
        for (Py_ssize_t probe = 0; probe < size; probe++) {  /* a full table ends too */
            int64_t position = table[2 * slot + 1];
            if (position < 0) break;
            if ((uint64_t)table[2 * slot] == hashes[i]) {
                found = position;
                break;
            }
            slot = (slot + 1) & mask;
        }
        out[i] = found;
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
release_out:
    PyBuffer_Release(&out_view);
release_hashes:
    PyBuffer_Release(&hashes_view);
release_table:
    PyBuffer_Release(&table_view);
    return result;
}

PyDoc_STRVAR(hash_insert_doc,
"hash_insert(table, hashes) -> repeats\n\n"
"Pair each of hashes (64 bits read as int64) with its position in a table as hash_find\n"
"reads it (every slot empty at first); a hash already in the table is left out and\n"
"counted: the number of such repeats is returned.");

static PyObject *hash_insert(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *table_o, *hashes_o;
    if (!PyArg_ParseTuple(args, "OO", &table_o, &hashes_o)) return NULL;
    Py_buffer table_view, hashes_view;
    if (get_array(table_o, &table_view, 1, -1, "table") < 0) return NULL;
    PyObject *result = NULL;
    if (get_array(hashes_o, &hashes_view, 0, -1, "hashes") < 0) goto release_table;
    Py_ssize_t n = hashes_view.shape[0], size = table_view.shape[0] / 2;
    if (size < 1 || (size & (size - 1)) != 0 || table_view.shape[0] != 2 * size
            || n >= size) {
        PyErr_SetString(PyExc_ValueError, "hash_insert needs a table of 2 * size entries, "
                        "size a power of two above the number of hashes");
        goto release_hashes;
    }
    int64_t *table = table_view.buf;
    const uint64_t *hashes = hashes_view.buf;
    const uint64_t mask = (uint64_t)size - 1;
    Py_ssize_t repeats = 0;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        if (i + HASH_AHEAD < n) PREFETCH(table + 2 * (hashes[i + HASH_AHEAD] & mask));
        uint64_t slot = hashes[i] & mask;
        while (table[2 * slot + 1] >= 0 && (uint64_t)table[2 * slot] != hashes[i])
            slot = (slot + 1) & mask;  /* a free slot remains: n < size */
        if (table[2 * slot + 1] >= 0) {
            repeats++;
            continue;
        }
        table[2 * slot] = (int64_t)hashes[i];
        table[2 * slot + 1] = i;
    }
    Py_END_ALLOW_THREADS
    result = PyLong_FromSsize_t(repeats);
release_hashes:
    PyBuffer_Release(&hashes_view);
release_table:
    PyBuffer_Release(&table_view);
    return result;
}

PyDoc_STRVAR(first_seen_doc,
"first_seen(words, first) -> repeats\n\n"
"first[i] = 1 where words[i] (64 bits read as int64) appears for the first time, else 0\n"
"(first: one byte a word); returns how many words are not first. A table of its own,\n"
"the GIL released: DuckDB's threads call it side by side.");

static PyObject *first_seen(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *words_o;
    Py_buffer first_view, words_view;
    if (!PyArg_ParseTuple(args, "Ow*", &words_o, &first_view)) return NULL;
    PyObject *result = NULL;
    if (get_array(words_o, &words_view, 0, -1, "words") < 0) goto release_first;
    Py_ssize_t n = words_view.shape[0];
    if (first_view.len < n || n >= INT32_MAX) {
        PyErr_SetString(PyExc_ValueError, "first_seen needs a byte a word, below 2**31 words");
        goto release_words;
    }
    int shift = 64;
    size_t capacity = 1;
    while (capacity < 2 * (size_t)n + 2) {
        capacity <<= 1;
        shift--;
    }
    int32_t *slots = malloc(capacity * sizeof(int32_t));
    if (slots == NULL) {
        PyErr_NoMemory();
        goto release_words;
    }
    const int64_t *words = words_view.buf;
    uint8_t *first = first_view.buf;
    const size_t mask = capacity - 1;
    Py_ssize_t repeats = 0;
    Py_BEGIN_ALLOW_THREADS
    memset(slots, 0xff, capacity * sizeof(int32_t)); /* -1: empty */
    for (Py_ssize_t i = 0; i < n; i++) {
        uint64_t w = (uint64_t)words[i];
        size_t h = shift < 64 ? (size_t)((w * 0x9E3779B97F4A7C15ULL) >> shift) : 0;
        for (;;) {
            int32_t at = slots[h];
            if (at < 0) {
                slots[h] = (int32_t)i;
                first[i] = 1;
                break;
            }
            if ((uint64_t)words[at] == w) {
                first[i] = 0;
                repeats++;
                break;
            }
            h = (h + 1) & mask;
        }
    }
    Py_END_ALLOW_THREADS
    free(slots);
    result = PyLong_FromSsize_t(repeats);
release_words:
    PyBuffer_Release(&words_view);
release_first:
    PyBuffer_Release(&first_view);
    return result;
}

PyDoc_STRVAR(unsure_texts_doc,
"unsure_texts(offsets, data, longest, unsure)\n\n"
"unsure[i] = 1 where text i (bytes offsets[i] to offsets[i + 1] of data, UTF-8) could be\n"
"a missing value's spelling of at most longest characters between spaces: it is empty,\n"
"starts or ends outside printable ASCII (0x21-0x7e), or is short (longest bytes, or\n"
"4 * longest bytes when it holds a byte beyond ASCII); else 0. The GIL released.");

static PyObject *unsure_texts(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *offsets_o;
    Py_buffer data, unsure_view, offsets_view;
    long long longest;
    if (!PyArg_ParseTuple(args, "Oy*Lw*", &offsets_o, &data, &longest, &unsure_view))
        return NULL;
    PyObject *result = NULL;
    if (get_array(offsets_o, &offsets_view, 0, -1, "offsets") < 0) goto release;
    const int64_t *offsets = offsets_view.buf;
    Py_ssize_t n = offsets_view.shape[0] - 1;
    if (n < 0 || unsure_view.len < n || longest < 0) {
        PyErr_SetString(PyExc_ValueError, "unsure_texts needs offsets of n + 1 and a byte a "
                        "text");
        goto release_offsets;
    }
    for (Py_ssize_t i = 0; i < n; i++) {  /* every text inside data: no read beyond it */
        if (offsets[i] < 0 || offsets[i + 1] < offsets[i] || offsets[i + 1] > data.len) {
            PyErr_SetString(PyExc_ValueError, "offsets are not ascending within data");
            goto release_offsets;
        }
    }
    const uint8_t *bytes = data.buf;
    uint8_t *unsure = unsure_view.buf;
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < n; i++) {
        int64_t start = offsets[i], length = offsets[i + 1] - start;
        int odd_ends = length == 0 || (uint8_t)(bytes[start] - 0x21) > 0x7e - 0x21
            || (uint8_t)(bytes[start + length - 1] - 0x21) > 0x7e - 0x21;
        int maybe = odd_ends || length <= longest;
        if (!maybe && length <= 4 * longest) {  /* beyond ASCII, 4 bytes a character */
            for (int64_t j = start; j < start + length && !maybe; j++) maybe = bytes[j] >= 0x80;
        }
        unsure[i] = (uint8_t)maybe;
    }
    Py_END_ALLOW_THREADS
    result = Py_NewRef(Py_None);
release_offsets:
    PyBuffer_Release(&offsets_view);
release:
    PyBuffer_Release(&data);
    PyBuffer_Release(&unsure_view);
    return result;
}

/* ---- end of positions of 64-bit hashes ---------------------------------------------- */

static PyMethodDef methods[] = {
    {"argsort", argsort, METH_VARARGS, argsort_doc},
    {"digit_sums", digit_sums, METH_VARARGS, digit_sums_doc},
    {"pack", pack, METH_VARARGS, pack_doc},
    {"rewrite", rewrite, METH_VARARGS, rewrite_doc},
    {"group", group, METH_VARARGS, group_doc},
    {"group_beside", group_beside, METH_VARARGS, group_beside_doc},
    {"sum_pairs", sum_pairs_py, METH_VARARGS, sum_pairs_doc},
    {"hmac_sha256", hmac_sha256, METH_VARARGS, hmac_sha256_doc},
    {"hash_find", hash_find, METH_VARARGS, hash_find_doc},
    {"hash_insert", hash_insert, METH_VARARGS, hash_insert_doc},
    {"first_seen", first_seen, METH_VARARGS, first_seen_doc},
    {"unsure_texts", unsure_texts, METH_VARARGS, unsure_texts_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_kernels", "One-pass grouping kernels for roll-up.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__kernels(void) { return PyModule_Create(&module); }
