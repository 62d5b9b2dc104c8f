/* libFuzzer harness for the JSON door of the library (`make fuzz-runjson`): dashsim_run_json on arbitrary
 * bytes as the request. Invariant checked: no crash, no leak, no abort; either rows or an error, never
 * both, and an error says why. Requests that would run long are what the resource harness and libFuzzer's
 * -timeout report. */
#include <stdlib.h>
#include <string.h>

#include "dashsim/dashsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *request = malloc(size + 1), *result = NULL, *error = NULL;
    memcpy(request, data, size);
    request[size] = 0;
    DashsimStatus status = dashsim_run_json(request, &result, &error);
    if ((status == DASHSIM_OK) != (result != NULL) || (status != DASHSIM_OK && (!error || !error[0])))
        abort();
    dashsim_free(result), dashsim_free(error), free(request);
    return 0;
}
