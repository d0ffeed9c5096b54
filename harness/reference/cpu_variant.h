/* The CPU baseline's description (harness/backend/cpu_baseline.h runs it): a
 * `variant` value so that plans, rows and plots treat it like the kernels,
 * apart from the registry (kernels/ holds kernels only). No launcher. */
#ifndef HARNESS_CPU_VARIANT_H
#define HARNESS_CPU_VARIANT_H

#include "kernels/variant.h"

extern const variant cpu_serial_variant;

#endif
