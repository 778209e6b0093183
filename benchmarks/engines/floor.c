/* The physical floor of a referee round trip (benchmarks/referee_overhead.py).
 *
 *   floor N BYTES
 *
 * Forks a C echo process on two pipes, then N times writes a BYTES-long line to
 * it and blocks on read() until the whole line is back, timing each round trip
 * with CLOCK_MONOTONIC. Prints one round trip per line, in ns. Nothing a referee
 * does can be faster than this: one write, one sleeping read, on the same kind
 * of pipes, between two processes.
 */
#define _POSIX_C_SOURCE 200809L
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

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000;
    long size = argc > 2 ? atol(argv[2]) : 600;
    int to_echo[2], from_echo[2];
    if (pipe(to_echo) || pipe(from_echo)) return 1;
    pid_t pid = fork();
    if (pid == 0) { /* the echo process: a line in, the same line out */
        close(to_echo[1]);
        close(from_echo[0]);
        static char buf[1 << 16];
        ssize_t r;
        while ((r = read(to_echo[0], buf, sizeof buf)) > 0) {
            ssize_t off = 0;
            while (off < r) {
                ssize_t w = write(from_echo[1], buf + off, (size_t)(r - off));
                if (w <= 0) _exit(1);
                off += w;
            }
        }
        _exit(0);
    }
    close(to_echo[0]);
    close(from_echo[1]);
    char *line = malloc((size_t)size);
    char *back = malloc((size_t)size);
    memset(line, 'x', (size_t)size);
    line[size - 1] = '\n';
    for (long i = 0; i < n; i++) {
        long long t0 = now_ns();
        if (write(to_echo[1], line, (size_t)size) != size) return 1;
        long got = 0;
        while (got < size) {
            ssize_t r = read(from_echo[0], back + got, (size_t)(size - got));
            if (r <= 0) return 1;
            got += r;
        }
        printf("%lld\n", now_ns() - t0);
    }
    close(to_echo[1]);
    waitpid(pid, NULL, 0);
    return 0;
}
