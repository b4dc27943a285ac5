/* The least a worker-process sandbox would add to each call: one request/answer round trip of a
 * small JSON message between two processes over a Unix socket pair. Printed in microseconds. */
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int main(void) {
    const char message[] = "{\"name\":\"hello\",\"params\":{\"name\":\"world\"},\"sessionToken\":null}";
    char buffer[4096];
    int fds[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return 1;
    const int rounds = 50000;
    pid_t child = fork();
    if (child == 0) {
        close(fds[0]);
        for (int i = 0; i < rounds; i++) {
            ssize_t n = read(fds[1], buffer, sizeof buffer);
            if (n <= 0 || write(fds[1], buffer, (size_t)n) != n) return 1;
        }
        return 0;
    }
    close(fds[1]);
    struct timespec start, end;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < rounds; i++) {
        if (write(fds[0], message, sizeof message) != (ssize_t)sizeof message) return 1;
        if (read(fds[0], buffer, sizeof buffer) <= 0) return 1;
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    waitpid(child, NULL, 0);
    double micros = ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / 1e3 / rounds;
    printf("%.1f\n", micros);
    return 0;
}
