/* Running gnuplot: synchronous, stdout discarded, stderr kept for the error sentence. */
#include "gnuplot.h"

#include <glib.h>
#include <string.h>

#include "output.h"

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

static SimStatus run_plot(const SimOutput *dat, const SimOutput *gp, const SimOutput *png, const char *png_path,
                          SimError *err)
{
    gchar *dat_abs = g_canonicalize_filename(dat->tmp_path, NULL), *png_abs = g_canonicalize_filename(png->tmp_path, NULL);
    gchar *gp_abs = g_canonicalize_filename(gp->tmp_path, NULL);
    gchar *dat_q = sim_gnuplot_quote(dat_abs), *png_q = sim_gnuplot_quote(png_abs);
    gchar *set = g_strdup_printf("outfile='%s'; datafile='%s'", png_q, dat_q);
    sim_gnuplot_run(NULL, NULL, set, gp_abs, png_path, err);
    g_free(dat_abs), g_free(png_abs), g_free(gp_abs), g_free(dat_q), g_free(png_q), g_free(set);
    return err->status;
}

SimStatus sim_gnuplot_png(const char *png_path, SimPlotWriter write, void *ctx, SimError *err)
{
    if (!g_str_has_suffix(png_path, ".png"))
        return sim_error_set(err, SIM_ERR_USAGE, "--plot draws a PNG: the file name must end in .png, got '%s'",
                             png_path);
    gchar *base = g_strndup(png_path, strlen(png_path) - 4);
    gchar *gp_path = g_strconcat(base, ".gp", NULL), *dat_path = g_strconcat(base, ".dat", NULL);
    gchar *dat_name = g_path_get_basename(dat_path);
    SimOutput dat = { 0 }, gp = { 0 }, png = { 0 };
    int mark = sim_output_batch_begin(); /* the three files as a set */
    if (sim_output_open(&dat, dat_path, err) == SIM_OK && sim_output_open(&gp, gp_path, err) == SIM_OK &&
        sim_output_open(&png, png_path, err) == SIM_OK) {
        gchar *png_name = g_path_get_basename(png_path);
        write(dat.f, gp.f, dat_name, png_name, ctx);
        g_free(png_name);
        if (fflush(dat.f) || fflush(gp.f) || ferror(dat.f) || ferror(gp.f))
            sim_error_set(err, SIM_ERR_IO, "cannot write the data of %s", png_path);
        else if (run_plot(&dat, &gp, &png, png_path, err) == SIM_OK)
            (void)(sim_output_commit(&dat, err) || sim_output_commit(&gp, err) || sim_output_commit(&png, err));
    }
    sim_output_abort(&dat), sim_output_abort(&gp), sim_output_abort(&png);
    sim_output_batch_end(mark, err->status, err);
    g_free(base), g_free(gp_path), g_free(dat_path), g_free(dat_name);
    return err->status;
}
