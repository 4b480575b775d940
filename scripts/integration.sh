#!/usr/bin/env bash
# make integration: the VM scenarios (tests/integration), split by file
# over $XIW_SHARDS guests that run at once (default 2), each a pytest
# session with its own guest (tests/integration/conftest.py, XIW_SHARD).
# One guest keeps only about one of this machine's two cores busy, but two
# guests with a host thread per vCPU (four threads on two cores) finish
# later than one; so with more than one shard each guest's two vCPUs take
# turns in one host thread (XIW_VM_TCG_THREAD=single, unless set): still
# a two-CPU guest, and two of them in about 0.7 of one guest's time.
# XIW_SHARDS=1 runs one guest with a thread per vCPU, as before.
# Each shard's output goes to build/integration-K.log and, prefixed "[K]",
# to the terminal; the last line adds the shards' counts up in pytest's
# summary format. Arguments go to every pytest; $XIW_TESTS, if set, names
# the files to run instead of all of tests/integration but
# test_install.py. The tests marked interop (the other directions and
# devices across two guests) are left out unless $XIW_INTEROP is set
# (make interop, make check-debug); a -m argument overrides that. Exit
# status:
# non-zero if a shard failed.
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
python=${PYTHON:-/usr/bin/python3}
shards=${XIW_SHARDS:-2}
# test_install.py is make check-install's (minutes of DKMS under TCG).
read -r -a tests <<<"${XIW_TESTS:-tests/integration --ignore=tests/integration/test_install.py}"
marks=()
[ -n "${XIW_INTEROP:-}" ] || marks=(-m "not interop")

if [ "$shards" -le 1 ]; then
	exec "$python" -m pytest "${marks[@]}" "$@" "${tests[@]}"
fi

# What the guests share is made once, before they start: stock siw.ko,
# the initramfs, the module tree and the accelerator verdict.
"$python" - <<'EOF' || exit 1
import os, sys
sys.path.insert(0, "tests/integration")
sys.path.insert(0, "tests/vm")
from conftest import build_siw, default_modules
import xiwvm
xiwvm.build_modules()
vm = xiwvm.VM(os.path.join("build", "vm", "prepare"),
              modules=default_modules(build_siw()))
vm.initramfs()
vm.modroot()
vm.accel()
EOF

export XIW_VM_TCG_THREAD=${XIW_VM_TCG_THREAD:-single}
rm -f build/test-durations-*-of-*.json
# The shards run in the background, where a non-interactive shell ignores
# SIGINT: on an interrupt, end them and their guests (one process group).
trap 'trap - INT TERM; kill 0' INT TERM
start=$(date +%s)
pids=()
for k in $(seq 1 "$shards"); do
	(
		XIW_SHARD="$k/$shards" "$python" -m pytest "${marks[@]}" "$@" \
			"${tests[@]}" \
			2>&1 | tee "build/integration-$k.log" | sed -u "s/^/[$k] /"
		rc=${PIPESTATUS[0]}
		# 5: every test of this shard deselected (-k, a file argument)
		[ "$rc" -eq 5 ] && rc=0
		exit "$rc"
	) &
	pids+=($!)
done
status=0
for p in "${pids[@]}"; do
	wait "$p" || status=1
done

# pytest's closing line of each shard: "= 12 passed, 1 failed in 3.4s =".
# shellcheck source=scripts/pytest-counts.sh
. scripts/pytest-counts.sh
pass=0 fail=0
for k in $(seq 1 "$shards"); do
	if ! counts=$(pytest_counts "build/integration-$k.log"); then
		echo "shard $k: no pytest summary"
		status=1
		continue
	fi
	pass=$((pass + ${counts% *}))
	fail=$((fail + ${counts#* }))
done
"$python" - "$shards" <<'EOF'
import json, sys
merged = {}
for k in range(1, int(sys.argv[1]) + 1):
    try:
        with open(f"build/test-durations-{k}-of-{sys.argv[1]}.json") as f:
            merged.update(json.load(f))
    except OSError:
        pass
with open("build/test-durations.json", "w") as f:
    json.dump(merged, f, indent=1, sort_keys=True)
EOF
# What failed, by name, once more at the end: CI keeps only the tail.
for k in $(seq 1 "$shards"); do
	grep -E '^(FAILED|ERROR) ' "build/integration-$k.log" | sed "s/^/[$k] /"
done
echo "==== $shards shards: $pass passed, $fail failed in $(( $(date +%s) - start )).0s ===="
exit $status
