#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Session 36: wait_scan_probe with a kernel per variant, new and old (68024fb) headers alternated
# twice (1 PE), and the SASS of the new probe's test_all and wait_until_any kernels.
set -u
here=$PWD
for at in /work/main /tmp/ci60; do [[ -e $at ]] || { mkdir -p "$(dirname "$at")" && ln -s "$here" "$at"; }; done
rm -rf build/default && tar -C build -xJf build/carry.tar.xz
B=$here/build/default
R=${OUT:-/tmp/out}/r; mkdir -p "$R"
for rep in 1 2; do
  for v in new old; do
    p=$B/bin/gshmem-wait-scan-probe; [[ $v == old ]] && p=$p-old
    timeout 100 "$B/bin/gshmrun" -n 1 --timeout 90 -- "$p" >"$R/probe-$v-$rep.txt" 2>&1
    echo "wait_scan_probe $v $rep rc=$?"
  done
done
for v in new old; do
  p=$B/bin/gshmem-wait-scan-probe; [[ $v == old ]] && p=$p-old
  timeout 60 cuobjdump -sass "$p" >"$R/sass-$v.txt" 2>&1
done
tar -C "${OUT:-/tmp/out}" -czf "${OUT:-/tmp/out}/all.tar.gz" r
