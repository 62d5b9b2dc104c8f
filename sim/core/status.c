/* Status names and the first-error-wins error record. */
#include "status.h"


#include <stdarg.h>
#include <stdio.h>

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
