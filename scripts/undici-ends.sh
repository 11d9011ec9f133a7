#!/usr/bin/env bash
# The wire tests on the lowest and the highest undici the package.json range admits (#19.3):
# a range is a promise about every version in it, and the lowest is where a guarantee is
# likeliest to be missing (undici < 7.28 lacks the idle-socket check before a write that the
# dead-connection rule relies on: test/wire/dead-connections.test.ts fails there).
#
#   bash scripts/undici-ends.sh            # both ends, then the lockfile's version back
#
# Needs the npm registry (or a cache holding both versions). Exits non-zero if either end fails.
set -euo pipefail
cd "$(dirname "$0")/.."
RANGE="$(node -p "require('./package.json').dependencies.undici")"
LOWEST="${RANGE#^}"
HIGHEST="$(npm view "undici@${RANGE}" version --json | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const v=JSON.parse(s);console.log(Array.isArray(v)?v[v.length-1]:v)})")"
LOCKED="$(node -p "require('./package-lock.json').packages['node_modules/undici'].version")"
TESTS=(test/wire test/faults
  test/nothing-returned-holds-a-secret.test.ts test/held-promises-memory.test.ts test/with-response.test.ts)
restore() { npm install --no-save --no-audit --no-fund "undici@${LOCKED}" >/dev/null; }
trap restore EXIT
status=0
for version in "$LOWEST" "$HIGHEST"; do
  echo "undici-ends: undici@${version} (range ${RANGE})"
  npm install --no-save --no-audit --no-fund "undici@${version}" >/dev/null
  npx vitest run "${TESTS[@]}" || status=1
done
exit "$status"
