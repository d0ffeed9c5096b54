/* Did-you-mean for a mistyped name on a command line (a variant, an
 * experiment, a flag of the sweep, its subcommands or the renderer): one
 * rule, cupti/metrics.h's metric_suggest (edit distance, or a substring). */
#ifndef RESULTS_IO_CLOSEST_H
#define RESULTS_IO_CLOSEST_H

#include <stddef.h>

/* Append "; closest: a, b" to msg when some candidates are near `name`,
 * nothing otherwise. `prefix` is written before each one shown and is not
 * compared ("--" for flags, whose shared dashes would bring every flag near). */
void append_closest(char *msg, size_t len, const char *prefix, const char *name, const char *const *candidates,
                    size_t n);

/* "unknown option '--forse' (see merge --help); closest: --force" into err:
 * `typed` (compared up to its '=' when it has one) against `flags` (each
 * written with its dashes); `help` names the command's --help. */
void unknown_flag_message(char *err, size_t len, const char *typed, const char *const *flags, size_t n,
                          const char *help);

#endif
