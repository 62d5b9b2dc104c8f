/* `make bench`'s stopwatch: runs a command REPS times and prints the median CPU time (user + system, from
 * wait4's rusage: microsecond resolution, and unlike wall time it does not count the time the process waits
 * for a core on a loaded machine) in seconds and the median peak RSS in KB. The command's standard output
 * goes to /dev/null. Exit 2 on bad usage or when a run fails. CPU_TIME_REMOVE=PATH[:PATH...] removes those
 * files before each run (outside the time measured): an output the command writes then goes to a new
 * file each time, as it would for a user, rather than replacing the last run's (freeing its pages in the
 * kernel would count as the command's system time).
 * Usage: cpu_time REPS COMMAND [ARG...]. Plain C11 + POSIX; not part of libdashsim. */
#define _DEFAULT_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

/* Removes each path of the colon-separated list (missing ones are fine). */
static void remove_outputs(const char *list)
{
    char path[4096];
    for (const char *p = list; p && *p;) {
        size_t n = strcspn(p, ":");
        if (n < sizeof path) {
            memcpy(path, p, n);
            path[n] = '\0';
            unlink(path);
        }
        p += n + (p[n] == ':');
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    int reps = argc > 2 ? atoi(argv[1]) : 0;
    if (reps < 1 || reps > 100000) {
        fprintf(stderr, "usage: cpu_time REPS COMMAND [ARG...]\n");
        return 2;
    }
    double *cpu = malloc(sizeof(double) * (size_t)reps), *rss = malloc(sizeof(double) * (size_t)reps);
    for (int i = 0; cpu && rss && i < reps; i++) {
        remove_outputs(getenv("CPU_TIME_REMOVE"));
        pid_t pid = fork();
        if (pid == 0) {
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0)
                dup2(null, STDOUT_FILENO);
            execvp(argv[2], argv + 2);
            _exit(127);
        }
        int status = 0;
        struct rusage ru;
        if (pid < 0 || wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "cpu_time: %s failed\n", argv[2]);
            return 2;
        }
        cpu[i] = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
        rss[i] = (double)ru.ru_maxrss;
    }
    if (!cpu || !rss)
        return 2;
    qsort(cpu, (size_t)reps, sizeof *cpu, cmp_double);
    qsort(rss, (size_t)reps, sizeof *rss, cmp_double);
    printf("%.6f %.0f\n", cpu[(reps - 1) / 2], rss[(reps - 1) / 2]);
    free(cpu), free(rss);
    return 0;
}
