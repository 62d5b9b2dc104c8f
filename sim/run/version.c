/* The library's version: the top of the library, where the public header's layers all meet. */
#include "dashsim.h"

const char *dashsim_version(void)
{
    return DASHSIM_VERSION;
}
