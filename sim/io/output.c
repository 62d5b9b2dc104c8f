/* Atomic output files: write to "<path>.tmp.<pid>", fsync-free rename on success, unlink on failure. */
#include "output.h"

#include <errno.h>
#include <stdbool.h>
#include <glib.h>
#include <string.h>
#include <unistd.h>

SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err)
{
    *out = (SimOutput){ .path = g_strdup(path), .tmp_path = g_strdup_printf("%s.tmp.%d", path, (int)getpid()) };
    out->f = fopen(out->tmp_path, "w");
    if (!out->f) {
        int e = errno;
        sim_output_abort(out);
        return sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", path, strerror(e));
    }
    return SIM_OK;
}

SimStatus sim_output_commit(SimOutput *out, SimError *err)
{
    bool ok = !ferror(out->f);
    ok = fclose(out->f) == 0 && ok;
    out->f = NULL;
    if (ok && rename(out->tmp_path, out->path) == 0) {
        g_free(out->path), g_free(out->tmp_path);
        *out = (SimOutput){ 0 };
        return SIM_OK;
    }
    sim_error_set(err, SIM_ERR_IO, "cannot write %s: %s", out->path, strerror(errno ? errno : EIO));
    sim_output_abort(out);
    return err->status;
}

void sim_output_abort(SimOutput *out)
{
    if (out->f)
        fclose(out->f);
    if (out->tmp_path)
        unlink(out->tmp_path);
    g_free(out->path), g_free(out->tmp_path);
    *out = (SimOutput){ 0 };
}
