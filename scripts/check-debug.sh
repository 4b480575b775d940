#!/usr/bin/env bash
# make check-debug: the VM scenarios (tests/integration, the hostile peer
# among them) on the debug kernel (scripts/debug-kernel.sh: KASAN, lockdep,
# atomic-sleep, debug objects, kmemleak, KFENCE), built first if the cache
# has none (see Documentation/testing.md for how long that takes). Any
# report of those checkers fails the test that caused it
# (tests/integration/conftest.py). The benchmark smoke test is left out:
# no figure comes from the debug kernel.
#
# Arguments go to every pytest (-k NAME, -x); XIW_SHARDS as for make
# integration. To run one file: make debug-kmod, then
#   XIW_VM_KERNEL=$(scripts/debug-kernel.sh) python3 -m pytest FILE
# --if-cached: do nothing (exit 0) when no debug kernel is cached (a fresh
# machine). --ci: --if-cached, and only the files listed in
# tests/integration/debug-ci.txt (what .ci/run runs).
#
# The full run takes longer than a working session on two CPUs (about
# 3.5 h), so it keeps a ledger of the tests that passed, in $XIW_CACHE,
# named after the sources of everything the guest's kernel runs (kmod,
# uapi, include, the test modules, the provider) and the debug kernel.
# --resume (make check-debug RESUME=1) runs only what that ledger does
# not hold as passed with its test file unchanged: a change to any of
# those sources starts a new ledger, so the passes it adds up to are all
# of one xiw. Without --resume the ledger starts empty.
#
# A machine's cache does not outlive it, so a run spread over sittings on
# different machines carries its ledger in the repository:
# tests/integration/debug-ledger/<key>.jsonl, merged into the cache's at
# --resume. --ledger prints the cache ledger's path for the sources
# checked out (nothing is run), to copy there and commit.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
ledger_key() {
	{
		basename "$1"
		git ls-files -z kmod uapi include tools/xiwperf/kmod \
			tests/reliability/target provider |
			xargs -0 sha256sum
	} | sha256sum | cut -c1-16
}
ledgers=${XIW_CACHE:-/var/tmp/xiw-cache}/check-debug
if [ "${1:-}" = --ledger ]; then
	dbg=$(scripts/debug-kernel.sh --print-dir)
	echo "$ledgers/$(ledger_key "$dbg").jsonl"
	exit 0
fi
resume=
if [ "${1:-}" = --resume ]; then
	resume=1
	shift
fi
if [ "${1:-}" = --ci ]; then
	shift
	XIW_TESTS=$(sed -e 's/#.*//' -e '/^ *$/d' -e 's|^|tests/integration/|' \
		tests/integration/debug-ci.txt | tr '\n' ' ')
	export XIW_TESTS
	# Shorter fuzzing slices than make check's: the debug kernel runs
	# each case about six times slower, and the point here is its
	# checkers seeing every path, which a few hundred cases do.
	export XIW_FUZZ_SLICE=${XIW_FUZZ_SLICE:-300}
	export XIW_FUZZ_RESPONSES_SLICE=${XIW_FUZZ_RESPONSES_SLICE:-100}
	export XIW_ABUSE_ROUNDS=${XIW_ABUSE_ROUNDS:-10}
	export XIW_USER_ABUSE_ROUNDS=${XIW_USER_ABUSE_ROUNDS:-12}
	export XIW_RACES=${XIW_RACES:-3}
	set -- --if-cached "$@"
fi
if [ "${1:-}" = --if-cached ]; then
	shift
	if ! dbg=$(scripts/debug-kernel.sh --if-cached); then
		echo "check-debug: no debug kernel in the cache: skipped" \
			"(make debug-kernel builds it)"
		exit 0
	fi
else
	dbg=$(scripts/debug-kernel.sh)
fi
export XIW_VM_KERNEL=$dbg
scripts/debug-kmod.sh
if [ -z "${XIW_TESTS:-}" ]; then
	# Every scenario, make interop's too.
	export XIW_INTEROP=1
	key=$(ledger_key "$dbg")
	mkdir -p "$ledgers"
	export XIW_LEDGER=$ledgers/$key.jsonl
	if [ -n "$resume" ]; then
		export XIW_LEDGER_RESUME=1
		kept=tests/integration/debug-ledger/$key.jsonl
		if [ -f "$kept" ]; then
			# Repeated lines are harmless: a test's last one counts.
			cat "$kept" >>"$XIW_LEDGER"
			echo "check-debug: merged $kept"
		fi
		echo "check-debug: resuming $XIW_LEDGER:" \
			"$(grep -c . "$XIW_LEDGER" 2>/dev/null || echo 0) passed before"
	else
		: >"$XIW_LEDGER"
		echo "check-debug: ledger $XIW_LEDGER"
	fi
fi
exec scripts/integration.sh --ignore=tests/integration/test_bench.py "$@"
