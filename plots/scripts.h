/* The gnuplot scripts of plots/, built into the library (embed.sh). */
#ifndef PLOTS_SCRIPTS_H
#define PLOTS_SCRIPTS_H

#include <stddef.h>

typedef struct plots_script {
    const char *name; /* "bandwidth.gp" */
    const char *text;
} plots_script;

extern const plots_script plots_scripts[];
extern const size_t plots_script_count;

#endif
