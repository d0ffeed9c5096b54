#!/usr/bin/env bash
# --shard auto under a real launcher: Open MPI's mpirun starts 3 ranks of the
# sweep (fake device, the smoke experiment), each writes its own directory
# (--out DIR/shard-%r: %r is the rank's shard index), `sweep merge` joins
# them, and the merged configurations must be an unsharded run's, in order.
# Skips (exit 0, a SKIPPED line) only when mpirun is absent; tools/setup.sh
# installs it (openmpi-bin).
set -uo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
sweep=""
for c in "${TEST_SRCDIR:-/nonexistent}/${TEST_WORKSPACE:-_}/harness/sweep" "$here/../bin/sweep"; do
    [ -x "$c" ] && { sweep=$c; break; }
done
[ -n "$sweep" ] || { echo "FAIL: the sweep binary not found"; exit 1; }
command -v mpirun >/dev/null || { echo "SKIPPED: mpirun not found (tools/setup.sh installs openmpi-bin)"; exit 0; }
# The sweep finds experiments/smoke.ini in the test's runfiles.
[ -n "${TEST_SRCDIR:-}" ] && export RUNFILES_DIR=${RUNFILES_DIR:-$TEST_SRCDIR}

T=${TEST_TMPDIR:-$(mktemp -d)}/shard-mpirun
rm -rf "$T" && mkdir -p "$T/tmp"
# Open MPI on one host with no network but loopback, as root, in a sandbox:
# start ranks as local children (no ssh/rsh: plm isolated), shared memory
# without the cross-process copy the sandbox forbids (single_copy none),
# more ranks than cores, and its session files in the test's own tmp.
export OMPI_MCA_plm=isolated OMPI_MCA_btl_vader_single_copy_mechanism=none \
    OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl=self,vader \
    OMPI_MCA_orte_tmpdir_base="$T/tmp" TMPDIR="$T/tmp" HOME="${HOME:-$T}"
export SWEEP_FAKE_DEVICE=1
# No launcher variables of an outer job (a CI runner under Slurm) may reach the ranks.
unset SLURM_PROCID SLURM_NTASKS SLURM_NPROCS SLURM_LOCALID PMI_RANK PMI_SIZE PMIX_RANK PMIX_SIZE

fails=0
check() { # description, command...
    if "${@:2}"; then echo "ok: $1"; else echo "FAIL: $1"; fails=$((fails + 1)); fi
}

timeout 300 mpirun --oversubscribe --allow-run-as-root -np 3 \
    "$sweep" --fake-device --experiment smoke --shard auto --quiet --out "$T/shard-%r" >"$T/mpirun.log" 2>&1
rc=$?
check "mpirun -np 3 exits 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    /' "$T/mpirun.log"
check "each rank says it took its shard from Open MPI" \
    test "$(grep -c 'shard auto: shard [0-2] of 3 from Open MPI' "$T/mpirun.log")" -eq 3
for r in 0 1 2; do
    check "shard-$r/run.json names shard $r of 3 from ompi" \
        grep -q "\"source\": \"ompi\"" "$T/shard-$r/run.json"
done

"$sweep" merge "$T/merged" "$T/shard-0" "$T/shard-1" "$T/shard-2" --quiet >"$T/merge.log" 2>&1
rc=$?
check "merge exits 0 (got $rc)" test "$rc" -eq 0
[ "$rc" -eq 0 ] || sed 's/^/    /' "$T/merge.log"
"$sweep" --fake-device --experiment smoke --quiet --out "$T/whole" >"$T/whole.log" 2>&1
check "the unsharded run exits 0" test $? -eq 0

# The configurations: variant .. scan_mode, status, skip reason (the first 13 columns).
configs() { cut -d, -f1-13 "$1/results.csv"; }
check "the merged configurations are the unsharded run's, in plan order" \
    diff <(configs "$T/whole") <(configs "$T/merged")
check "the merged run.json lists 3 shards" \
    test "$(grep -c '"index":' "$T/merged/run.json")" -eq 3

if ((fails)); then echo "$fails check(s) failed"; exit 1; fi
echo "all checks passed"
