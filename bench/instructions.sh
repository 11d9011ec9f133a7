#!/bin/bash
# The SDK's own cost per call as a count of instructions, which a shared box does not disturb
# as it disturbs time: valgrind's cachegrind counts every instruction a process runs. The
# process makes N `incidents.create` calls over a user `fetch` that answers at once
# (bench/lib/instructions-calls.mjs), single-threaded (no background compiler or GC threads).
# Per call = (I(N2 calls) - I(N1 calls)) / (N2 - N1), which cancels start-up and warm-up.
# Runs of one build agree within about 1k instructions with N2 - N1 = 40,000.
#
#   bench/instructions.sh DIR...      # each DIR holds a built dist/ (e.g. a worktree of a commit)
#   N1=6000 N2=46000 NODE=node bench/instructions.sh . .bench-tmp/ab/base
#
# The node:http and undici wires cannot be counted this way: libuv's polling under valgrind
# made runs of one build differ by 3x.
set -euo pipefail
command -v valgrind >/dev/null || { echo "needs valgrind (apt-get install -y valgrind)" >&2; exit 1; }
N1=${N1:-6000}
N2=${N2:-46000}
NODE=${NODE:-node}
CALLS="$(cd "$(dirname "$0")" && pwd)/lib/instructions-calls.mjs"
count() {
  N=$2 CLAIMS_AB_DIST="file://$(cd "$1" && pwd)/dist/index.js" valgrind --tool=cachegrind --cache-sim=no \
    --smc-check=all-non-file --cachegrind-out-file=/dev/null "$NODE" --single-threaded "$CALLS" 2>&1 |
    awk '/I[[:space:]]+refs/ { gsub(",", "", $NF); print $NF }'
}
for dir in "$@"; do
  a=$(count "$dir" "$N1")
  b=$(count "$dir" "$N2")
  echo "$dir: $(( (b - a) / (N2 - N1) )) instructions per call"
done
