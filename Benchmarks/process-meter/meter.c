/*
 * The process meter for scripts/bench (figure 6): runs one command and reports what the kernel accounted for it.
 *
 *   meter COMMAND [ARGUMENT...]
 *
 * The command's standard output is this one's; its standard input and error are /dev/null. When it has exited,
 * one line goes to standard error:  wall_ns cpu_ns peak_kib status
 * (wall time from just before the fork to the reaping, user + system CPU time, peak resident set, exit status).
 *
 * Why a helper: the kernel's peak resident set (ru_maxrss) of a process includes that of the process it was
 * forked from up to its exec, so a child started by the benchmark itself — tens of MiB — would report at least
 * the benchmark's size. Forked from this small helper, it reports its own.
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: meter COMMAND [ARGUMENT...]\n");
        return 64;
    }
    long long start = now_ns();
    pid_t child = fork();
    if (child < 0) {
        perror("fork");
        return 1;
    }
    if (child == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 2);
            if (null > 2) close(null);
        }
        execvp(argv[1], argv + 1);
        _exit(127);
    }
    int status = 0;
    struct rusage usage;
    while (wait4(child, &status, 0, &usage) < 0) {
        perror("wait4");
        return 1;
    }
    long long wall = now_ns() - start;
    long long cpu = (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000000000LL
        + (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) * 1000LL;
    int exited = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    fprintf(stderr, "%lld %lld %ld %d\n", wall, cpu, usage.ru_maxrss, exited);
    return 0;
}
