/* The profiler's metric names without a GPU: list parsing, name syntax,
 * suggestions, derived values, plans and the metric table. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "cupti/metrics.h"

/* ---- list splitting ---- */

static void test_split_trims_and_dedupes(void **state)
{
    (void)state;
    char names[8][METRIC_NAME_MAX];
    size_t n = 99;
    char msg[256] = "";
    assert_int_equal(metric_list_split("  a__x.sum ,b__y.avg,, a__x.sum ,\tc__z.pct\n, ", names, 8, &n,
                                       msg, sizeof msg),
                     0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "a__x.sum");
    assert_string_equal(names[1], "b__y.avg");
    assert_string_equal(names[2], "c__z.pct");
}

static void test_split_empty_lists(void **state)
{
    (void)state;
    char names[4][METRIC_NAME_MAX];
    size_t n = 99;
    assert_int_equal(metric_list_split("", names, 4, &n, NULL, 0), 0);
    assert_int_equal(n, 0);
    n = 99;
    assert_int_equal(metric_list_split(" , ,, \t", names, 4, &n, NULL, 0), 0);
    assert_int_equal(n, 0);
    n = 99;
    assert_int_equal(metric_list_split(NULL, names, 4, &n, NULL, 0), 0);
    assert_int_equal(n, 0);
}

static void test_split_single_and_keeps_order(void **state)
{
    (void)state;
    char names[4][METRIC_NAME_MAX];
    size_t n = 0;
    assert_int_equal(metric_list_split("z__b.sum", names, 4, &n, NULL, 0), 0);
    assert_int_equal(n, 1);
    assert_string_equal(names[0], "z__b.sum");
    assert_int_equal(metric_list_split("c,b,a,b,c", names, 4, &n, NULL, 0), 0);
    assert_int_equal(n, 3);
    assert_string_equal(names[0], "c");
    assert_string_equal(names[1], "b");
    assert_string_equal(names[2], "a");
}

static void test_split_limits(void **state)
{
    (void)state;
    char names[2][METRIC_NAME_MAX];
    size_t n = 0;
    char msg[256] = "";
    /* repeats do not count against the capacity */
    assert_int_equal(metric_list_split("a,b,a,b", names, 2, &n, msg, sizeof msg), 0);
    assert_int_equal(n, 2);
    assert_int_equal(metric_list_split("a,b,c", names, 2, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "more than 2"));

    char longname[METRIC_NAME_MAX + 10];
    memset(longname, 'x', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    msg[0] = '\0';
    assert_int_equal(metric_list_split(longname, names, 2, &n, msg, sizeof msg), -1);
    assert_non_null(strstr(msg, "longer than"));
}

/* ---- name syntax ---- */

static void test_name_check(void **state)
{
    (void)state;
    char msg[256];
    assert_int_equal(metric_name_check("dram__bytes_read.sum", msg, sizeof msg), 0);
    assert_int_equal(metric_name_check("dram__bytes_read.sum.per_second", msg, sizeof msg), 0);
    assert_int_equal(metric_name_check("gpu__time_duration.sum", msg, sizeof msg), 0);
    assert_int_equal(metric_name_check("CTC.TriageCompute.ctc__rx_bytes", msg, sizeof msg), -1);
    assert_int_equal(metric_name_check("dram__bytes_read", msg, sizeof msg), 0); /* syntax only */

    const char *bad[] = {"", "dram_bytes_read.sum", "__bytes.sum", ".dram__x", "dram__x.",
                         "dram__x..sum", "dram__bytes read.sum", "dram__x,sum", "sum.dram__x",
                         "dram__x-y.sum"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        msg[0] = '\0';
        assert_int_equal(metric_name_check(bad[i], msg, sizeof msg), -1);
        assert_true(strlen(msg) > 0);
    }
    assert_int_equal(metric_name_check(NULL, NULL, 0), -1);
}

/* ---- suggestions ---- */

static void test_edit_distance(void **state)
{
    (void)state;
    assert_int_equal(metric_edit_distance("kitten", "sitting"), 3);
    assert_int_equal(metric_edit_distance("", "abc"), 3);
    assert_int_equal(metric_edit_distance("abc", ""), 3);
    assert_int_equal(metric_edit_distance("same", "same"), 0);
    assert_int_equal(metric_edit_distance("dram__bytes_red.sum", "dram__bytes_read.sum"), 1);
    assert_int_equal(metric_edit_distance("flaw", "lawn"), 2);
}

static void test_suggest_closest_first(void **state)
{
    (void)state;
    const char *cands[256];
    size_t nc = metric_table_candidates(cands, 256);
    const char *out[3];
    size_t got = metric_suggest("dram__bytes_red.sum", cands, nc, out, 3);
    assert_true(got >= 1);
    assert_string_equal(out[0], "dram__bytes_read.sum");

    got = metric_suggest("l2_hitrate", cands, nc, out, 3);
    assert_true(got >= 1);
    assert_string_equal(out[0], "l2_hit_rate");

    /* a fragment finds the names that contain it */
    got = metric_suggest("bank_conflicts", cands, nc, out, 3);
    assert_true(got >= 1);
    assert_non_null(strstr(out[0], "bank_conflict"));

    assert_int_equal(metric_suggest("qqqqqqqqqqqqqqqq", cands, nc, out, 3), 0);
}

static void test_suggest_ties_dups_and_k(void **state)
{
    (void)state;
    const char *cands[] = {"abcd", "abce", "abcd", "abcf", "zzzz"};
    const char *out[8];
    size_t got = metric_suggest("abcx", cands, 5, out, 8);
    assert_int_equal(got, 3); /* "abcd" once; "zzzz" too far */
    assert_string_equal(out[0], "abcd");
    assert_string_equal(out[1], "abce");
    assert_string_equal(out[2], "abcf");
    assert_int_equal(metric_suggest("abcx", cands, 5, out, 1), 1);
    assert_string_equal(out[0], "abcd");
    assert_int_equal(metric_suggest("abcf", cands, 5, out, 2), 2);
    assert_string_equal(out[0], "abcf");
    assert_int_equal(metric_suggest("abcx", cands, 5, out, 0), 0);
    assert_int_equal(metric_suggest(NULL, cands, 5, out, 3), 0);
}

static void test_append_suggestions(void **state)
{
    (void)state;
    const char *cands[] = {"alpha", "alpine", "beta"};
    char msg[128] = "unknown metric 'alpah'";
    metric_append_suggestions(msg, sizeof msg, "alpah", cands, 3);
    assert_string_equal(msg, "unknown metric 'alpah'; closest: alpha, alpine");
    char none[128] = "x";
    metric_append_suggestions(none, sizeof none, "qqqqqqqqqq", cands, 3);
    assert_string_equal(none, "x (no close match)");
    char tiny[8] = "abc";
    metric_append_suggestions(tiny, sizeof tiny, "alpah", cands, 3); /* truncates, no overflow */
    assert_int_equal(strlen(tiny), 7);
}

/* ---- derived values ---- */

static void test_derive(void **state)
{
    (void)state;
    assert_true(metric_derive(METRIC_RAW, 12.5, 0.0) == 12.5);
    assert_true(metric_derive(METRIC_PER_LANE, 32.0, 0.0) == 1.0);
    assert_true(metric_derive(METRIC_PER_LANE, 16.0, 0.0) == 0.5);
    assert_true(metric_derive(METRIC_QUOTIENT, 6.0, 3.0) == 2.0);
    assert_true(isnan(metric_derive(METRIC_QUOTIENT, 6.0, 0.0)));
    assert_true(isnan(metric_derive(METRIC_QUOTIENT, 0.0, 0.0)));
}

/* ---- the metric table ---- */

static void test_default_table_consistent(void **state)
{
    (void)state;
    char msg[256];
    assert_true(metric_table_count > 0);
    assert_true(metric_table_count <= METRIC_PLAN_MAX);
    for (size_t i = 0; i < metric_table_count; i++) {
        const metric_def *d = &metric_table[i];
        assert_non_null(d->key);
        assert_non_null(d->term);
        assert_non_null(d->name);
        assert_non_null(d->unit);
        assert_non_null(d->nvprof);
        assert_true(strlen(d->key) > 0);
        assert_true(strlen(d->term) > 0);
        assert_true(strlen(d->unit) > 0);
        assert_null(strchr(d->unit, ','));
        assert_null(strchr(d->key, ','));
        /* keys are not CUPTI names, CUPTI names are well formed */
        assert_int_equal(metric_name_check(d->key, NULL, 0), -1);
        if (metric_name_check(d->name, msg, sizeof msg) != 0)
            fail_msg("%s: %s", d->key, msg);
        if (d->kind == METRIC_QUOTIENT) {
            assert_non_null(d->denominator);
            assert_int_equal(metric_name_check(d->denominator, NULL, 0), 0);
        } else {
            assert_null(d->denominator);
        }
        assert_ptr_equal(metric_find_key(d->key), d);
        for (size_t j = i + 1; j < metric_table_count; j++)
            assert_string_not_equal(d->key, metric_table[j].key);
    }
}

static const metric_def *by_name(const char *name, metric_kind kind)
{
    for (size_t i = 0; i < metric_table_count; i++)
        if (strcmp(metric_table[i].name, name) == 0 && metric_table[i].kind == kind)
            return &metric_table[i];
    return NULL;
}

static void test_default_table_covers_the_study(void **state)
{
    (void)state;
    const char *raw[] = {
        "smsp__thread_inst_executed_per_inst_executed.ratio",
        "smsp__thread_inst_executed_pred_on_per_inst_executed.ratio",
        "smsp__sass_average_branch_targets_threads_uniform.pct",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
        "dram__bytes_read.sum",
        "dram__bytes_write.sum",
        "dram__bytes_read.sum.per_second",
        "dram__bytes_write.sum.per_second",
        "dram__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
        "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
        "lts__t_sector_hit_rate.pct",
        "smsp__inst_executed.sum",
        "gpu__time_duration.sum",
    };
    for (size_t i = 0; i < sizeof raw / sizeof raw[0]; i++)
        if (!by_name(raw[i], METRIC_RAW))
            fail_msg("no raw entry for %s", raw[i]);
    const metric_def *w = by_name("smsp__thread_inst_executed_per_inst_executed.ratio", METRIC_PER_LANE);
    assert_non_null(w);
    assert_string_equal(w->unit, "fraction");
    const metric_def *q = by_name("l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", METRIC_QUOTIENT);
    assert_non_null(q);
    assert_string_equal(q->denominator, "smsp__inst_executed_op_shared_ld.sum");
    assert_string_equal(by_name("gpu__time_duration.sum", METRIC_RAW)->unit, "ns");
    assert_ptr_equal(metric_find_nvprof("gld_efficiency"), metric_find_key("global_load_efficiency"));
    assert_ptr_equal(metric_find_nvprof("warp_execution_efficiency"), metric_find_key("warp_efficiency"));
    assert_null(metric_find_nvprof(""));
    assert_null(metric_find_key("no_such_key"));
}

static void test_default_candidates(void **state)
{
    (void)state;
    const char *cands[256];
    size_t n = metric_table_candidates(cands, 256);
    assert_true(n >= metric_table_count);
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            assert_string_not_equal(cands[i], cands[j]);
    assert_int_equal(metric_table_candidates(cands, 3), 3);
}

/* ---- plans ---- */

static size_t raw_index(const metric_plan *p, const char *name)
{
    for (size_t i = 0; i < p->nraw; i++)
        if (strcmp(p->raw[i], name) == 0)
            return i;
    fail_msg("%s not in the plan", name);
    return 0;
}

static size_t column_index(const metric_plan *p, const char *key)
{
    for (size_t i = 0; i < p->ncolumns; i++)
        if (strcmp(p->columns[i].key, key) == 0)
            return i;
    fail_msg("column %s not in the plan", key);
    return 0;
}

static void test_plan_default_and_eval(void **state)
{
    (void)state;
    metric_plan *p = metric_plan_default();
    assert_non_null(p);
    /* the default set: every entry but the SASS-patched ones, in table order */
    const metric_def *in_set[METRIC_PLAN_MAX];
    size_t n_set = 0;
    for (size_t i = 0; i < metric_table_count; i++)
        if (!metric_table[i].instrumented)
            in_set[n_set++] = &metric_table[i];
    assert_int_equal(n_set, metric_table_count - 2);
    assert_int_equal(p->ncolumns, n_set);

    /* every CUPTI name once, none of them patched */
    size_t distinct = 0;
    const char *seen[2 * METRIC_PLAN_MAX];
    for (size_t i = 0; i < n_set; i++) {
        const char *names[2] = {in_set[i]->name, in_set[i]->denominator};
        for (int k = 0; k < 2; k++) {
            if (!names[k])
                continue;
            int dup = 0;
            for (size_t j = 0; j < distinct && !dup; j++)
                dup = strcmp(seen[j], names[k]) == 0;
            if (!dup)
                seen[distinct++] = names[k];
        }
    }
    assert_int_equal(p->nraw, distinct);
    for (size_t i = 0; i < p->nraw; i++) {
        assert_null(strstr(p->raw[i], "__sass_"));
        assert_ptr_equal(p->raw[i], p->raw_text[i]);
        for (size_t j = i + 1; j < p->nraw; j++)
            assert_string_not_equal(p->raw[i], p->raw[j]);
    }

    double raw[2 * METRIC_PLAN_MAX], cols[METRIC_PLAN_MAX];
    for (size_t i = 0; i < p->nraw; i++)
        raw[i] = 100.0 + (double)i;
    raw[raw_index(p, "smsp__thread_inst_executed_per_inst_executed.ratio")] = 24.0;
    raw[raw_index(p, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum")] = 8.0;
    raw[raw_index(p, "smsp__inst_executed_op_shared_ld.sum")] = 4.0;
    raw[raw_index(p, "smsp__inst_executed_op_shared_st.sum")] = 0.0;
    raw[raw_index(p, "dram__bytes_read.sum")] = 67108864.0;
    metric_plan_eval(p, raw, cols);

    assert_true(cols[column_index(p, "warp_efficiency")] == 0.75);
    assert_true(cols[column_index(p, "warp_active_threads")] == 24.0);
    assert_true(cols[column_index(p, "shared_ld_wavefronts_per_request")] == 2.0);
    assert_true(isnan(cols[column_index(p, "shared_st_wavefronts_per_request")]));
    assert_true(cols[column_index(p, "dram_read_bytes")] == 67108864.0);
    for (size_t i = 0; i < p->ncolumns; i++) {
        assert_string_equal(p->columns[i].key, in_set[i]->key);
        assert_string_equal(p->columns[i].unit, in_set[i]->unit);
        assert_ptr_equal(p->columns[i].def, in_set[i]);
    }
    metric_plan_free(p);
}

/* "default" and "all" inside a list: the set's keys in table order, then the
 * rest of the list; "all" adds the SASS-patched entries, which are exactly
 * the table's smsp__sass_* ones. */
static void test_plan_sets_in_a_list(void **state)
{
    (void)state;
    char msg[512] = "";
    metric_plan *d = metric_plan_default();
    metric_plan *p = metric_plan_parse("default, sm__cycles_elapsed.avg, warp_efficiency", msg, sizeof msg);
    if (!p)
        fail_msg("%s", msg);
    assert_int_equal(p->ncolumns, d->ncolumns + 1);
    for (size_t i = 0; i < d->ncolumns; i++)
        assert_string_equal(p->columns[i].key, d->columns[i].key);
    assert_string_equal(p->columns[d->ncolumns].key, "sm__cycles_elapsed.avg");
    metric_plan_free(p);
    p = metric_plan_parse("all", msg, sizeof msg);
    if (!p)
        fail_msg("%s", msg);
    assert_int_equal(p->ncolumns, metric_table_count);
    for (size_t i = 0; i < metric_table_count; i++) {
        assert_string_equal(p->columns[i].key, metric_table[i].key);
        assert_int_equal(metric_table[i].instrumented, strstr(metric_table[i].name, "__sass_") != NULL);
    }
    metric_plan_free(p);
    metric_plan_free(d);
}

static void test_plan_parse_mixed_names(void **state)
{
    (void)state;
    char msg[512] = "";
    metric_plan *p = metric_plan_parse(
        " warp_efficiency, gld_efficiency ,dram__bytes_read.sum, sm__cycles_elapsed.avg,"
        " warp_execution_efficiency, warp_efficiency",
        msg, sizeof msg);
    if (!p)
        fail_msg("%s", msg);
    assert_int_equal(p->ncolumns, 4);
    assert_string_equal(p->columns[0].key, "warp_efficiency");
    assert_int_equal(p->columns[0].kind, METRIC_PER_LANE);
    assert_string_equal(p->columns[1].key, "global_load_efficiency");
    assert_string_equal(p->columns[1].unit, "%");
    assert_string_equal(p->columns[2].key, "dram__bytes_read.sum");
    assert_string_equal(p->columns[2].unit, "bytes");
    assert_non_null(p->columns[2].def);
    assert_string_equal(p->columns[3].key, "sm__cycles_elapsed.avg");
    assert_string_equal(p->columns[3].unit, "");
    assert_null(p->columns[3].def);
    assert_int_equal(p->nraw, 4);
    assert_string_equal(p->raw[0], "smsp__thread_inst_executed_per_inst_executed.ratio");
    assert_string_equal(p->raw[1], "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
    assert_string_equal(p->raw[2], "dram__bytes_read.sum");
    assert_string_equal(p->raw[3], "sm__cycles_elapsed.avg");
    metric_plan_free(p);

    p = metric_plan_parse("shared_ld_wavefronts_per_request", msg, sizeof msg);
    assert_non_null(p);
    assert_int_equal(p->ncolumns, 1);
    assert_int_equal(p->nraw, 2);
    assert_int_equal(p->columns[0].kind, METRIC_QUOTIENT);
    assert_int_equal(p->columns[0].num, 0);
    assert_int_equal(p->columns[0].den, 1);
    double raw[2] = {30.0, 10.0}, col;
    metric_plan_eval(p, raw, &col);
    assert_true(col == 3.0);
    metric_plan_free(p);
}

static void test_plan_errors(void **state)
{
    (void)state;
    char msg[512] = "";
    assert_null(metric_plan_parse("warp_eficiency", msg, sizeof msg));
    assert_non_null(strstr(msg, "unknown metric 'warp_eficiency'"));
    assert_non_null(strstr(msg, "closest: warp_efficiency"));

    msg[0] = '\0';
    assert_null(metric_plan_parse("l2_hit_rate, dram bytes", msg, sizeof msg));
    assert_non_null(strstr(msg, "dram bytes"));

    msg[0] = '\0';
    assert_null(metric_plan_parse(" , ", msg, sizeof msg));
    assert_string_equal(msg, "empty metric list");

    msg[0] = '\0';
    assert_null(metric_plan_new(NULL, 0, msg, sizeof msg));
    assert_string_equal(msg, "empty metric list");

    const char *with_null[] = {"l2_hit_rate", NULL};
    assert_null(metric_plan_new(with_null, 2, msg, sizeof msg));
    assert_non_null(strstr(msg, "NULL"));

    metric_plan_free(NULL);
    metric_plan_eval(NULL, NULL, NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_split_trims_and_dedupes),
        cmocka_unit_test(test_split_empty_lists),
        cmocka_unit_test(test_split_single_and_keeps_order),
        cmocka_unit_test(test_split_limits),
        cmocka_unit_test(test_name_check),
        cmocka_unit_test(test_edit_distance),
        cmocka_unit_test(test_suggest_closest_first),
        cmocka_unit_test(test_suggest_ties_dups_and_k),
        cmocka_unit_test(test_append_suggestions),
        cmocka_unit_test(test_derive),
        cmocka_unit_test(test_default_table_consistent),
        cmocka_unit_test(test_default_table_covers_the_study),
        cmocka_unit_test(test_default_candidates),
        cmocka_unit_test(test_plan_default_and_eval),
        cmocka_unit_test(test_plan_sets_in_a_list),
        cmocka_unit_test(test_plan_parse_mixed_names),
        cmocka_unit_test(test_plan_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
