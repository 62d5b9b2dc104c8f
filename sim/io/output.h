/* Output files are written to a temporary file beside the target and renamed into place, so a failed
 * or interrupted run never leaves a partial file under the requested name. */
#ifndef SIM_OUTPUT_H
#define SIM_OUTPUT_H

#include <stdio.h>

#include "status.h"

typedef struct {
    FILE *f;          /* write here */
    char *path;       /* final name */
    char *tmp_path;   /* where it is written until committed */
} SimOutput;

/* Opens path's temporary file. SIM_ERR_IO with a sentence naming path if it cannot be created. */
SimStatus sim_output_open(SimOutput *out, const char *path, SimError *err);
/* Closes and renames into place; on a write error removes the temporary file and reports it. */
SimStatus sim_output_commit(SimOutput *out, SimError *err);
/* Closes and removes the temporary file (after an error elsewhere). Safe on a never-opened output. */
void sim_output_abort(SimOutput *out);

#endif
