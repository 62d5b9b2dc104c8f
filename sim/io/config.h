/* JSON configs (docs/configs.md): loading with located errors, `--set key.path=value` overrides, and the
 * decoding of each sweep point into plain settings. Invariant: a SimConfig that sim_config_validate
 * accepted decodes every one of its points without error; all errors of a file are collected in a
 * SimDiag (one sentence each: `file:line:col: ...` for syntax, the JSON path for meaning). */
#ifndef SIM_CONFIG_H
#define SIM_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "costmodel.h"
#include "status.h"

#define SIM_CONFIG_SCHEMA_VERSION 1
#define SIM_CONFIG_MAX_POLICIES 16
#define SIM_CONFIG_MAX_BYTES (1L << 20)   /* config files above 1 MiB are refused before reading */
#define SIM_CONFIG_MAX_POINTS 100000      /* sweep points (product of the axes' lengths) */
#define SIM_CONFIG_MAX_ERRORS 100         /* validation stops listing errors after this many */

/* A list of error sentences; identical sentences are kept once. Opaque; sim_diag_free(NULL) is a no-op. */
typedef struct SimDiag SimDiag;
SimDiag *sim_diag_new(void);
void sim_diag_free(SimDiag *d);
/* Adds one sentence; the first status added is the list's status. */
void sim_diag_add(SimDiag *d, SimStatus status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
int sim_diag_count(const SimDiag *d);
SimStatus sim_diag_status(const SimDiag *d);
const char *sim_diag_at(const SimDiag *d, int i);
/* Prints "sim: <sentence>" per line, in the order found; returns the exit code (2 for input errors). */
int sim_diag_print(const SimDiag *d, FILE *f);

/* The settings of one point of a config: everything one job of a sweep needs. */
typedef struct {
    SimShape shape;                  /* shape.mask MASK_BLOCK: mask_spec or mask_file below */
    char mask_spec[128];             /* "" or a block mask's spec (window:16, ...; tile units) */
    char mask_file[512];             /* "" or a block mask file (docs/masks.md) */
    char mask_tokens[128];           /* "" or a block mask's spec in tokens (window:512, ...; sim --seqlen's
                                      * --mask): shape.mask is MASK_BLOCK, block_m = block_n = 0 (the costing
                                      * path's tiles) unless given */
    char mask_tokens_name[136];      /* "tokens:" and mask_tokens, as rows name the mask; "" without one */
    int64_t total_tokens;            /* 0 or batch = total_tokens / seqlen_q */
    int64_t hidden;                  /* 0 or heads = hidden / head_dim */
    SimHardware hw;
    char latency_matrix[512];        /* "" or a file of sm_count x sm_count latencies (ns) */
    char profile[512];               /* "" or a hardware profile (name or file): r, hand-off, load model */
    char kernel[512];                /* "" or a kernel profile (name or file): tiles, per-task costs, fixed
                                      * costs (docs/profile.md); "" and "": the cost model alone */
    const char *policies[SIM_CONFIG_MAX_POLICIES]; /* registry names (each point runs those for its mask);
                                      * static strings */
    int policy_count;
    const char *baseline;            /* policy that speedup is measured against (static string) */
    bool is_paper;                   /* /options/model paper: r and the hand-off from the cost model; else
                                      * (the default) the hardware profile's, the preset's own unless named */
    ReduceMode reduce;               /* default async, as the shape front end */
    int dq_buffers;                  /* 0 (not given): the kernel profile's, 1 without one */
    bool has_prologue;               /* charge the K/V load before each CTA's first task */
    int64_t c_ns, r_ns;              /* -1: derived by the cost model */
    int64_t max_memory_mb;           /* per job */
    int64_t max_seconds;             /* the whole run's wall-clock budget (/options/max_seconds); 0: none */
} SimConfigPoint;

typedef struct SimConfig SimConfig;

/* Parses text (len bytes, need not be NUL-terminated) named name in messages. NULL with a syntax error
 * in diag. The result is not validated yet. O(len). */
SimConfig *sim_config_parse(const char *name, const char *text, size_t len, SimDiag *diag);
/* Reads and parses path (SIM_ERR_IO if unreadable, SIM_ERR_LIMIT over SIM_CONFIG_MAX_BYTES). */
SimConfig *sim_config_load(const char *path, SimDiag *diag);
void sim_config_free(SimConfig *c);
/* Applies "key.path=value" (value: JSON if it parses as JSON, else a string). Setting workload.heads
 * drops workload.hidden and the reverse, likewise batch and total_tokens (they exclude each other). False
 * with a usage error in diag when the assignment is malformed or crosses a non-object. Validate afterwards. */
bool sim_config_set(SimConfig *c, const char *assignment, SimDiag *diag);
/* Checks keys (unknown, duplicate), types, ranges and every point's consistency; adds every error found.
 * Sweep axes count only when is_sweep. */
bool sim_config_validate(const SimConfig *c, bool is_sweep, SimDiag *diag);
/* Points: 1 without a sweep, else the product of the non-policy axes' lengths (first axis slowest). */
int64_t sim_config_point_count(const SimConfig *c, bool is_sweep);
/* Decodes point i (0-based) into out. False with sentences in diag when the point is invalid. */
bool sim_config_point(const SimConfig *c, bool is_sweep, int64_t i, SimConfigPoint *out, SimDiag *diag);
/* The file name it was parsed under. */
const char *sim_config_name(const SimConfig *c);

#endif
