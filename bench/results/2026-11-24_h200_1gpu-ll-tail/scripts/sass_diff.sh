#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# No GPU needed. Disassembles sass_kernels.cu as built with two checkouts' headers and
# diffs each form's kernels, label numbers renumbered by first use:
#   sass_diff.sh <include dir A> <include dir B>      (NVDISASM: nvdisasm, e.g. from the
#   nvidia-cuda-nvdisasm wheel; prints the number of differing lines per form: 0 = same code)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
dis=${NVDISASM:-nvdisasm}
t=$(mktemp -d); trap 'rm -rf "$t"' EXIT
for s in a b; do
  inc=$1; [[ $s == b ]] && inc=$2
  nvcc -std=c++17 -arch=sm_90 -O3 -I"$inc" -cubin -o $t/$s.cubin "$here/sass_kernels.cu"
  for form in thread:'k_rsP|k_redP' warp:'k_rswP|k_redwP'; do
    "$dis" -c $t/$s.cubin | awk -v re="${form#*:}" '/^\.text\./{f=($0 ~ re)} f' |
      sed -E 's@/\*[0-9a-f]{4,}\*/@@; s@/\* 0x[0-9a-f]+ \*/@@' |
      perl -pe 's/(\.L_x_\d+)/$m{$1} \/\/= ".L" . $n++/ge' > $t/$s.${form%%:*}.txt
  done
done
for form in thread warp; do echo "$form: $(diff $t/a.$form.txt $t/b.$form.txt | grep -c '^[<>]' || true) differing lines"; done
