#!/usr/bin/env bash
# tools/scan_path's command line without a GPU: bad input (a size that is not
# one, a size that is not whole tiles, --rounds 0, an unknown option, a
# missing value) prints one line on stderr naming the value and exits 2 before
# any CUDA call, with nothing on stdout and no CSV written; --help exits 0.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
. "$here/cli_checks.sh"
cli_begin scan_path_cli_test tools/scan_path/scan_path

bad "a size that is not one" "2^x" --sizes 2^x
bad "a size among good ones" "12345" --sizes 2^28,12345
bad "a size that is not whole tiles" "1000" --sizes 1000
bad "no rounds" "0" --rounds 0
bad "samples not a number" "five" --samples five
bad "an unknown option" "--bogus" --bogus
bad "a missing value" "--device" --device
cli_help --sizes
cli_end
