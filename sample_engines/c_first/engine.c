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

/* Skip any JSON value starting at s. */
static const char *skip_value(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
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

/* Find the value of top-level key `key` in the object at s; NULL if absent. */
static const char *find_key(const char *s, const char *key) {
    size_t klen = strlen(key);
    while (*s && *s != '{') s++;
    if (!*s) return NULL;
    s++;
    for (;;) {
        while (*s == ' ' || *s == '\t' || *s == ',') s++;
        if (*s != '"') return NULL;
        const char *k = s + 1;
        const char *after = skip_string(s);
        int match = (size_t)(after - 1 - k) == klen && strncmp(k, key, klen) == 0;
        s = after;
        while (*s == ' ' || *s == '\t' || *s == ':') s++;
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
        while (*s == ' ' || *s == ',') s++;
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
        if (!t || !copy_string(t, type, sizeof type)) continue;
        if (strcmp(type, "\"hello\"") == 0) {
            fputs("{\"type\":\"hello\",\"name\":\"c_first\",\"author\":\"bidref samples\","
                  "\"version\":\"1\",\"protocol\":\"bidref/1\"}\n", stdout);
        } else if (strcmp(type, "\"request\"") == 0 || strcmp(type, "\"ping\"") == 0) {
            const char *i = find_key(line, "id");
            if (!i) continue;
            const char *iend = skip_value(i);
            size_t ilen = (size_t)(iend - i);
            if (ilen == 0 || ilen >= sizeof id) continue;
            memcpy(id, i, ilen);
            id[ilen] = 0;
            if (type[1] == 'p') {
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
        } else if (strcmp(type, "\"error\"") == 0) {
            const char *i = find_key(line, "id");
            if (!i || !pending_legal) continue;
            size_t ilen = (size_t)(skip_value(i) - i);
            if (ilen != strlen(pending_id) || strncmp(i, pending_id, ilen) != 0) continue;
            const char *c = find_key(line, "code");
            char code[64];
            if (!c || !copy_string(c, code, sizeof code)) continue;
            if (strcmp(code, "\"illegal\"") != 0 && strcmp(code, "\"bad_action\"") != 0) continue;
            pending_index++;
            answer(pending_id);
        } else if (strcmp(type, "\"quit\"") == 0) {
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
