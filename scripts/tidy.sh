#!/usr/bin/env bash
# clang-tidy over the project's own C++ (userlib/ and tools/), as the CMake
# build in $1 compiles it (its compile_commands.json). The checks, and why
# each, are in .clang-tidy; any finding fails. Prints "clang-tidy: clean".
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$top/build/cmake}" && pwd)
[ -f "$build/compile_commands.json" ] || {
	echo "tidy: no $build/compile_commands.json: run make first" >&2
	exit 1
}
tidy=$(command -v run-clang-tidy-14 || command -v run-clang-tidy) || {
	echo "tidy: no run-clang-tidy: run make setup" >&2
	exit 1
}
# run-clang-tidy takes regular expressions over the database's files.
"$tidy" -quiet -p "$build" -j "$(nproc)" "^$top/(userlib|tools)/.*\.cpp$" \
	>"$build/tidy.log" 2>&1 || {
	grep -E 'warning:|error:' -A3 "$build/tidy.log" || tail -n 40 "$build/tidy.log"
	exit 1
}
echo "clang-tidy: clean"
