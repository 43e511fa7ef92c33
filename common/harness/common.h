/* common.h - what every chapter needs, in one include.
 *
 *   gpu.h       checked CUDA/cuBLAS calls, GPU detection (exit 77), device facts
 *   rng.h       the seeded, platform-independent random generator
 *   compare.h   the referee's verdict: relative L2 error, NaN/unwritten elements
 *   timing.h    CUDA-event timing with warm-up, L2 flush, median of repetitions
 *   csv.h       result rows for plots/data/
 *   cli.h       the command line shared by all chapter programs
 *   report.h    the table each chapter prints
 *
 * The problems themselves live beside it: triangle.h (chapters 1-5, 8) and
 * msa.h (chapters 6-7).
 */
#ifndef WORKBOOK_COMMON_H
#define WORKBOOK_COMMON_H

#include "harness/cli.h"
#include "harness/compare.h"
#include "harness/csv.h"
#include "device/gpu.h"
#include "harness/report.h"
#include "harness/rng.h"
#include "harness/sizes.h"
#include "harness/stats.h"
#include "harness/timing.h"

#endif
