/* Bad input, table-driven: every case runs the sweep binary on the fake
 * device layer and expects exit 2 (bad usage) with one line on stderr that
 * names the offending value (file:line for experiment files), and nothing
 * created or changed: the case's directory is snapshotted (names, sizes,
 * contents) before and after. Cases cover the command line, the axes, the
 * variants, experiment files (malformed, truncated, binary, empty, duplicate
 * and unknown keys), typos (the closest names), plans that run nothing, a
 * value the one variant selected lacks, output directories, --resume,
 * --device and --devices; the subcommands (compare, merge, confirm: a
 * mistyped one, their flags, their paths) and the renderer (plots/render). */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "harness/config/axes.h"
#include "kernels/registry.h"
#include "tests/sweep_test_util.h"

#define FAKE "SWEEP_FAKE_DEVICE=1"
#define SMALL "--variants", "reduce0,reduce_cub", "--sizes", "1K", "--block-dims", "128"

typedef enum {
    PRE_NONE = 0,
    PRE_OUT_NOT_EMPTY,  /* @OUT holds a stray file */
    PRE_RUN,            /* @OUT holds a finished run of the default experiment */
    PRE_RUN_OTHER_SCHEMA, /* ... whose run.json says schema version 99 */
} precondition;

typedef struct bad_case {
    const char *args[16]; /* @OUT: <base>/out, @INI: <base>/exp.ini, @FILE: <base>/afile, @BASE */
    const char *ini;      /* text of @INI (NULL: no file) */
    size_t ini_len;       /* bytes of ini when it holds a NUL (0: strlen) */
    const char *env[3];   /* extra environment */
    precondition pre;
    const char *needle; /* expected in stderr (placeholders substituted) */
    const char *tool;   /* NULL: the sweep; "render": plots/render */
} bad_case;

#define RENDER "render"

static const bad_case cases[] = {
    /* ---- the command line */
    {{"--bogus"}, NULL, 0, {NULL}, PRE_NONE, "unknown option '--bogus' (see --help)"},
    {{"--frobnicate=3"}, NULL, 0, {NULL}, PRE_NONE, "unknown option '--frobnicate'"},
    {{"--sizes"}, NULL, 0, {NULL}, PRE_NONE, "--sizes needs a value"},
    {{"--quiet", "--out"}, NULL, 0, {NULL}, PRE_NONE, "--out needs a value"},
    {{"default"}, NULL, 0, {NULL}, PRE_NONE, "unexpected argument 'default'"},
    {{"--dry-run=yes"}, NULL, 0, {NULL}, PRE_NONE, "--dry-run takes no value"},
    {{"--resume", "--force"}, NULL, 0, {NULL}, PRE_NONE, "--resume and --force contradict each other"},
    {{"--out", ""}, NULL, 0, {NULL}, PRE_NONE, "--out: empty value"},
    /* ---- typos: the closest names */
    {{"--block-dim", "256"}, NULL, 0, {NULL}, PRE_NONE, "unknown option '--block-dim' (see --help); closest: --block-dims"},
    {{"--dryrun"}, NULL, 0, {NULL}, PRE_NONE, "unknown option '--dryrun' (see --help); closest: --dry-run"},
    {{"--variants", "reduce_cubb"}, NULL, 0, {NULL}, PRE_NONE,
     "--variants: 'reduce_cubb' matches no variant name or alias (see --list); closest: reduce_cub"},
    {{"--experiment", "defualt"}, NULL, 0, {NULL}, PRE_NONE,
     "--experiment: no experiment 'defualt' (experiments: big-n, cluster, coarsening, default, dtypes-ops, full, "
     "harris-ladder, scan-ladder, smoke, sum-16m, vs-cub); closest: default"},
    /* ---- plans that run nothing */
    {{"--variants", "scan_naive", "--sizes", "2^30"}, NULL, 0, {NULL}, PRE_NONE,
     "the plan runs nothing: all 5 configurations are skipped (scan_naive: n above this variant's max_n"},
    {{"--variants", "scan_naive", "--sizes", "2^30", "--dry-run"}, NULL, 0, {NULL}, PRE_NONE,
     "the plan runs nothing: all 5 configurations are skipped"},
    /* ---- a value the one variant selected does not have */
    {{"--variants", "reduce_cub", "--block-dims", "512"}, NULL, 0, {NULL}, PRE_NONE,
     "--block-dims: reduce_cub runs at block dim 256 only, not 512 (leave it out for this variant, or ask for 256)"},
    {{"--variants", "reduce0", "--coarse", "4,8"}, NULL, 0, {NULL}, PRE_NONE,
     "--coarse: reduce_interleaved_divergent runs at coarse factor 1 only, not 4,8"},
    {{"--variants", "scan_cub,reduce_cub", "--finish", "two_step"}, NULL, 0, {NULL}, PRE_NONE,
     "--finish: reduce_cub runs at finish none only, not two_step"},
    {{"--experiment", "@INI"}, "[experiment]\nvariants = reduce_cub, reduce0\n[axes:reduce_cub]\nblock_dims = 1024\n",
     0, {NULL}, PRE_NONE, "@INI:3: [axes:reduce_cub] block_dims: reduce_cub runs at block dim 256 only, not 1024"},
    /* ---- variants */
    {{"--variants", "reduce_nonesuch"}, NULL, 0, {NULL}, PRE_NONE,
     "--variants: 'reduce_nonesuch' matches no variant name or alias (see --list)"},
    {{"--variants", "scan_*,warp_*"}, NULL, 0, {NULL}, PRE_NONE, "--variants: 'warp_*' matches no variant name"},
    {{"--variants", "a b"}, NULL, 0, {NULL}, PRE_NONE, "--variants: 'a b': globs hold no spaces"},
    {{"--experiment", "@INI"}, "[experiment]\nfamilies = harris, nope\n", 0, {NULL}, PRE_NONE,
     "@INI:2: families: 'nope' matches no variant family"},
    /* ---- sizes */
    {{"--sizes", "0"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: '0': n must be at least 1"},
    {{"--sizes", "-5"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: '-5' is negative"},
    {{"--sizes", "lots"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: 'lots' is not a number"},
    {{"--sizes", "99999999999999999999999"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: '99999999999999999999999' is too large"},
    {{"--sizes", "2^41"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: '2^41': n must be at most 2^40"},
    {{"--sizes", "1K,,2K"}, NULL, 0, {NULL}, PRE_NONE, "--sizes: '1K,,2K': empty item in the list"},
    {{"--sizes", "2^20..2^10"}, NULL, 0, {NULL}, PRE_NONE, "the range runs backwards"},
    /* larger than the device's memory (2 GiB here: 2^29 f32 is 2 GiB of input alone) */
    {{"--variants", "reduce_cub", "--sizes", "1K,2^29", "--out", "@OUT"}, NULL, 0, {"SWEEP_FAKE_MEM_BYTES=2G"},
     PRE_NONE, "--sizes: n=2^29 does not fit in device memory: its smallest configuration (reduce_cub f32 sum"},
    {{"--experiment", "@INI", "--variants", "scan_cub", "--out", "@OUT"}, "[axes]\nsizes = 2^27\n", 0,
     {"SWEEP_FAKE_MEM_BYTES=1G"}, PRE_NONE, "no configuration of the plan fits in device memory"},
    /* ---- block dims */
    {{"--block-dims", "0"}, NULL, 0, {NULL}, PRE_NONE, "--block-dims: '0': a block needs at least one warp"},
    {{"--block-dims", "16"}, NULL, 0, {NULL}, PRE_NONE,
     "--block-dims: '16': not a multiple of 32, a whole number of warps (variants take 32..1024, powers of two)"},
    {{"--block-dims", "96"}, NULL, 0, {NULL}, PRE_NONE,
     "--block-dims: '96': not a power of two (variants take 32..1024, powers of two)"},
    {{"--block-dims", "64..2048"}, NULL, 0, {NULL}, PRE_NONE, "--block-dims: '2048': above 1024"},
    {{"--experiment", "@INI"}, "[axes]\nblock_dims = 64, 100\n", 0, {NULL}, PRE_NONE,
     "@INI:2: block_dims: '100': not a multiple of 32"},
    /* ---- [axes:GLOB] sections (per-variant axes) */
    {{"--experiment", "@INI"}, "[axes:reduce_nonesuch_*]\ncoarse = 2\n", 0, {NULL}, PRE_NONE,
     "@INI:1: [axes:reduce_nonesuch_*]: 'reduce_nonesuch_*' matches no variant name or alias (see --list)"},
    {{"--experiment", "@INI"}, "[axes:reduce_one_launch]\nbogus = 2\n", 0, {NULL}, PRE_NONE,
     "@INI:2: unknown key 'bogus' in [axes:reduce_one_launch] (known: block_dims, coarse, scan_modes, finishes); or a variant"},
    {{"--experiment", "@INI"}, "[axes:reduce_one_launch]\nsizes = 2^10\n", 0, {NULL}, PRE_NONE,
     "@INI:2: 'sizes' in [axes:reduce_one_launch]: sizes is global only, set it in [axes]"},
    {{"--experiment", "@INI"}, "[axes:scan_lookback_*]\ncoarse = 16, 48\n", 0, {NULL}, PRE_NONE,
     "@INI:2: [axes:scan_lookback_*] coarse: '48': not a power of two"},
    /* ---- coarse factors */
    {{"--coarse", "0"}, NULL, 0, {NULL}, PRE_NONE, "--coarse: '0': a thread takes at least one element"},
    {{"--coarse", "1000000"}, NULL, 0, {NULL}, PRE_NONE,
     "--coarse: '1000000': above 64, the largest coarse factor any variant takes"},
    {{"--coarse", "3"}, NULL, 0, {NULL}, PRE_NONE, "--coarse: '3': not a power of two (variants take 1..64"},
    /* ---- dtypes and ops: a variant named explicitly must do the pair asked for */
    {{"--variants", "reduce_atomic_global", "--dtype", "f32", "--op", "max"}, NULL, 0, {NULL}, PRE_NONE,
     "--variants: reduce_atomic_global does not do f32 max: max/min only for i32"},
    {{"--experiment", "@INI"}, "[experiment]\nvariants = sum_atomic\n[axes]\nops = min\n", 0, {NULL}, PRE_NONE,
     "@INI:2: variants: sum_atomic (reduce_atomic_global) does not do f32 min"},
    {{"--dtype", "f16"}, NULL, 0, {NULL}, PRE_NONE, "--dtype: 'f16': unknown dtype (known: f32, f64, i32, all)"},
    {{"--op", "prod"}, NULL, 0, {NULL}, PRE_NONE, "--op: 'prod': unknown op"},
    {{"--finish", "sideways"}, NULL, 0, {NULL}, PRE_NONE, "--finish: 'sideways'"},
    {{"--scan-mode", "both"}, NULL, 0, {NULL}, PRE_NONE, "--scan-mode: 'both'"},
    /* ---- experiment files */
    {{"--experiment", "@INI"}, "[axes]\nsizes 1K\n", 0, {NULL}, PRE_NONE, "@INI:2: syntax error"},
    {{"--experiment", "@INI"}, "[experiment]\nname = t\n[ax", 0, {NULL}, PRE_NONE, "@INI:3: syntax error"},
    {{"--experiment", "@INI"}, "[axes]\nsizes = 2^", 0, {NULL}, PRE_NONE,
     "@INI:2: sizes: '2^': expected an exponent after 2^"},
    {{"--experiment", "@INI"}, "[axes]\nsizes = 1K\n\0\1\2\3", 22, {NULL}, PRE_NONE,
     "@INI:3: binary data (byte 0x00 at column 1): an experiment file is text"},
    {{"--experiment", "@INI"}, "\x1f\x8b\x08\x00\x00\x00", 0, {NULL}, PRE_NONE, "@INI:1: binary data (byte 0x1f"},
    {{"--experiment", "@INI"}, "[experiment]\ndescription = caf\xe9\n", 0, {NULL}, PRE_NONE,
     "@INI:2: not UTF-8 text (byte 0xe9 at column 18)"},
    {{"--experiment", "@INI"}, "", 0, {NULL}, PRE_NONE, "@INI: empty experiment file: it sets no key"},
    {{"--experiment", "@INI"}, "; only a comment\n\n[axes]\n", 0, {NULL}, PRE_NONE, "@INI: empty experiment file"},
    {{"--experiment", "@INI"}, "[axes]\nsizes = 1K\nsizes = 2K\n", 0, {NULL}, PRE_NONE,
     "@INI:3: duplicate key 'sizes' in [axes] (first at line 2)"},
    {{"--experiment", "@INI"}, "[axes]\nsize = 1K\n", 0, {NULL}, PRE_NONE,
     "@INI:2: unknown key 'size' in [axes] (known: sizes,"},
    {{"--experiment", "@INI"}, "[axis]\nsizes = 1K\n", 0, {NULL}, PRE_NONE, "@INI:1: unknown section [axis]"},
    {{"--experiment", "@INI"}, "sizes = 1K\n", 0, {NULL}, PRE_NONE, "@INI:1: 'sizes' is outside a section"},
    {{"--experiment", "@INI"}, "[experiment]\nname = a/b\n", 0, {NULL}, PRE_NONE, "@INI:2: name: 'a/b'"},
    {{"--experiment", "@INI"}, "[timing]\nmin_samples = 20\nmax_samples = 10\n", 0, {NULL}, PRE_NONE,
     "@INI:3: max_samples (10) is below min_samples (20)"},
    {{"--experiment", "@BASE/nope.ini"}, NULL, 0, {NULL}, PRE_NONE, "--experiment: '@BASE/nope.ini': no such file"},
    {{"--experiment", "@BASE"}, NULL, 0, {NULL}, PRE_NONE, "@BASE: not an experiment file: a directory"},
    {{"--experiment", "nonesuch"}, NULL, 0, {NULL}, PRE_NONE, "--experiment: no experiment 'nonesuch'"},
    /* ---- the output directory */
    {{SMALL, "--out", "@FILE"}, NULL, 0, {NULL}, PRE_NONE, "--out: @FILE exists and is not a directory"},
    {{SMALL, "--out", "@FILE/sub"}, NULL, 0, {NULL}, PRE_NONE, "--out: cannot write @FILE/sub: @FILE is not a directory"},
    {{SMALL, "--out", "/sys/sweep-bad-input/out"}, NULL, 0, {NULL}, PRE_NONE,
     "--out: cannot write /sys/sweep-bad-input/out: cannot create anything in /sys: "},
    {{SMALL, "--out", "@OUT"}, NULL, 0, {NULL}, PRE_OUT_NOT_EMPTY,
     "output directory @OUT exists (--force replaces its results, --resume continues the run there)"},
    /* ---- --resume */
    {{SMALL, "--resume", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_OUT_NOT_EMPTY,
     "--resume: @OUT has no run.json and results.csv: not a sweep's output"},
    {{"--experiment", "smoke", "--resume", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_RUN,
     "--resume: @OUT holds experiment 'default', not 'smoke'"},
    {{SMALL, "--resume", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_RUN_OTHER_SCHEMA,
     "--resume: @OUT has schema version 99; this build writes"},
    {{SMALL, "--resume", "--out", "@FILE"}, NULL, 0, {NULL}, PRE_NONE, "--resume: @FILE is not a directory"},
    {{SMALL, "--resume", "--no-cupti", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_RUN, "--resume: "},
    /* ---- the device */
    {{SMALL, "--device", "3", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_NONE,
     "--device: 3 is out of range (the fake device layer has 1 device: 0..0)"},
    {{SMALL, "--devices", "0,1", "--out", "@OUT"}, NULL, 0, {NULL}, PRE_NONE,
     "--devices: 1 is out of range (this host has 1 device: 0..0)"},
    {{"--device", "-1"}, NULL, 0, {NULL}, PRE_NONE, "--device: '-1' is out of range (0..1023)"},
    {{"--device", "gpu0"}, NULL, 0, {NULL}, PRE_NONE, "--device: 'gpu0' is not a whole number"},
    /* ---- measurement settings */
    {{"--min-samples", "0"}, NULL, 0, {NULL}, PRE_NONE, "--min-samples: '0' is out of range"},
    {{"--min-samples", "100", "--max-samples", "10"}, NULL, 0, {NULL}, PRE_NONE,
     "--max-samples: min samples (100) above max samples (10)"},
    {{"--timeout", "5h"}, NULL, 0, {NULL}, PRE_NONE, "--timeout: '5h': unknown unit 'h'"},
    {{"--max-noise", "0"}, NULL, 0, {NULL}, PRE_NONE, "--max-noise: '0' must be above 0"},
    {{"--validate", "maybe"}, NULL, 0, {NULL}, PRE_NONE, "--validate: 'maybe'"},
    {{"--seed", "-1"}, NULL, 0, {NULL}, PRE_NONE, "--seed: '-1' is not a non-negative integer"},
    /* ---- the subcommands: a mistyped one, their flags (the closest names), paths */
    {{"comapre", "@BASE", "@BASE"}, NULL, 0, {NULL}, PRE_NONE,
     "unexpected argument 'comapre' (options start with --; see --help); closest: compare"},
    {{"compare", "@BASE", "@BASE", "--detial"}, NULL, 0, {NULL}, PRE_NONE,
     "unknown option '--detial' (see compare --help); closest: --detail"},
    {{"compare", "@BASE", "@BASE", "--threshold", "abc"}, NULL, 0, {NULL}, PRE_NONE,
     "--threshold: 'abc' is not a percentage"},
    {{"compare", "@BASE/nope", "@BASE"}, NULL, 0, {NULL}, PRE_NONE, "@BASE/nope: no such directory"},
    {{"merge", "@OUT", "@BASE", "--forse"}, NULL, 0, {NULL}, PRE_NONE,
     "unknown option '--forse' (see merge --help); closest: --force"},
    {{"merge", "@OUT", "@BASE/nope"}, NULL, 0, {NULL}, PRE_NONE, "@BASE/nope: no such directory (a missing shard?)"},
    {{"confirm", "@BASE", "--fake-devise"}, NULL, 0, {NULL}, PRE_NONE,
     "unknown option '--fake-devise' (see sweep confirm --help); closest: --fake-device"},
    {{"confirm", "@BASE", "--confirm-round", "3"}, NULL, 0, {NULL}, PRE_NONE, "closest: --confirm-rounds"},
    {{"confirm", "nope"}, NULL, 0, {NULL}, PRE_NONE, "nope: no such results directory"},
    {{"confirm", "@OUT", "--out", ""}, NULL, 0, {NULL}, PRE_RUN, "--out: empty value"},
    {{"confirm", "@OUT", "--out", "@FILE/sub"}, NULL, 0, {NULL}, PRE_RUN,
     "--out: cannot write @FILE/sub: @FILE is not a directory"},
    {{"confirm", "@OUT", "--confirm-rounds", "3"}, NULL, 0, {NULL}, PRE_RUN, "--confirm-rounds: '3' is out of range"},
    /* ---- the renderer */
    {{"--ot", "@OUT", "@BASE"}, NULL, 0, {NULL}, PRE_NONE,
     "render: unknown option '--ot' (see render --help); closest: --out", RENDER},
    {{NULL}, NULL, 0, {NULL}, PRE_NONE, "render: needs a results directory", RENDER},
    {{"--out", "@OUT", "nope"}, NULL, 0, {NULL}, PRE_NONE, "render: @BASE/nope: no such results directory", RENDER},
    {{"--n", "2^x", "--out", "@OUT", "@BASE"}, NULL, 0, {NULL}, PRE_NONE, "render: --n wants 2^K", RENDER},
    {{"--scripts", "@BASE/nope", "--out", "@OUT", "@BASE"}, NULL, 0, {NULL}, PRE_NONE,
     "render: --scripts: @BASE/nope: no such directory", RENDER},
    {{"--gnuplot", "@BASE/nope", "--out", "@OUT", "@BASE"}, NULL, 0, {NULL}, PRE_NONE,
     "render: --gnuplot: @BASE/nope: not an executable file", RENDER},
};

/* ---- placeholders and snapshots -------------------------------------------------------- */

typedef struct paths {
    char base[4096], out[4200], ini[4200], file[4200];
} paths;

/* s with @OUT, @INI, @FILE, @BASE replaced; static storage, 16 slots. */
static const char *subst(const paths *p, const char *s)
{
    static char buf[16][8192];
    static int next;
    char *out = buf[next++ % 16];
    size_t k = 0;
    while (*s && k < 8000) {
        const char *rep = NULL;
        size_t skip = 0;
        if (!strncmp(s, "@OUT", 4)) rep = p->out, skip = 4;
        else if (!strncmp(s, "@INI", 4)) rep = p->ini, skip = 4;
        else if (!strncmp(s, "@FILE", 5)) rep = p->file, skip = 5;
        else if (!strncmp(s, "@BASE", 5)) rep = p->base, skip = 5;
        if (rep) {
            k += (size_t)snprintf(out + k, sizeof buf[0] - k, "%s", rep);
            s += skip;
        } else {
            out[k++] = *s++;
        }
    }
    out[k] = '\0';
    return out;
}

static uint64_t fnv(const char *data, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < len; i++) h = (h ^ (unsigned char)data[i]) * 1099511628211ull;
    return h;
}

/* Every path under dir with its size and a hash of its contents, sorted. */
static void snapshot_into(const char *dir, char **text, size_t *len, size_t *cap)
{
    DIR *d = opendir(dir);
    if (!d) return;
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && n < 256)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) names[n++] = strdup(e->d_name);
    closedir(d);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(names[j], names[i]) < 0) {
                char *t = names[i];
                names[i] = names[j];
                names[j] = t;
            }
    for (size_t i = 0; i < n; i++) {
        char path[4400], line[4600];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        struct stat st;
        if (lstat(path, &st) != 0) continue;
        uint64_t h = 0;
        if (S_ISREG(st.st_mode)) {
            char *t = tu_read_file(path);
            h = t ? fnv(t, (size_t)st.st_size) : 0;
            free(t);
        }
        int w = snprintf(line, sizeof line, "%s %s %lld %016llx\n", S_ISDIR(st.st_mode) ? "d" : "f", path,
                         (long long)st.st_size, (unsigned long long)h);
        while (*len + (size_t)w + 1 > *cap) {
            *cap = *cap ? 2 * *cap : 4096;
            *text = realloc(*text, *cap);
        }
        memcpy(*text + *len, line, (size_t)w + 1);
        *len += (size_t)w;
        if (S_ISDIR(st.st_mode)) snapshot_into(path, text, len, cap);
        free(names[i]);
    }
}

static char *snapshot(const char *dir)
{
    char *text = NULL;
    size_t len = 0, cap = 0;
    snapshot_into(dir, &text, &len, &cap);
    return text ? text : calloc(1, 1);
}

static void prepare(const bad_case *c, const paths *p, const char *bwd_env)
{
    assert_int_equal(tu_write_file(p->file, "not a directory\n"), 0);
    if (c->ini) {
        FILE *f = fopen(p->ini, "wb");
        assert_non_null(f);
        size_t n = c->ini_len ? c->ini_len : strlen(c->ini);
        assert_int_equal(fwrite(c->ini, 1, n, f), n);
        fclose(f);
    }
    if (c->pre == PRE_OUT_NOT_EMPTY) {
        assert_int_equal(mkdir(p->out, 0777), 0);
        char f[4400];
        snprintf(f, sizeof f, "%s/notes.txt", p->out);
        assert_int_equal(tu_write_file(f, "precious\n"), 0);
    }
    if (c->pre == PRE_RUN || c->pre == PRE_RUN_OTHER_SCHEMA) {
        const char *env[] = {FAKE, bwd_env, NULL};
        const char *args[] = {SMALL, "--out", p->out, "--quiet", NULL};
        tu_result r = tu_run(NULL, env, args);
        if (r.status != 0) fail_msg("setting up a run: exit %d: %s", r.status, r.err);
        tu_result_free(&r);
    }
    if (c->pre == PRE_RUN_OTHER_SCHEMA) {
        char f[4400];
        snprintf(f, sizeof f, "%s/run.json", p->out);
        char *t = tu_read_file(f);
        assert_non_null(t);
        char *v = strstr(t, "\"schema_version\": ");
        assert_non_null(v);
        v += strlen("\"schema_version\": ");
        char *end = v + strspn(v, "0123456789");
        char *fixed = malloc(strlen(t) + 8);
        snprintf(fixed, strlen(t) + 8, "%.*s99%s", (int)(v - t), t, end);
        assert_int_equal(tu_write_file(f, fixed), 0);
        free(fixed);
        free(t);
    }
}

static void run_case(size_t i)
{
    const bad_case *c = &cases[i];
    paths p;
    snprintf(p.base, sizeof p.base, "%s", tu_tempdir("bad"));
    snprintf(p.out, sizeof p.out, "%s/out", p.base);
    snprintf(p.ini, sizeof p.ini, "%s/exp.ini", p.base);
    snprintf(p.file, sizeof p.file, "%s/afile", p.base);
    char bwd_env[4200];
    snprintf(bwd_env, sizeof bwd_env, "BUILD_WORKING_DIRECTORY=%s", p.base);
    prepare(c, &p, bwd_env);

    const char *env[8];
    size_t ne = 0;
    char bin_env[4200];
    env[ne++] = FAKE;
    env[ne++] = bwd_env;
    if (c->tool) { /* tu_run runs $SWEEP_BIN */
        const char *bin = tu_runfile("plots/render", "render");
        assert_non_null(bin);
        snprintf(bin_env, sizeof bin_env, "SWEEP_BIN=%s", bin);
        env[ne++] = bin_env;
    }
    for (size_t k = 0; k < 3 && c->env[k]; k++) env[ne++] = c->env[k];
    env[ne] = NULL;
    const char *args[20];
    size_t na = 0;
    for (size_t k = 0; k < 16 && c->args[k]; k++) args[na++] = subst(&p, c->args[k]);
    args[na] = NULL;

    char *before = snapshot(p.base);
    tu_result r = tu_run(p.base, env, args);
    char *after = snapshot(p.base);
    const char *needle = subst(&p, c->needle);
    char cmd[2048] = "", prefix[64] = "sweep: ";
    if (c->tool) snprintf(prefix, sizeof prefix, "%s: ", c->tool);
    else if (na && (!strcmp(args[0], "compare") || !strcmp(args[0], "merge") || !strcmp(args[0], "confirm")))
        snprintf(prefix, sizeof prefix, "sweep %s: ", args[0]); /* a subcommand speaks as itself */
    for (size_t k = 0; k < na; k++) {
        strncat(cmd, " ", sizeof cmd - strlen(cmd) - 1);
        strncat(cmd, args[k], sizeof cmd - strlen(cmd) - 1);
    }
    if (r.status != 2) fail_msg("case %zu (sweep%s): exit %d, want 2; stderr: %s", i, cmd, r.status, r.err);
    if (!strstr(r.err, needle)) fail_msg("case %zu (sweep%s): stderr '%s' lacks '%s'", i, cmd, r.err, needle);
    if (strncmp(r.err, prefix, strlen(prefix)) || tu_count_lines(r.err) != 1)
        fail_msg("case %zu (sweep%s): not one '%s' line: '%s'", i, cmd, prefix, r.err);
    if (strcmp(before, after)) fail_msg("case %zu (sweep%s): files changed:\n%s---\n%s", i, cmd, before, after);
    if (c->pre == PRE_NONE) assert_false(tu_exists(p.out));
    free(before);
    free(after);
    tu_result_free(&r);
}

static void test_bad_input_table(void **state)
{
    (void)state;
    size_t n = sizeof cases / sizeof cases[0];
    assert_true(n >= 30);
    for (size_t i = 0; i < n; i++) run_case(i);
    printf("%zu bad-input cases: exit 2, one message, nothing written\n", n);
}

/* The limits the block-dim and coarse messages state are the registry's. */
static void test_messages_match_registry(void **state)
{
    (void)state;
    unsigned coarse = 0, blocks = 0;
    for (size_t i = 0; i < registry_count(); i++) {
        coarse |= variant_axis_set(registry_get(i), 0);
        blocks |= registry_get(i)->block_dims;
    }
    assert_int_equal(1u << (31 - __builtin_clz(coarse)), AXES_MAX_COARSE);
    assert_int_equal(1u << (31 - __builtin_clz(blocks)), AXES_MAX_BLOCK_DIM);
    assert_int_equal(1u << __builtin_ctz(blocks), AXES_MIN_BLOCK_DIM);
    /* every accepted value parses; one past either end does not */
    size_list l;
    char err[512];
    assert_int_equal(parse_block_dims("all", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 6);
    assert_int_equal(parse_coarse("all", &l, err, sizeof err), 0);
    assert_int_equal(l.count, 7);
    assert_int_equal(parse_coarse("128", &l, err, sizeof err), -1);
    assert_int_equal(parse_block_dims("2048", &l, err, sizeof err), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bad_input_table),
        cmocka_unit_test(test_messages_match_registry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
