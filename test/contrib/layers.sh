#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# The layering check (layers.py) on this tree, after it has shown it can
# fail: on a scratch tree with one include of each kind it refuses, it must
# name each, word for word.
: "${top_srcdir:?}"
python=$(command -v python3) || { echo "python3 is needed for the layering check"; exit 1; }
scratch=$(mktemp -d) || exit 1
trap 'rm -rf "$scratch"' EXIT INT TERM
status=0

mkdir -p "$scratch/opal/util" "$scratch/mca/fw/base" "$scratch/mca/runtime" \
    "$scratch/components/fw_a" "$scratch/components/fw_b"
: >"$scratch/mca/fw/framework.am"
: >"$scratch/mca/runtime/meridian.h"
: >"$scratch/components/fw_b/b.hpp"
echo '#include <meridian/mca/fw/fw.h>' >"$scratch/opal/util/low.cc"
echo '#include "mca/fw/base/base.hpp"' >"$scratch/mca/fw/fw.h"
echo '#include <meridian/mca/runtime/meridian.h>' >"$scratch/mca/fw/base/base.hpp"
printf '#include "mca/fw/base/base.hpp"\n#include "components/fw_b/b.hpp"\n' >"$scratch/components/fw_a/a.cc"
printf '#include "b.hpp"\n#include <meridian/opal/util/low.cc>\n#include <stdio.h>\n' >"$scratch/components/fw_b/b.cc"
"$python" "$top_srcdir/test/contrib/layers.py" "$scratch" >"$scratch/out" 2>&1
rc=$?
cat >"$scratch/want" <<'WANT'
components/fw_a/a.cc:2: a component (floor 3) includes components/fw_b/b.hpp, a component (floor 3): a component never includes another component's files
mca/fw/base/base.hpp:1: a framework's base (floor 2) includes mca/runtime/meridian.h, above the frameworks (floor 4): a lower floor never includes a higher one
mca/fw/fw.h:1: a framework's interface (floor 1) includes mca/fw/base/base.hpp, a framework's base (floor 2): a lower floor never includes a higher one
opal/util/low.cc:1: opal (floor 0) includes mca/fw/fw.h, a framework's interface (floor 1): a lower floor never includes a higher one
WANT
if [ $rc -ne 1 ] || ! diff "$scratch/want" "$scratch/out"; then
    echo "FAIL: the layering check did not refuse the scratch tree's includes as expected (exit $rc):"
    cat "$scratch/out"
    status=1
fi

if "$python" "$top_srcdir/test/contrib/layers.py" "$top_srcdir" >"$scratch/tree" 2>&1; then
    echo "ok: every include runs down the floors"
else
    echo "FAIL: the tree breaks its layering:"
    cat "$scratch/tree"
    status=1
fi
exit $status
