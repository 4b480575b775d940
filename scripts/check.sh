#!/usr/bin/env bash
# Run every suite of "make check" even when one fails, then print one
# summary line per suite and a closing "N passed, N failed" total.
# Exit status: non-zero if any suite failed or ran no test.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
mkdir -p build
summary=()
total_pass=0
total_fail=0
status=0

# run NAME COUNT-EXTRACTOR COMMAND...: the extractor prints "passed failed"
# from the suite's log.
suite() {
	local name=$1 extract=$2
	shift 2
	local log=build/check-$name.log
	echo "==== $name: $*"
	"$@" 2>&1 | tee "$log"
	local rc=${PIPESTATUS[0]}
	local counts pass fail
	counts=$($extract "$log")
	pass=${counts% *}
	fail=${counts#* }
	pass=${pass:-0}
	fail=${fail:-0}
	if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
		fail=1	# a suite that broke before counting still counts as failed
	fi
	if [ "$pass" -eq 0 ] && [ "$fail" -eq 0 ]; then
		fail=1	# ran no test: never green
		echo "$name: ran no test"
	fi
	[ "$fail" -eq 0 ] || status=1
	summary+=("$name: $pass passed, $fail failed")
	total_pass=$((total_pass + pass))
	total_fail=$((total_fail + fail))
}

count_lint() {
	local n
	n=$(grep -c -E '^(checkpatch --strict|sparse|clang-tidy): clean$' "$1")
	echo "$n $((3 - n))"
}
# The modules, W=1 and warning-free, for each other Debian kernel xiw
# supports that is installed (6.1: scripts/setup.sh installs it); make all
# built them for 6.12.
build_other_kernels() {
	local k
	for k in $(ls -d /usr/src/linux-headers-6.1.[0-9]*-amd64 2>/dev/null |
		sed 's|.*/linux-headers-||' | sort -V | tail -n1); do
		if scripts/kmod-for.sh "$k" >/dev/null; then
			echo "kernels: $k: built"
		else
			echo "kernels: $k: failed"
		fi
	done
}
count_kernels() {
	echo "$(grep -c ': built$' "$1") $(grep -c ': failed$' "$1")"
}
# The scenarios of tests/integration/kernel-6.1.txt on Debian's 6.1
# kernel, in one guest (make all and the kernels line built everything).
integration_61() {
	XIW_KERNEL=6.1 XIW_SHARDS=1 PYTHON=${PYTHON:-/usr/bin/python3} \
		XIW_TESTS=$(sed -e 's/#.*//' -e '/^ *$/d' -e 's|^|tests/integration/|' \
			tests/integration/kernel-6.1.txt | tr '\n' ' ') \
		scripts/integration.sh -v -rfE --durations=0 --durations-min=2
}
count_kunit() {
	sed -nE 's/^kunit: ([0-9]+) passed, ([0-9]+) failed$/\1 \2/p' "$1" | tail -n1
}
count_ctest() {
	local line
	line=$(grep -E 'tests passed, [0-9]+ tests failed out of [0-9]+' "$1" | tail -n1)
	local failed total
	failed=$(echo "$line" | sed -nE 's/.*tests passed, ([0-9]+) tests failed out of ([0-9]+).*/\1/p')
	total=$(echo "$line" | sed -nE 's/.* out of ([0-9]+).*/\1/p')
	echo "$(( ${total:-0} - ${failed:-0} )) ${failed:-0}"
}
# shellcheck source=scripts/pytest-counts.sh
. scripts/pytest-counts.sh
count_pytest() {
	pytest_counts "$1" || echo "0 0"
}

suite lint count_lint make --no-print-directory lint
suite kernels count_kernels build_other_kernels
suite kunit count_kunit scripts/kunit.sh
suite unit count_ctest make --no-print-directory unit
suite unit-sanitized count_ctest make --no-print-directory unit-sanitized
suite integration count_pytest make --no-print-directory integration PYTEST_ARGS="-v -rfE --durations=0 --durations-min=2"
suite integration-6.1 count_pytest integration_61

echo
echo "==== summary"
for s in "${summary[@]}"; do
	echo "$s"
done
# The failing tests by name (pytest's -rfE lines), last: CI keeps only
# the tail of this output.
for log in build/check-integration.log build/check-integration-6.1.log; do
	[ -s "$log" ] || continue
	grep -E '^(\[[0-9]+\] )?(FAILED|ERROR) ' "$log" | sort -u | sed 's/^/  /'
done
echo "total: $total_pass passed, $total_fail failed"
exit $status
