/* dashsim's version, in one place: include/dashsim.h exports it, and every output that has room for
 * metadata (traces, CSV sidecars, JSON reports, Gantt scripts, DOT graphs) records it, so a file says
 * which dashsim made it. The Makefile's VERSION must equal DASHSIM_VERSION (tests/cli_ux.sh checks). */
#ifndef SIM_VERSION_H
#define SIM_VERSION_H

#define DASHSIM_VERSION_MAJOR 0
#define DASHSIM_VERSION_MINOR 2
#define DASHSIM_VERSION_PATCH 0
#define DASHSIM_VERSION "0.2.0"

#endif
