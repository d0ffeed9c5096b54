/* The empirical null of `sweep compare`: how far a configuration, or a whole
 * variant, moves between two runs of the same code, estimated from the two
 * runs themselves (Efron, "Large-scale simultaneous hypothesis testing: the
 * choice of a null hypothesis", JASA 2004).
 *
 * Between processes, cards and machines a configuration's time moves by more
 * than its own noise figure says: the noise is within one process, the move
 * is the machine's (clocks, L2 and memory latency, launch overlap). In a
 * large comparison most configurations did not change, so the spread of
 * their log-ratios around the centre is that scatter. Per phase (cold, hot)
 * and size band (one size, or neighbours merged to COMPARE_NULL_MIN_BAND
 * configurations), in log(NEW / BASE):
 *   - centre: the median per kind (reductions read, scans read and write:
 *     a machine moves them apart), the machine's shift;
 *   - variant shift d: the median of a variant's configurations less the
 *     centre. Variants move apart with no code change (kernels that lean on
 *     atomics or L2 latency move unlike bandwidth-bound ones): their spread
 *     across variants (1.4826 x MAD) is the variant-level null;
 *   - residual: a configuration less its variant's shift; the spread of the
 *     residuals (a variant's own when it has COMPARE_NULL_MIN_CELL in the
 *     band, else the band's), less the rows' own noise, is the
 *     configuration-level null.
 * A configuration is judged by its residual against its null, the rows'
 * noise added in quadrature; a variant by its shift over a range of sizes
 * (every size, or from / up to a size: where a change starts) against the
 * variant-level null, Bonferroni over the ranges tried. Both families are
 * then corrected by Benjamini-Hochberg (compare_stats.h). Where a variant is
 * judged changed, its configurations in that range are judged on their whole
 * move (residual and variant shift).
 *
 * What it cannot see: a change that moves every configuration alike (it is
 * the centre, indistinguishable from the machine; the centres are printed),
 * and a variant-level change smaller than the variants' own scatter (the
 * smallest resolvable change is printed). */
#ifndef HARNESS_COMPARE_NULL_H
#define HARNESS_COMPARE_NULL_H

#include <stddef.h>

#define COMPARE_NULL_MIN_BAND 30    /* configurations of a phase a band needs for its fit */
#define COMPARE_NULL_MIN_CELL 8     /* a variant's configurations in a band for its own scatter */
#define COMPARE_NULL_MIN_VARIANTS 8 /* variants a band needs for the variant-level null */
#define COMPARE_NULL_RESOLVE_Z 3.0  /* a change resolvable from the null: this many of its scales */

/* One size band of one phase. Logs are of NEW / BASE time. */
typedef struct compare_band {
    size_t n_lo, n_hi;   /* the sizes it covers */
    size_t configs;      /* configurations judged in it */
    size_t variants;     /* variants with a shift in it */
    double centre[2];    /* [0] reductions, [1] scans: median log ratio (NaN: none of that kind) */
    double scatter;      /* configuration-level null: pooled scale of the residuals, noise taken out */
    double variant_scatter; /* variant-level null: scale of the variants' shifts; NaN: too few variants */
    int launch_bound;    /* machine model at the band's median bytes: 1 launch, 0 bandwidth, -1 unknown */
} compare_band;

/* One phase's fit. */
typedef struct compare_null_phase {
    compare_band *bands;
    size_t nbands;
    size_t unfitted; /* configurations in bands too small to fit: judged by their own noise */
    char refused[320]; /* why nothing was fitted; "" when fitted */
} compare_null_phase;

/* A variant's verdict in one phase: its shift against the variant-level null. */
typedef struct compare_variant_phase {
    int judged;        /* 0: no band with a variant-level null */
    size_t band_lo, band_hi; /* indexes of the range of bands its verdict covers */
    size_t band_first, band_last; /* the bands it has a shift in: lo == first and hi == last is every size */
    double shift;      /* log ratio over the range: median of its bands' shifts */
    double scale;      /* the variant-level null over the range */
    double p;          /* two-sided, Bonferroni over the ranges tried */
    double gm, lo, hi; /* speed-up over the range, relative to the machine: geometric mean and 95 % interval */
    double all_gm, all_lo, all_hi; /* the same over every size */
    int verdict;       /* compare_verdict */
} compare_variant_phase;

#endif
