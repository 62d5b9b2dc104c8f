/* Measured traces: their lifetime (reading them is sim/io/trace_in.c's job). */
#include "trace.h"

#include <glib.h>

void sim_trace_free(Trace *t)
{
    if (!t)
        return;
    g_free(t->path), g_free(t->policy), g_free(t->group), g_free(t->gpu_name), g_free(t->tasks);
    g_free(t);
}
