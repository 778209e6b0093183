/* A timing engine for benchmarks/clock_battery.py, built by it (protocol bidref/1, C11 + POSIX).
 *
 *   engine OFFSET_US LOG [MODE K]      (LOG "-": none)
 *
 * It plays the first legal action of every request, but answers at
 * (its receipt of the request) + deadline_ms + OFFSET_US microseconds, by its
 * own CLOCK_MONOTONIC: OFFSET_US = -5000 answers 5 ms before the deadline it
 * was given, +2000 answers 2 ms after it. For every reply it appends to LOG
 *     R <id> <received_ns> <write_started_ns> <write_done_ns>
 * and for a match_ended event  E <received_ns>  (raw CLOCK_MONOTONIC, the
 * clock of the transcript header's "monotonic_origin_ns").
 *
 * MODE (at the K-th request only):
 *   stall  SIGSTOP its parent (the referee), write the reply, sleep 300 ms,
 *          SIGCONT the parent: a reply in time that a stopped referee cannot see.
 *   flood  send 12 rules requests instead of a reply, then never read again.
 *   hog    (K is a count here) start K busy child processes with the hello, which
 *          spin until the engine ends: an engine that overloads itself.
 *
 * It reads only what bidref's referee writes (compact JSON, keys in its order),
 * so it finds fields with strstr; it is a measuring tool, not a sample of a
 * robust engine (see sample_engines/c_first for that).
 */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void sleep_until(long long target) {
    /* sleep to 300 us before, then spin: a sleeping process wakes late */
    long long early = target - 300000;
    if (early > now_ns()) {
        struct timespec ts = {(time_t)(early / 1000000000LL), (long)(early % 1000000000LL)};
        clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
    }
    while (now_ns() < target) {
    }
}

static void write_all(const char *s, size_t n) {
    while (n > 0) {
        ssize_t w = write(1, s, n);
        if (w <= 0) exit(1);
        s += w;
        n -= (size_t)w;
    }
}

static FILE *logf_;
static long long offset_ns;
static const char *mode = "";
static long k_at = 0, requests = 0;

static void on_line(char *line, long long received) {
    if (strncmp(line, "{\"type\":\"hello\"", 15) == 0) {
        const char *h = "{\"type\":\"hello\",\"name\":\"c_clock\",\"author\":\"bidref\","
                        "\"version\":\"1\",\"protocol\":\"bidref/1\"}\n";
        write_all(h, strlen(h));
        if (strcmp(mode, "hog") == 0) {
            for (long i = 0; i < k_at && i < 64; i++) {
                if (fork() == 0) {
                    prctl(PR_SET_PDEATHSIG, SIGKILL);
                    for (;;) {
                    }
                }
            }
        }
    } else if (strncmp(line, "{\"type\":\"quit\"", 14) == 0) {
        if (logf_) fflush(logf_);
        exit(0);
    } else if (strncmp(line, "{\"type\":\"event\"", 15) == 0) {
        if (strstr(line, "\"kind\":\"match_ended\"")) {
            if (logf_) fprintf(logf_, "E %lld\n", received);
            if (logf_) fflush(logf_);
        }
    } else if (strncmp(line, "{\"type\":\"request\"", 17) == 0) {
        requests++;
        long id = atol(strstr(line, "\"id\":") + 5);
        char *d = strstr(line, "\"deadline_ms\":");
        long long deadline_ms = d ? atoll(d + 14) : 0;
        char *legal = strstr(line, "\"legal\":[\"");
        if (!legal) return;
        legal += 10;
        char *end = strchr(legal, '"');
        if (!end) return;
        *end = '\0';
        if (requests == k_at && strcmp(mode, "flood") == 0) {
            for (int i = 0; i < 12; i++) {
                char r[64];
                int n = snprintf(r, sizeof r, "{\"type\":\"rules\",\"id\":%d}\n", i);
                write_all(r, (size_t)n);
            }
            for (;;) pause(); /* never reads again */
        }
        char reply[512];
        int n = snprintf(reply, sizeof reply, "{\"type\":\"action\",\"id\":%ld,\"action\":\"%s\"}\n",
                         id, legal);
        sleep_until(received + deadline_ms * 1000000LL + offset_ns);
        int stall = requests == k_at && strcmp(mode, "stall") == 0;
        if (stall) kill(getppid(), SIGSTOP);
        long long started = now_ns();
        write_all(reply, (size_t)n);
        long long done = now_ns();
        if (stall) {
            struct timespec ts = {0, 300000000L};
            nanosleep(&ts, NULL);
            kill(getppid(), SIGCONT);
        }
        if (logf_) fprintf(logf_, "R %ld %lld %lld %lld\n", id, received, started, done);
        if (logf_) fflush(logf_);
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: engine OFFSET_US LOG [stall|flood K | hog N]\n");
        return 2;
    }
    offset_ns = atoll(argv[1]) * 1000LL;
    logf_ = strcmp(argv[2], "-") == 0 ? NULL : fopen(argv[2], "a"); /* "-": no log */
    if (!logf_ && strcmp(argv[2], "-") != 0) return 2;
    if (argc >= 5) {
        mode = argv[3];
        k_at = atol(argv[4]);
    }
    static char buf[1 << 20];
    size_t used = 0;
    for (;;) {
        ssize_t r = read(0, buf + used, sizeof buf - used - 1);
        long long received = now_ns();
        if (r <= 0) break;
        used += (size_t)r;
        buf[used] = '\0';
        char *start = buf;
        char *nl;
        while ((nl = strchr(start, '\n')) != NULL) {
            *nl = '\0';
            on_line(start, received);
            start = nl + 1;
        }
        used = (size_t)(buf + used - start);
        memmove(buf, start, used);
        if (used >= sizeof buf - 1) used = 0; /* a line too long for us: drop it */
    }
    if (logf_) fflush(logf_);
    return 0;
}
