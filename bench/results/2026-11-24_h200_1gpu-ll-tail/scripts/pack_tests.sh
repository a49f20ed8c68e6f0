#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# build/tests.tar.xz for run_tests.sh: build/default's CTest files, lib/, gshmrun and the
# collective test programs only (stripped), small enough to carry beside two gshmem-perf builds.
set -eu
root=$(cd "$(dirname "$0")/../../../.." && pwd)
st=$(mktemp -d); trap 'rm -rf "$st"' EXIT
STRIP=1 "$root/scripts/pack-build.sh" "$root/build/default" "$st/all.tar.xz" > /dev/null
tar -C "$st" -xJf "$st/all.tar.xz"
find "$st/default/bin" -type f ! \( -name gshmrun -o -name test_coll_ll -o -name test_reduce -o -name test_reducescatter \
  -o -name test_coll_bcast -o -name test_coll_collect -o -name test_coll_alltoall \) -delete
tar -C "$st" -cf - default | xz -T0 -6 > "$root/build/tests.tar.xz"
ls -l "$root/build/tests.tar.xz"
