#!/usr/bin/env bash
# The parser fuzz targets for a bounded time each (FUZZ_SECONDS, default 20):
# fails on a crash, a sanitizer report or a broken seed. Where clang is
# missing it prints SKIPPED and passes, like the GPU tests without a GPU.
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
if ! command -v "${CC_FUZZ:-clang}" >/dev/null; then
    echo "SKIPPED: no clang (tools/setup.sh installs it)"
    exit 0
fi
export FUZZ_WORK=${TEST_TMPDIR:-$(mktemp -d)}/fuzz
exec "$root/tools/fuzz/run.sh" "${FUZZ_SECONDS:-20}"
