#!/usr/bin/env bash
# tools/profile_cost's command line without a GPU: bad input (a count that is
# not one, a variant or metric that does not exist, an unknown option, a
# missing value) prints one line on stderr naming the value and exits 2 before
# any CUDA call, with nothing on stdout and no CSV written; --help exits 0.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_checks.sh"
cli_begin profile_cost_cli_test tools/profile_cost/profile_cost

bad "a size that is not one" "2^x" --n 2^x
bad "a batch of 0" "0" --batches 64,0
bad "launches not a number" "five" --launches five
bad "a negative count" "-3" --allocs -3
bad "a variant that does not exist" "reduce_bogus" --variants reduce_one_launch,reduce_bogus
bad "a metric that does not exist" "bogus_metric" --metrics bogus_metric
bad "an unknown option" "--bogus" --bogus 1
bad "a missing value" "--repeat" --repeat
cli_help --batches
cli_end
