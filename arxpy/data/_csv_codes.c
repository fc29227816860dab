/* Reading a plain CSV file's records as codes, and writing records' lines from codes
 * (arxpy.data.csv_codes wraps both).
 *
 * A large file of repeated values (10^7 records, a few hundred distinct values per
 * column) is mostly parsing and dictionary encoding; pyarrow does both on its threads
 * but builds every cell as a string first. Here one pass over a byte range of the file
 * splits each line at the delimiter and looks each field's bytes up in the column's hash
 * table: a code per cell, each distinct value's bytes kept once. Two ranges read on two
 * threads (the GIL is released while reading) are merged by the caller.
 *
 * Only a plain file is read this way: every line ends in \n or \r\n and has exactly the
 * expected number of fields, and no byte of the range is the quote character, a NUL or
 * a lone \r. Anything else returns None, and the caller's general reader (which knows
 * every rule and error message) reads the file instead; the values are decoded as strict
 * UTF-8 for the same reason. So a file read here gives the strings the general reader
 * gives, or is not read here at all.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef _WIN32
#define seek64 _fseeki64
#else
#define seek64 fseeko
#endif

/* Bytes read at a time (a line longer than this grows the buffer). */
#define READ_BLOCK (1 << 22)
/* Bytes after the data: a line end added to the last line, and whole-word loads. */
#define SLACK 24

typedef struct {
    uint64_t hash;
    uint64_t w0, w1; /* the value's first 16 bytes (word_at) */
    int64_t offset;  /* of the value's bytes in the arena */
    int32_t length; /* -1: an empty slot */
    int32_t code;
} Slot;

typedef struct {
    Slot *slots;
    size_t capacity; /* a power of two, at least twice the values */
    char *arena;
    size_t arena_len, arena_cap;
    int64_t *value_offset;
    int32_t *value_length;
    int32_t values, values_cap;
    unsigned char *codes; /* per row, `width` bytes (int8, int16 or int32) */
    size_t codes_cap;     /* in rows */
    int width;
} Column;

typedef struct {
    Column *columns;
    int fields;
    size_t rows;
    unsigned char stop[256]; /* bytes that end a field or make the file not plain */
    unsigned char delimiter;
} Reader;

/* The first 16 bytes of a field as two words, bytes past its end zero; the read
 * buffer has 16 bytes of slack after its data, so loading whole words is safe. */
static inline uint64_t word_at(const unsigned char *p, size_t len) {
    if (len == 0) return 0;
    uint64_t w;
    memcpy(&w, p, 8);
    if (len >= 8) return w;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    return w & (~0ULL << (64 - 8 * len));
#else
    return w & (~0ULL >> (64 - 8 * len));
#endif
}

static inline uint64_t mix(uint64_t h, uint64_t w) {
    h = (h ^ w) * 0xff51afd7ed558ccdULL;
    return h ^ (h >> 32);
}

static uint64_t hash_field(const unsigned char *p, size_t len, uint64_t w0, uint64_t w1) {
    uint64_t h = mix(mix((uint64_t)len * 0x9E3779B97F4A7C15ULL, w0), w1);
    for (size_t at = 16; at < len; at += 8) h = mix(h, word_at(p + at, len - at));
    return h;
}

static int grow_slots(Column *c) {
    size_t capacity = c->capacity ? 2 * c->capacity : 256;
    Slot *slots = malloc(capacity * sizeof(Slot));
    if (slots == NULL) return -1;
    for (size_t i = 0; i < capacity; i++) slots[i].length = -1;
    for (size_t i = 0; i < c->capacity; i++) {
        if (c->slots[i].length < 0) continue;
        size_t at = c->slots[i].hash & (capacity - 1);
        while (slots[at].length >= 0) at = (at + 1) & (capacity - 1);
        slots[at] = c->slots[i];
    }
    free(c->slots);
    c->slots = slots;
    c->capacity = capacity;
    return 0;
}

/* Codes wider by one step: int8 -> int16 -> int32 (as pandas keeps categorical codes). */
static int widen(Column *c, size_t rows) {
    int width = c->width * 2;
    if (c->codes_cap == 0) {
        c->width = width;
        return 0;
    }
    unsigned char *codes = malloc(c->codes_cap * (size_t)width);
    if (codes == NULL) return -1;
    for (size_t i = 0; i < rows; i++) {
        int32_t v = c->width == 1 ? ((int8_t *)c->codes)[i] : ((int16_t *)c->codes)[i];
        if (width == 2)
            ((int16_t *)codes)[i] = (int16_t)v;
        else
            ((int32_t *)codes)[i] = v;
    }
    free(c->codes);
    c->codes = codes;
    c->width = width;
    return 0;
}

static int32_t add_value(Column *c, const unsigned char *p, int32_t len, const Slot *key,
                         size_t at, size_t rows) {
    if (c->values == INT32_MAX) return -1;
    if (c->arena_len + (size_t)len > c->arena_cap) {
        size_t cap = c->arena_cap ? c->arena_cap : 4096;
        while (cap < c->arena_len + (size_t)len) cap *= 2;
        char *arena = realloc(c->arena, cap);
        if (arena == NULL) return -1;
        c->arena = arena;
        c->arena_cap = cap;
    }
    if (c->values == c->values_cap) {
        int32_t cap = c->values_cap ? 2 * c->values_cap : 64;
        int64_t *offsets = realloc(c->value_offset, (size_t)cap * sizeof(int64_t));
        if (offsets == NULL) return -1;
        c->value_offset = offsets;
        int32_t *lengths = realloc(c->value_length, (size_t)cap * sizeof(int32_t));
        if (lengths == NULL) return -1;
        c->value_length = lengths;
        c->values_cap = cap;
    }
    int32_t code = c->values++;
    memcpy(c->arena + c->arena_len, p, (size_t)len);
    c->value_offset[code] = (int64_t)c->arena_len;
    c->value_length[code] = len;
    c->arena_len += (size_t)len;
    c->slots[at] = (Slot){key->hash, key->w0, key->w1, c->value_offset[code], len, code};
    if (((size_t)c->values * 2 > c->capacity && grow_slots(c) < 0) ||
        ((code == INT8_MAX || code == INT16_MAX) && widen(c, rows) < 0))
        return -1;
    return code;
}

static int32_t code_of(Column *c, const unsigned char *p, int32_t len, size_t rows) {
    Slot key;
    key.w0 = word_at(p, (size_t)len);
    key.w1 = len > 8 ? word_at(p + 8, (size_t)len - 8) : 0;
    key.hash = hash_field(p, (size_t)len, key.w0, key.w1);
    size_t at = key.hash & (c->capacity - 1);
    for (;; at = (at + 1) & (c->capacity - 1)) {
        Slot *s = &c->slots[at];
        if (s->length < 0) return add_value(c, p, len, &key, at, rows);
        if (s->hash == key.hash && s->length == len && s->w0 == key.w0 && s->w1 == key.w1 &&
            (len <= 16 || memcmp(c->arena + s->offset + 16, p + 16, (size_t)len - 16) == 0))
            return s->code;
    }
}

static int store(Column *c, size_t row, int32_t code) {
    if (row == c->codes_cap) {
        size_t cap = c->codes_cap ? 2 * c->codes_cap : 1 << 16;
        unsigned char *codes = realloc(c->codes, cap * (size_t)c->width);
        if (codes == NULL) return -1;
        c->codes = codes;
        c->codes_cap = cap;
    }
    if (c->width == 1)
        ((int8_t *)c->codes)[row] = (int8_t)code;
    else if (c->width == 2)
        ((int16_t *)c->codes)[row] = (int16_t)code;
    else
        ((int32_t *)c->codes)[row] = code;
    return 0;
}

/* Parses the complete lines in [p, end) (end[-1] is '\n'). 0, or 1: not plain, or -1:
 * out of memory. */
static int parse_lines(Reader *r, const unsigned char *p, const unsigned char *end) {
    while (p < end) {
        for (int j = 0; j < r->fields; j++) {
            const unsigned char *q = p;
            while (!r->stop[*q]) q++;
            const unsigned char *next = q + 1;
            if (*q == r->delimiter) {
                if (j == r->fields - 1) return 1; /* too many fields */
            } else if (*q == '\n' || (*q == '\r' && q[1] == '\n')) {
                if (j != r->fields - 1) return 1; /* too few (or a blank line) */
                next = q + (*q == '\r' ? 2 : 1);
            } else {
                return 1; /* a quote, NUL or lone carriage return */
            }
            if (q - p > INT32_MAX) return 1;
            int32_t code = code_of(&r->columns[j], p, (int32_t)(q - p), r->rows);
            if (code < 0 || store(&r->columns[j], r->rows, code) < 0) return -1;
            p = next;
        }
        r->rows++;
    }
    return 0;
}

static const unsigned char *last_line_end(const unsigned char *buf, size_t len) {
    while (len > 0)
        if (buf[--len] == '\n') return buf + len;
    return NULL;
}

/* Reads and parses [start, end) of `path`. 0, 1 (not plain), -1 (out of memory) or
 * -2 (the file could not be read: the general reader says why). */
static int read_range(Reader *r, const char *path, int64_t start, int64_t end) {
    FILE *file = fopen(path, "rb");
    if (file == NULL) return -2;
    size_t cap = READ_BLOCK, carry = 0;
    unsigned char *buf = malloc(cap + SLACK);
    int status = buf == NULL ? -1 : 0;
    if (status == 0 && seek64(file, start, SEEK_SET) != 0) status = -2;
    int64_t left = end - start;
    while (status == 0 && (left > 0 || carry > 0)) {
        if (carry == cap) { /* a line longer than the buffer */
            unsigned char *grown = realloc(buf, 2 * cap + SLACK);
            if (grown == NULL) {
                status = -1;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t want = (size_t)(left < (int64_t)(cap - carry) ? left : (int64_t)(cap - carry));
        size_t got = want ? fread(buf + carry, 1, want, file) : 0;
        if (got != want) {
            status = -2;
            break;
        }
        left -= (int64_t)got;
        size_t len = carry + got;
        if (left == 0) { /* the range's last line may lack its line end */
            if (buf[len - 1] != '\n') buf[len++] = '\n';
            status = parse_lines(r, buf, buf + len);
            break;
        }
        const unsigned char *last = last_line_end(buf, len);
        if (last == NULL) {
            carry = len;
            continue;
        }
        status = parse_lines(r, buf, last + 1);
        carry = len - (size_t)(last + 1 - buf);
        memmove(buf, last + 1, carry);
    }
    free(buf);
    fclose(file);
    return status;
}

static void free_columns(Column *columns, int fields) {
    if (columns == NULL) return;
    for (int j = 0; j < fields; j++) {
        free(columns[j].slots);
        free(columns[j].arena);
        free(columns[j].value_offset);
        free(columns[j].value_length);
        free(columns[j].codes);
    }
    free(columns);
}

/* (codes as bytes, width, values as str) of a column; NULL with a UnicodeDecodeError
 * (a value that is not UTF-8) or another error set. */
static PyObject *column_result(const Column *c, size_t rows) {
    PyObject *values = PyList_New(c->values);
    if (values == NULL) return NULL;
    for (int32_t i = 0; i < c->values; i++) {
        PyObject *value = PyUnicode_DecodeUTF8(c->arena + c->value_offset[i], c->value_length[i],
                                               "strict");
        if (value == NULL) {
            Py_DECREF(values);
            return NULL;
        }
        PyList_SET_ITEM(values, i, value);
    }
    PyObject *codes = PyByteArray_FromStringAndSize((const char *)c->codes,
                                                    (Py_ssize_t)(rows * (size_t)c->width));
    if (codes == NULL) {
        Py_DECREF(values);
        return NULL;
    }
    return Py_BuildValue("(NiN)", codes, c->width, values);
}

PyDoc_STRVAR(read_codes_doc,
"read_codes(path, start, end, delimiter, quote, fields)\n\n"
"The lines in bytes [start, end) of the file at path (start at a line's first byte,\n"
"end at the file's end or just after a line end) as codes: (rows, columns), each\n"
"column (codes as a bytearray of int8, int16 or int32, their width in bytes, the\n"
"distinct values as str in order of first appearance). None when the range is not\n"
"plain (a line with another field count, a blank line, the quote character, a NUL\n"
"byte, a lone carriage return, a value that is not UTF-8) or the file cannot be read.");

static PyObject *read_codes(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *path_o;
    long long start, end;
    int delimiter, quote, fields;
    if (!PyArg_ParseTuple(args, "O&LLCCi", PyUnicode_FSConverter, &path_o, &start, &end,
                          &delimiter, &quote, &fields))
        return NULL;
    PyObject *result = NULL;
    Reader r = {0};
    r.fields = fields;
    r.delimiter = (unsigned char)delimiter;
    if (fields < 1 || delimiter > 127 || quote > 127 || delimiter == quote || start < 0 ||
        end < start || delimiter == '\n' || delimiter == '\r' || delimiter == 0) {
        PyErr_SetString(PyExc_ValueError, "read_codes needs ASCII delimiter and quote, "
                                          "at least one field and a byte range");
        goto done;
    }
    r.columns = calloc((size_t)fields, sizeof(Column));
    if (r.columns == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    for (int j = 0; j < fields; j++) {
        r.columns[j].width = 1;
        if (grow_slots(&r.columns[j]) < 0) {
            PyErr_NoMemory();
            goto done;
        }
    }
    r.stop[(unsigned char)delimiter] = r.stop['\n'] = r.stop['\r'] = r.stop[0] = 1;
    r.stop[(unsigned char)quote] = 1;
    int status = 0;
    if (end > start) {
        const char *path = PyBytes_AS_STRING(path_o);
        Py_BEGIN_ALLOW_THREADS
        status = read_range(&r, path, start, end);
        Py_END_ALLOW_THREADS
    }
    if (status == -1) {
        PyErr_NoMemory();
        goto done;
    }
    if (status != 0) {
        result = Py_NewRef(Py_None);
        goto done;
    }
    PyObject *columns = PyList_New(fields);
    if (columns == NULL) goto done;
    for (int j = 0; j < fields; j++) {
        PyObject *column = column_result(&r.columns[j], r.rows);
        if (column == NULL) {
            Py_DECREF(columns);
            if (PyErr_ExceptionMatches(PyExc_UnicodeDecodeError)) {
                PyErr_Clear();
                result = Py_NewRef(Py_None);
            }
            goto done;
        }
        PyList_SET_ITEM(columns, j, column);
    }
    result = Py_BuildValue("(nN)", (Py_ssize_t)r.rows, columns);
done:
    free_columns(r.columns, fields);
    Py_DECREF(path_o);
    return result;
}

/* ==== Writing: records' lines from per-column codes ==================================
 * The exporter keeps each column as codes into its distinct cells, already formatted,
 * quoted and encoded; a record's line is its cells joined by the delimiter. Copying
 * the cells' bytes here (the GIL released) replaces joining a Python string per line. */

typedef struct {
    Py_buffer codes, offsets;
    const char *blob;
    Py_ssize_t values;
} CodedColumn;

static int is_format(const Py_buffer *view, Py_ssize_t itemsize, const char *kinds) {
    if (view->ndim != 1 || view->itemsize != itemsize) return 0;
    if (view->format == NULL) return 1;
    const char *f = view->format;
    if (*f == '<' || *f == '=' || *f == '@') f++;
    return f[0] != '\0' && strchr(kinds, f[0]) != NULL && f[1] == '\0';
}

static int coded_column(PyObject *codes, PyObject *cells, CodedColumn *c) {
    PyObject *blob, *offsets;
    if (!PyArg_ParseTuple(cells, "O!O", &PyBytes_Type, &blob, &offsets)) return -1;
    if (PyObject_GetBuffer(codes, &c->codes, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) return -1;
    if (PyObject_GetBuffer(offsets, &c->offsets, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) < 0) {
        PyBuffer_Release(&c->codes);
        return -1;
    }
    c->blob = PyBytes_AS_STRING(blob);
    c->values = c->offsets.shape[0] - 1;
    const int64_t *at = c->offsets.buf;
    int ok = is_format(&c->codes, 4, "i") && is_format(&c->offsets, 8, "lq") && c->values >= 0 &&
             at[0] == 0 && at[c->values] == PyBytes_GET_SIZE(blob);
    for (Py_ssize_t v = 0; ok && v < c->values; v++) ok = at[v] <= at[v + 1];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "format_rows needs int32 codes and (bytes, int64 "
                                          "offsets from 0 to its length) per column");
        PyBuffer_Release(&c->codes);
        PyBuffer_Release(&c->offsets);
        return -1;
    }
    return 0;
}

PyDoc_STRVAR(format_rows_doc,
"format_rows(codes, cells, delimiter)\n\n"
"The bytes of the records' lines: record i is cells[j] of codes[j][i] for each column j,\n"
"joined by the delimiter, ending in \\n. codes: a tuple of int32 arrays of equal length;\n"
"cells: per column (bytes of its cells one after another, int64 offsets: cell v is\n"
"bytes[offsets[v]:offsets[v + 1]]).");

static PyObject *format_rows(PyObject *Py_UNUSED(self), PyObject *args) {
    PyObject *codes_t, *cells_t;
    int delimiter;
    if (!PyArg_ParseTuple(args, "O!O!C", &PyTuple_Type, &codes_t, &PyTuple_Type, &cells_t,
                          &delimiter))
        return NULL;
    Py_ssize_t columns = PyTuple_GET_SIZE(codes_t);
    if (columns < 1 || columns != PyTuple_GET_SIZE(cells_t) || delimiter > 127) {
        PyErr_SetString(PyExc_ValueError, "format_rows needs as many cells as code columns "
                                          "(at least one) and an ASCII delimiter");
        return NULL;
    }
    CodedColumn *c = calloc((size_t)columns, sizeof(CodedColumn));
    if (c == NULL) return PyErr_NoMemory();
    PyObject *result = NULL;
    Py_ssize_t got = 0, rows = 0;
    for (; got < columns; got++) {
        if (coded_column(PyTuple_GET_ITEM(codes_t, got), PyTuple_GET_ITEM(cells_t, got),
                         &c[got]) < 0)
            goto done;
        if (got == 0) rows = c[0].codes.shape[0];
        if (c[got].codes.shape[0] != rows) {
            PyErr_SetString(PyExc_ValueError, "format_rows needs code columns of equal length");
            got++;
            goto done;
        }
    }
    Py_ssize_t size = rows * columns; /* the delimiters and line ends */
    for (Py_ssize_t j = 0; j < columns; j++) {
        const int32_t *code = c[j].codes.buf;
        const int64_t *at = c[j].offsets.buf;
        for (Py_ssize_t i = 0; i < rows; i++) {
            if (code[i] < 0 || code[i] >= c[j].values) {
                PyErr_SetString(PyExc_ValueError, "a code is outside its column's cells");
                goto done;
            }
            size += (Py_ssize_t)(at[code[i] + 1] - at[code[i]]);
        }
    }
    result = PyBytes_FromStringAndSize(NULL, size);
    if (result == NULL) goto done;
    char *out = PyBytes_AS_STRING(result);
    Py_BEGIN_ALLOW_THREADS
    for (Py_ssize_t i = 0; i < rows; i++) {
        for (Py_ssize_t j = 0; j < columns; j++) {
            int32_t v = ((const int32_t *)c[j].codes.buf)[i];
            const int64_t *at = c[j].offsets.buf;
            size_t len = (size_t)(at[v + 1] - at[v]);
            memcpy(out, c[j].blob + at[v], len);
            out += len;
            *out++ = j + 1 < columns ? (char)delimiter : '\n';
        }
    }
    Py_END_ALLOW_THREADS
done:
    for (Py_ssize_t j = 0; j < got; j++) {
        PyBuffer_Release(&c[j].codes);
        PyBuffer_Release(&c[j].offsets);
    }
    free(c);
    return result;
}

static PyMethodDef methods[] = {
    {"format_rows", format_rows, METH_VARARGS, format_rows_doc},
    {"read_codes", read_codes, METH_VARARGS, read_codes_doc},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "_csv_codes", "Plain CSV records read as codes, and lines written from codes.", -1, methods,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__csv_codes(void) { return PyModule_Create(&module); }
