/* The exit statuses of `sweep` and of its subcommands (compare, merge, confirm). */
#ifndef HARNESS_CORE_EXIT_CODES_H
#define HARNESS_CORE_EXIT_CODES_H

#define SWEEP_EXIT_OK 0
#define SWEEP_EXIT_FAILED 1 /* a validation failure, a CUDA error, no CUDA device */
#define SWEEP_EXIT_USAGE 2
#define SWEEP_EXIT_TIME_LIMIT 75 /* stopped at --time-limit, every finished row kept: --resume continues */

#endif
