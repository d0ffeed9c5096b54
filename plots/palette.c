/* palette.h: Paul Tol's "muted" scheme (colour-blind safe, nine colours
 * that stay apart on white), with markers and dashes for more variants. */
#include "plots/palette.h"

#include <string.h>

/* indigo, rose, green, cyan, sand, purple, teal, olive, wine: neighbours
 * in this order differ in hue and lightness */
const unsigned palette_colours[PALETTE_COLOURS] = {0x332288, 0xcc6677, 0x117733, 0x88ccee, 0xddcc77,
                                                   0xaa4499, 0x44aa99, 0x999933, 0x882255};

/* filled circle, square, triangle up, diamond, triangle down, pentagon,
 * open circle: seven, coprime to the nine colours */
static const int markers[] = {7, 5, 9, 13, 11, 15, 6};
#define NMARKERS (sizeof markers / sizeof markers[0])

void palette_assign(var_info *vars, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        var_info *v = &vars[i];
        size_t k = 0; /* variants of the same kind and library-ness before it */
        for (size_t j = 0; j < i; j++)
            k += strcmp(vars[j].kind, v->kind) == 0 && vars[j].is_cub == v->is_cub;
        v->color = v->is_cub ? 0x000000 : palette_colours[k % PALETTE_COLOURS];
        v->point_type = markers[k % NMARKERS];
        v->dash_type = v->is_cub ? 1 : 1 + (int)(k / PALETTE_COLOURS);
    }
}
