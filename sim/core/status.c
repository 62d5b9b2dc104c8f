/* Status names and the first-error-wins error record. */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>

const char *sim_strerror(SimStatus status)
{
    switch (status) {
    case SIM_OK: return "ok";
    case SIM_ERR_USAGE: return "bad usage";
    case SIM_ERR_INPUT: return "bad input";
    case SIM_ERR_SCHEDULE: return "inconsistent schedule";
    case SIM_ERR_LIMIT: return "size limit exceeded";
    case SIM_ERR_IO: return "i/o error";
    case SIM_ERR_CHECK: return "check failed";
    }
    return "unknown status";
}

SimStatus sim_error_set(SimError *err, SimStatus status, const char *fmt, ...)
{
    if (err->status != SIM_OK)
        return err->status;
    err->status = status;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    va_end(ap);
    return status;
}

int sim_status_exit_code(SimStatus status)
{
    return status == SIM_OK ? 0 : status == SIM_ERR_CHECK ? 1 : 2;
}

static int64_t monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void sim_budget_start(SimBudget *b)
{
    b->start_ns = monotonic_ns();
}

SimStatus sim_budget_check(const SimBudget *b, const char *what, SimError *err)
{
    if (!b)
        return SIM_OK;
    if (b->is_cancelled && b->is_cancelled(b->ctx))
        return sim_error_set(err, SIM_ERR_LIMIT, "%s was cancelled by its caller", what);
    if (b->max_seconds > 0 && (double)(monotonic_ns() - b->start_ns) / 1e9 > b->max_seconds)
        return sim_error_set(err, SIM_ERR_LIMIT, "%s ran past its time budget of %g s (max_seconds)", what,
                             b->max_seconds);
    return SIM_OK;
}
