/* A first-legal-action engine for protocol bidref/1, in C11 with no library.
 *
 * Reads one JSON object per line on stdin and answers on stdout (flushed):
 *   hello   -> its own hello
 *   request -> {"type":"action","id":ID,"action":FIRST}  (FIRST = legal[0])
 *   error   -> for the pending request (an illegal or unreadable action): the
 *              next legal action, since the same request stays pending
 *   ping    -> {"type":"pong","id":ID}
 *   quit    -> exits
 * Everything else (events, rules answers) is ignored.
 *
 * The JSON is scanned, not fully parsed: it finds the top-level keys "type",
 * "id" and "legal" by walking the object while skipping strings (with escapes)
 * and nested values, so a key name inside the view or a string cannot fool it.
 * Any valid JSON line works: spaces, any key order, and escapes (keys and the
 * "type" and "code" values are decoded before they are compared; the action
 * is echoed exactly as the request wrote it, escapes and all).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *line = NULL;
static size_t cap = 0;

/* Skip a JSON string starting at s (pointing at the opening quote). */
static const char *skip_string(const char *s) {
    s++;
    while (*s && *s != '"') {
        if (*s == '\\' && s[1]) s++;
        s++;
    }
    return *s ? s + 1 : s;
}

static unsigned hex4(const char *h) {
    unsigned v = 0;
    for (int i = 0; i < 4; i++) {
        char c = h[i];
        v = v * 16 + (unsigned)(c >= '0' && c <= '9' ? c - '0'
                                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                                : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 0);
    }
    return v;
}

/* Decode the JSON string at s (a quote) into out (UTF-8, escapes resolved), so
 * that "h\u0065llo" compares equal to "hello". 0 if it does not fit. */
static int decode_string(const char *s, char *out, size_t outlen) {
    size_t n = 0;
    if (*s != '"') return 0;
    s++;
    while (*s && *s != '"') {
        unsigned c = (unsigned char)*s++;
        int raw = 1;
        if (c == '\\' && *s) {
            raw = 0;
            char e = *s++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'u':
                if (strlen(s) < 4) return 0;
                c = hex4(s);
                s += 4;
                if (c >= 0xD800 && c < 0xDC00 && s[0] == '\\' && s[1] == 'u' && strlen(s) >= 6) {
                    c = 0x10000 + ((c - 0xD800) << 10) + (hex4(s + 2) - 0xDC00);
                    s += 6;
                }
                break;
            default: c = (unsigned char)e; break;
            }
        }
        char buf[4];
        size_t k;
        if (c < 0x80 || raw) { buf[0] = (char)c; k = 1; }
        else if (c < 0x800) { buf[0] = (char)(0xC0 | c >> 6); buf[1] = (char)(0x80 | (c & 0x3F)); k = 2; }
        else if (c < 0x10000) {
            buf[0] = (char)(0xE0 | c >> 12); buf[1] = (char)(0x80 | ((c >> 6) & 0x3F));
            buf[2] = (char)(0x80 | (c & 0x3F)); k = 3;
        } else {
            buf[0] = (char)(0xF0 | c >> 18); buf[1] = (char)(0x80 | ((c >> 12) & 0x3F));
            buf[2] = (char)(0x80 | ((c >> 6) & 0x3F)); buf[3] = (char)(0x80 | (c & 0x3F)); k = 4;
        }
        if (n + k + 1 > outlen) return 0;
        memcpy(out + n, buf, k);
        n += k;
    }
    out[n] = 0;
    return 1;
}

/* Skip any JSON value starting at s. */
static const char *skip_value(const char *s) {
    while (*s == ' ' || *s == '\t' || *s == '\r') s++;
    if (*s == '"') return skip_string(s);
    if (*s == '{' || *s == '[') {
        int depth = 0;
        while (*s) {
            if (*s == '"') { s = skip_string(s); continue; }
            if (*s == '{' || *s == '[') depth++;
            else if (*s == '}' || *s == ']') { depth--; if (depth == 0) return s + 1; }
            s++;
        }
        return s;
    }
    while (*s && *s != ',' && *s != '}' && *s != ']') s++;
    return s;
}

/* The length of the JSON value at v, without the whitespace after it. */
static size_t value_len(const char *v) {
    const char *end = skip_value(v);
    while (end > v && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r')) end--;
    return (size_t)(end - v);
}

/* Find the value of top-level key `key` in the object at s; NULL if absent. */
static const char *find_key(const char *s, const char *key) {
    while (*s && *s != '{') s++;
    if (!*s) return NULL;
    s++;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == ',') s++;
        if (*s != '"') return NULL;
        char name[64];
        const char *after = skip_string(s);
        int match = decode_string(s, name, sizeof name) && strcmp(name, key) == 0;
        s = after;
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == ':') s++;
        if (match) return s;
        s = skip_value(s);
    }
}

/* Copy the JSON string at s (a quote) into out, raw (escapes kept). */
static int copy_string(const char *s, char *out, size_t outlen) {
    if (*s != '"') return 0;
    const char *end = skip_string(s);
    size_t n = (size_t)(end - s);
    if (n + 1 > outlen) return 0;
    memcpy(out, s, n);
    out[n] = 0;
    return 1;
}

/* Copy the k-th string of the JSON array at s (a '[') into out. */
static int nth_string(const char *s, int k, char *out, size_t outlen) {
    if (*s != '[') return 0;
    s++;
    for (int i = 0;; i++) {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == ',') s++;
        if (*s != '"') return 0;
        if (i == k) return copy_string(s, out, outlen);
        s = skip_string(s);
    }
}

static char *pending_legal = NULL; /* the pending request's "legal" array, copied */
static char pending_id[64] = "";
static int pending_index = 0;

static void answer(const char *id) {
    char action[512];
    if (!nth_string(pending_legal, pending_index, action, sizeof action)) {
        pending_index = 0; /* no further action: the first one again */
        if (!nth_string(pending_legal, 0, action, sizeof action)) return;
    }
    printf("{\"type\":\"action\",\"id\":%s,\"action\":%s}\n", id, action);
}

int main(void) {
    char type[64], id[64];
    ssize_t n;
    while ((n = getline(&line, &cap, stdin)) > 0) {
        const char *t = find_key(line, "type");
        if (!t || !decode_string(t, type, sizeof type)) continue;
        if (strcmp(type, "hello") == 0) {
            fputs("{\"type\":\"hello\",\"name\":\"c_first\",\"author\":\"bidref samples\","
                  "\"version\":\"1\",\"protocol\":\"bidref/1\"}\n", stdout);
        } else if (strcmp(type, "request") == 0 || strcmp(type, "ping") == 0) {
            const char *i = find_key(line, "id");
            if (!i) continue;
            size_t ilen = value_len(i);
            if (ilen == 0 || ilen >= sizeof id) continue;
            memcpy(id, i, ilen);
            id[ilen] = 0;
            if (type[0] == 'p') {
                printf("{\"type\":\"pong\",\"id\":%s}\n", id);
            } else {
                const char *l = find_key(line, "legal");
                if (!l || *l != '[') continue;
                free(pending_legal);
                pending_legal = strndup(l, (size_t)(skip_value(l) - l));
                if (!pending_legal) continue;
                memcpy(pending_id, id, ilen + 1);
                pending_index = 0;
                answer(id);
            }
        } else if (strcmp(type, "error") == 0) {
            const char *i = find_key(line, "id");
            if (!i || !pending_legal) continue;
            size_t ilen = value_len(i);
            if (ilen != strlen(pending_id) || strncmp(i, pending_id, ilen) != 0) continue;
            const char *c = find_key(line, "code");
            char code[64];
            if (!c || !decode_string(c, code, sizeof code)) continue;
            if (strcmp(code, "illegal") != 0 && strcmp(code, "bad_action") != 0) continue;
            pending_index++;
            answer(pending_id);
        } else if (strcmp(type, "quit") == 0) {
            break;
        } else {
            continue;
        }
        fflush(stdout);
    }
    free(line);
    free(pending_legal);
    return 0;
}
