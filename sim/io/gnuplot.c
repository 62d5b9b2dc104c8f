/* Running gnuplot: synchronous, stdout discarded, stderr kept for the error sentence. */
#include "gnuplot.h"

#include <glib.h>
#include <string.h>

SimStatus sim_gnuplot_run(const char *program, const char *dir, const char *vars, const char *script,
                          const char *what, SimError *err)
{
    const char *gnuplot = program ? program : "gnuplot";
    char *argv[5] = { (char *)gnuplot }, *err_text = NULL;
    int argc = 1;
    if (vars)
        argv[argc++] = "-e", argv[argc++] = (char *)vars;
    argv[argc] = (char *)script;
    int wait_status = 0;
    GError *gerr = NULL;
    if (!g_spawn_sync(dir, argv, NULL, G_SPAWN_SEARCH_PATH | G_SPAWN_STDOUT_TO_DEV_NULL, NULL, NULL, NULL,
                      &err_text, &wait_status, &gerr))
        sim_error_set(err, SIM_ERR_IO, "cannot run %s to draw %s: %s", gnuplot, what, gerr->message);
    else if (!g_spawn_check_wait_status(wait_status, NULL)) {
        /* gnuplot echoes the offending line first and ends with '"file" line N: message' */
        char *text = g_strstrip(err_text), *last = strrchr(text, '\n');
        sim_error_set(err, SIM_ERR_IO, "%s failed to draw %s: %s", gnuplot, what,
                      last ? last + 1 : *text ? text : "no message");
    }
    if (gerr)
        g_error_free(gerr);
    g_free(err_text);
    return err->status;
}

char *sim_gnuplot_quote(const char *s)
{
    char **parts = g_strsplit(s, "'", -1);
    char *q = g_strjoinv("''", parts);
    g_strfreev(parts);
    return q;
}
