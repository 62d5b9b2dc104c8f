/* The one status enum of dashsim and the error record that carries a sentence with it.
 * An error is reported once, where it is found, as one sentence naming the input location; callers
 * propagate it unchanged. Exit codes: sim_status_exit_code maps a status to 0, 1 or 2. */
#ifndef SIM_STATUS_H
#define SIM_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    SIM_OK,
    SIM_ERR_USAGE,     /* bad flag or value on the command line */
    SIM_ERR_INPUT,     /* bad input file (config, trace, plan) */
    SIM_ERR_SCHEDULE,  /* inconsistent schedule: deadlock, cycle, policy not defined for the workload */
    SIM_ERR_LIMIT,     /* the request exceeds a stated size or memory cap */
    SIM_ERR_IO,        /* a file could not be read or written */
    SIM_ERR_CHECK,     /* a check failed (validate beyond tolerance) */
} SimStatus;

typedef struct {
    SimStatus status;
    char msg[512];     /* one sentence, no trailing newline */
} SimError;

const char *sim_strerror(SimStatus status);
/* Records the first error only: later calls keep the original sentence. Returns status. */
SimStatus sim_error_set(SimError *err, SimStatus status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int sim_status_exit_code(SimStatus status);

/* A time budget and a cancel hook for work whose time the input drives (sweeps, search, fits): the loop
 * calls sim_budget_check between steps. A NULL budget never stops anything. */
typedef struct {
    double max_seconds;               /* wall-clock bound from sim_budget_start; 0: none */
    bool (*is_cancelled)(void *ctx);  /* optional: returns true to stop the work; called from the worker */
    void *ctx;                        /* passed to is_cancelled */
    int64_t start_ns;                 /* monotonic clock at sim_budget_start */
} SimBudget;

/* Starts b's clock now. */
void sim_budget_start(SimBudget *b);
/* SIM_ERR_LIMIT with a sentence naming what (e.g. "the sweep") when b's time is spent or the host
 * cancelled; SIM_OK otherwise and for b == NULL. O(1). */
SimStatus sim_budget_check(const SimBudget *b, const char *what, SimError *err);

#ifdef __cplusplus
}
#endif

#endif
