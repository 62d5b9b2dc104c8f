/* The plan file (docs/plan-format.md): what gpu/ executes and what traces refer to. */
#ifndef SIM_PLAN_IO_H
#define SIM_PLAN_IO_H

#include <stdio.h>

#include "attention.h"

/* Writes plan and its model costs to f in the documented text format. False if a write failed. */
bool sim_plan_write(const Plan *plan, const AttnCosts *costs, FILE *f);

#endif
