/* The "same bytes" floor of benchmarks/referee_overhead.py: bidref's own request
 * writes of a real match, replayed by a C program to two real engines.
 *
 *   replay WRITES ENGINE
 *
 * WRITES holds the writes of one match, each as a header line "<seat> <length>\n"
 * followed by exactly <length> bytes (the events and the request, newline-ended).
 * Starts ENGINE twice on pipes, says hello to each, then for every write sends
 * it to its seat and blocks on read() until that engine's next complete line (its
 * reply) is back. Prints, one per line, the time in ns between consecutive
 * replies: a decision with no referee work at all between a reply and the next
 * request, on the same bytes and the same engines as the real match.
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

struct engine {
    pid_t pid;
    int in;  /* its stdin */
    int out; /* its stdout */
    char buf[1 << 16];
    size_t used;
};

static void start(struct engine *e, const char *path) {
    int to[2], from[2];
    if (pipe(to) || pipe(from)) exit(2);
    e->pid = fork();
    if (e->pid < 0) exit(2);
    if (e->pid == 0) {
        dup2(to[0], 0);
        dup2(from[1], 1);
        close(to[0]);
        close(to[1]);
        close(from[0]);
        close(from[1]);
        execl(path, path, (char *)NULL);
        _exit(127);
    }
    close(to[0]);
    close(from[1]);
    e->in = to[1];
    e->out = from[0];
    e->used = 0;
}

static void send_all(int fd, const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0) exit(3);
        s += w;
        n -= (size_t)w;
    }
}

/* Block until one complete line from the engine is in, and drop it. */
static void await_line(struct engine *e) {
    for (;;) {
        char *nl = memchr(e->buf, '\n', e->used);
        if (nl) {
            size_t n = (size_t)(nl - e->buf) + 1;
            memmove(e->buf, e->buf + n, e->used - n);
            e->used -= n;
            return;
        }
        if (e->used == sizeof e->buf) e->used = 0; /* an over-long line: not a reply */
        ssize_t r = read(e->out, e->buf + e->used, sizeof e->buf - e->used);
        if (r <= 0) exit(4);
        e->used += (size_t)r;
    }
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: replay WRITES ENGINE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) return 2;
    size_t cap = 1024, n = 0;
    char **data = malloc(cap * sizeof *data);
    size_t *len = malloc(cap * sizeof *len);
    int *seat = malloc(cap * sizeof *seat);
    int s;
    size_t l;
    while (fscanf(f, "%d %zu", &s, &l) == 2 && fgetc(f) == '\n') {
        if (n == cap) {
            cap *= 2;
            data = realloc(data, cap * sizeof *data);
            len = realloc(len, cap * sizeof *len);
            seat = realloc(seat, cap * sizeof *seat);
        }
        data[n] = malloc(l);
        if (fread(data[n], 1, l, f) != l || (s != 0 && s != 1)) return 2;
        len[n] = l;
        seat[n] = s;
        n++;
    }
    fclose(f);
    static struct engine eng[2];
    const char *hello = "{\"type\":\"hello\",\"seat\":0}\n";
    for (int i = 0; i < 2; i++) {
        start(&eng[i], argv[2]);
        send_all(eng[i].in, hello, strlen(hello));
        await_line(&eng[i]);
    }
    long long prev = 0;
    for (size_t k = 0; k < n; k++) {
        send_all(eng[seat[k]].in, data[k], len[k]);
        await_line(&eng[seat[k]]);
        long long t = now_ns();
        if (prev) printf("%lld\n", t - prev);
        prev = t;
    }
    for (int i = 0; i < 2; i++) {
        const char *quit = "{\"type\":\"quit\"}\n";
        send_all(eng[i].in, quit, strlen(quit));
        close(eng[i].in);
        waitpid(eng[i].pid, NULL, 0);
    }
    return 0;
}
