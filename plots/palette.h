/* One colour, marker and dash type per variant, the same in every chart of a
 * run: computed once when the results are read. */
#ifndef PLOTS_PALETTE_H
#define PLOTS_PALETTE_H

#include <stddef.h>

#include "plots/results.h"

/* Colours of the categorical palette, in the order they are handed out. */
#define PALETTE_COLOURS 9
extern const unsigned palette_colours[PALETTE_COLOURS];

/* Give each variant its slot: within its kind (each kind is drawn on charts
 * of its own), in the run's order, the k-th other than the library gets
 * colour k mod 9, marker k mod 7 and dash type 1 + k / 9, so that variants
 * of one chart differ in colour up to nine and in (colour, marker) up to 63;
 * the library rows (family cub) are black, drawn bold. */
void palette_assign(var_info *vars, size_t n);

#endif
