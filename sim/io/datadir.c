/* Finding data files (datadir.h). The places are tried in a fixed order, so the same installation finds
 * the same file from every directory. */
#include "datadir.h"

#include <glib.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "costmodel.h"

#ifndef DASHSIM_DATADIR
#define DASHSIM_DATADIR "/usr/local/share/dashsim/configs"
#endif

enum { N_PLACES = 5 };

/* The directories a bare name is looked for in, into dirs (owned strings; NULL where a place does not apply):
 * $DASHSIM_DATA, ./configs (a source tree's root: reports then name the file as the repository does), the
 * build tree and the relocated install around the running program, the install prefix built in. */
static void places(char *dirs[N_PLACES])
{
    const char *env = g_getenv("DASHSIM_DATA");
    dirs[0] = env && *env ? g_strdup(env) : NULL;
    dirs[1] = g_strdup("configs");
    dirs[2] = dirs[3] = NULL;
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *bin = g_path_get_dirname(exe), *top = g_path_get_dirname(bin);
        dirs[2] = g_build_filename(top, "configs", NULL);
        dirs[3] = g_build_filename(top, "share", "dashsim", "configs", NULL);
        g_free(bin), g_free(top);
    }
    dirs[4] = g_strdup(DASHSIM_DATADIR);
}

SimStatus sim_data_find(const char *name, char *out, size_t len, SimError *err)
{
    if (access(name, F_OK) == 0) {
        g_strlcpy(out, name, len);
        return SIM_OK;
    }
    if (g_str_has_prefix(name, "configs/")) /* the repository's own path, asked from elsewhere */
        name += strlen("configs/");
    char *dirs[N_PLACES];
    places(dirs);
    GString *looked = g_string_new("");
    bool is_found = false;
    if (strchr(name, '/') && (name[0] == '/' || name[0] == '.'))
        g_string_append(looked, name); /* an explicit path: only there */
    else
        for (int i = 0; i < N_PLACES && !is_found; i++) {
            if (!dirs[i])
                continue;
            char *p = g_build_filename(dirs[i], name, NULL);
            if (access(p, R_OK) == 0)
                is_found = g_strlcpy(out, p, len) < len;
            g_string_append_printf(looked, "%s%s", looked->len ? ", " : "", p);
            g_free(p);
        }
    if (!is_found)
        sim_error_set(err, SIM_ERR_IO, "cannot find %s: looked at %s (set DASHSIM_DATA to a configs directory, or "
                      "give a path)", name, looked->str);
    g_string_free(looked, TRUE);
    for (int i = 0; i < N_PLACES; i++)
        g_free(dirs[i]);
    return err->status;
}

/* name as is when it is a file or a path, else DIR/name.json under the data places. */
static SimStatus find_named(const char *dir, const char *name, char *out, size_t len, SimError *err)
{
    if (strchr(name, '/') || access(name, F_OK) == 0)
        return sim_data_find(name, out, len, err);
    char *rel = g_strdup_printf("%s/%s%s", dir, name, g_str_has_suffix(name, ".json") ? "" : ".json");
    sim_data_find(rel, out, len, err);
    g_free(rel);
    return err->status;
}

SimStatus sim_data_find_kernel(const char *name, char *out, size_t len, SimError *err)
{
    return find_named("kernels", name, out, len, err);
}

SimStatus sim_data_find_profile(const char *name, char *out, size_t len, SimError *err)
{
    return find_named("profiles", name, out, len, err);
}

SimStatus sim_data_find_profile_for(const char *name, const char *preset, char *out, size_t len, SimError *err)
{
    SimError quiet = { 0 };
    if (!name && preset && sim_data_find_profile(preset, out, len, &quiet) == SIM_OK)
        return SIM_OK;
    return sim_data_find_profile(name ? name : SIM_DATA_DEFAULT_PROFILE, out, len, err);
}

SimStatus sim_data_find_kernel_for(const char *name, const char *preset, char *out, size_t len, SimError *err)
{
    char gpu[16], own[128];
    sim_cost_preset_gpu(preset, gpu, sizeof gpu);
    SimError quiet = { 0 };
    if (*gpu && !strchr(name, '/') && !g_str_has_suffix(name, ".json") && strlen(name) < 100) {
        char *lower = g_ascii_strdown(gpu, -1);
        snprintf(own, sizeof own, "%s-%s", name, lower);
        g_free(lower);
        if (!g_str_has_suffix(name, own + strlen(name)) && sim_data_find_kernel(own, out, len, &quiet) == SIM_OK)
            return SIM_OK;
    }
    return sim_data_find_kernel(name, out, len, err);
}
