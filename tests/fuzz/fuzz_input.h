/* What the file-reading fuzz targets share: the input written to a private temporary file, since the
 * readers under test take a path (and check it is a regular file). */
#ifndef FUZZ_INPUT_H
#define FUZZ_INPUT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The path of a file holding data[0..size); the same path on every call of one process. */
static const char *fuzz_input_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/dashsim-fuzz-%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        abort();
    return path;
}

#endif
