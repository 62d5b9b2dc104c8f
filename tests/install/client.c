/* A C client of the installed library (tests/cli_install.sh): only <dashsim/dashsim.h> and the flags of
 * `pkg-config dashsim`. Without arguments it runs the shift schedule on 8 SMs through a job handle; with a
 * config file ("-": standard input) it prints what dashsim_run_json returns for it, or the error and the
 * status's name on standard error (exit 2). It defines globals named as the library's internals are, which
 * a client may: the library, shared or static, exports only its dashsim_ names. */
#include <dashsim/dashsim.h>
#include <stdio.h>
#include <stdlib.h>

int plan_free = 1;                        /* sim/core/plan.c's plan_free(), inside the library */
int policy_count(void) { return plan_free; } /* policies/attention/registry.c's */

/* The whole of f as a string (NULL if it cannot be read). */
static char *read_all(FILE *f)
{
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    size_t n;
    while (text && (n = fread(text + len, 1, cap - len - 1, f)) > 0)
        if ((len += n) == cap - 1)
            text = realloc(text, cap *= 2);
    if (text)
        text[len] = 0;
    return text;
}

static int run_config(const char *path)
{
    FILE *f = path[0] == '-' && !path[1] ? stdin : fopen(path, "rb");
    char *request = f ? read_all(f) : NULL, *result = NULL, *error = NULL;
    if (f && f != stdin)
        fclose(f);
    DashsimStatus status = dashsim_run_json(request, &result, &error);
    if (status == DASHSIM_OK)
        fputs(result, stdout);
    else
        fprintf(stderr, "%s (%s)\n", error, dashsim_strerror(status));
    dashsim_free(result);
    dashsim_free(error);
    free(request);
    return status == DASHSIM_OK ? 0 : 2;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        return run_config(argv[1]);
    if (policy_count() != 1 || dashsim_policy_count() < 2) /* each its own */
        return fprintf(stderr, "policy_count() is the library's\n"), 2;
    DashsimJob *job = dashsim_job_new();
    DashsimError err;
    DashsimResult r;
    int is_ok = dashsim_job_set_policy(job, "shift", &err) == DASHSIM_OK &&
                dashsim_job_set_shape(job, 8, 2, 8, 8, &err) == DASHSIM_OK &&
                dashsim_job_run(job, &r, &err) == DASHSIM_OK;
    if (is_ok)
        printf("%s shift makespan_ns %lld\n", dashsim_version(), (long long)r.makespan_ns);
    else
        fprintf(stderr, "%s\n", err.message);
    dashsim_job_free(job);
    return is_ok ? 0 : 2;
}
