/* libFuzzer target: experiment-file bytes -> experiment_parse_buffer (the
 * parser experiment_load uses) -> plan_build -> plan_print. Any crash,
 * sanitizer report, or a failure without a one-line message is a finding.
 * Built and run by tools/fuzz/run.sh. */
#include <stddef.h>
#include <stdint.h>

#include "harness/config/plan.h"
#include "tools/fuzz/fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static experiment e; /* large: glob and size lists */
    static char err[8192];
    err[0] = '\0';
    if (experiment_parse_buffer((const char *)data, size, "fuzz.ini", &e, err, sizeof err) != 0) {
        fuzz_check_message(err, sizeof err);
        fuzz_expect_valid(err);
        return 0;
    }
    if (e.timing.min_samples < 1 || e.timing.max_samples < e.timing.min_samples || !e.sizes.count) abort();
    if (!experiment_name_ok(e.name)) abort();
    fuzz_plan(&e);
    return 0;
}
