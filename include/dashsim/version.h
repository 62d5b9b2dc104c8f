/* dashsim's version, in one place, installed as <dashsim/version.h>: every output that has room for
 * metadata (traces, CSV sidecars, JSON reports, Gantt scripts, DOT graphs) records DASHSIM_VERSION, so a
 * file says which dashsim made it. The Makefile's VERSION and SOVERSION must equal DASHSIM_VERSION and
 * DASHSIM_SOVERSION (tests/cli_report_text.sh, tests/cli_install.sh check). The ABI rule (docs/api.md): the
 * shared library is libdashsim.so.DASHSIM_SOVERSION, and any change that can break a program linked
 * against the previous one (a function removed or changed, a public struct or enum changed) bumps it. */
#ifndef DASHSIM_VERSION_H
#define DASHSIM_VERSION_H

#ifdef __cplusplus
extern "C" {
#endif

#define DASHSIM_VERSION_MAJOR 0
#define DASHSIM_VERSION_MINOR 2
#define DASHSIM_VERSION_PATCH 0
#define DASHSIM_VERSION "0.2.0"
/* One number that orders versions: MAJOR x 10000 + MINOR x 100 + PATCH (0.2.0: 200). */
#define DASHSIM_VERSION_NUMBER (DASHSIM_VERSION_MAJOR * 10000 + DASHSIM_VERSION_MINOR * 100 + DASHSIM_VERSION_PATCH)
/* The ABI's number: the soname is libdashsim.so.1. */
#define DASHSIM_SOVERSION 1

#ifdef __cplusplus
}
#endif

#endif
