/* What the file-reading fuzz targets share: the input written to a private temporary file, since the
 * readers under test take a path (and check it is a regular file). */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Where the inputs are written: $TMPDIR, else /tmp (a tmpfs there keeps a target on the CPU, not the disk). */
static const char *fuzz_tmp_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && dir[0] ? dir : "/tmp";
}

/* The path of a file holding data[0..size), its name ending in suffix ("" or ".json.gz": the readers go
 * by it); the same path on every call of one process with that suffix. path: room for the name, kept by
 * the caller across calls. */
static const char *fuzz_file_as(char *path, size_t len, const char *suffix, const uint8_t *data, size_t size)
{
    if (!path[0])
        snprintf(path, len, "%s/dashsim-fuzz-%d%s", fuzz_tmp_dir(), (int)getpid(), suffix);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

static const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[4096];
    return fuzz_file_as(path, sizeof path, "", data, size);
}

#endif
