#!/usr/bin/env bash
# Run xiw's KUnit suites under UML: graft kmod/'s pure protocol sources and
# their *_kunit.c tests into drivers/xiw of the cached linux-source tree and
# run kunit.py there. Prints kunit.py's results and a closing count line.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cache=${XIW_CACHE:-/var/tmp/xiw-cache}
src=$("$top/scripts/linux-src.sh")

# The pure files must stay free of the RDMA core (UML cannot build it).
pure=$(sed -n 's/^xiw_kunit-y *[+:]\{0,1\}= *//p' "$top/kmod/kunit.Kbuild" | tr ' ' '\n' | sed 's/\.o$/.c/')
for f in $pure; do
	if grep -nE '#include <rdma/|#include "(device|verbs)\.h"' "$top/kmod/$f"; then
		echo "kunit: $f is listed as pure protocol code but includes RDMA core headers" >&2
		exit 1
	fi
done

exec 9>"$cache/.kunit-lock"
flock 9
dir=$src/drivers/xiw
rm -rf "$dir"
mkdir -p "$dir"
for f in "$top"/kmod/*.c "$top"/kmod/*.h; do
	ln -s "$f" "$dir/"
done
# kmod/ includes the shared headers as "../uapi/..." and <xiw/...> from
# ../include: the same paths here.
ln -sfn "$top/uapi" "$src/drivers/uapi"
ln -sfn "$top/include" "$src/drivers/include"
cp "$top/kmod/kunit.Kbuild" "$dir/Makefile"
cp "$top/kmod/kunit.Kconfig" "$dir/Kconfig"
cp "$top/kmod/.kunitconfig" "$dir/.kunitconfig"
grep -q 'drivers/xiw/Kconfig' "$src/drivers/Kconfig" ||
	sed -i 's|^endmenu|source "drivers/xiw/Kconfig"\n\nendmenu|' "$src/drivers/Kconfig"
grep -q 'XIW_KUNIT_TEST' "$src/drivers/Makefile" ||
	echo 'obj-$(CONFIG_XIW_KUNIT_TEST) += xiw/' >>"$src/drivers/Makefile"

log=$cache/kunit.log
cd "$src"
rm -f "$cache/uml-build/test.log"
set +e
# kasan_multi_shot: KASAN reports (and so fails a test) every bug, not
# just the first of the boot.
python3 tools/testing/kunit/kunit.py run \
	--kunitconfig=drivers/xiw/.kunitconfig \
	--build_dir="$cache/uml-build" \
	--kernel_args=kasan_multi_shot \
	--jobs="$(nproc)" "$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
# Every option of the kunitconfig (KASAN, UBSAN) must have taken effect.
while read -r opt; do
	if ! grep -qsxF "$opt" "$cache/uml-build/.config"; then
		echo "kunit: $opt is not in the generated .config" >&2
		rc=1
	fi
done < <(grep -E '^(CONFIG_|# CONFIG_.* is not set$)' "$top/kmod/.kunitconfig")
# A sanitizer report fails the test it happens in; one outside any test
# (at boot, between suites) must fail the run too.
if grep -sE 'BUG: KASAN|UBSAN:' "$cache/uml-build/test.log"; then
	echo "kunit: sanitizer report in $cache/uml-build/test.log" >&2
	rc=1
fi
line=$(grep -E 'Testing complete\. Ran [0-9]+ tests' "$log" | tail -n1 || true)
total=$(echo "$line" | sed -nE 's/.*Ran ([0-9]+) tests.*/\1/p')
passed=$(echo "$line" | sed -nE 's/.*passed: ([0-9]+).*/\1/p')
failed=$(echo "$line" | sed -nE 's/.*failed: ([0-9]+).*/\1/p')
total=${total:-0}
passed=${passed:-0}
failed=${failed:-0}
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
	failed=1	# build or boot failure: count it, never report green
fi
echo "kunit: $passed passed, $failed failed"
[ "$rc" -eq 0 ] && [ "$total" -gt 0 ]
