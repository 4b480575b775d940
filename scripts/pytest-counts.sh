# shellcheck shell=bash
# Sourced by check.sh and integration.sh.
#
# pytest_counts LOG: "PASSED FAILED" from the last closing line pytest (or
# integration.sh, in pytest's format) wrote to LOG, such as
# "==== 12 passed, 1 failed, 2 errors in 3.4s ====" or, under -q,
# "12 passed, 3 deselected in 3.4s". Errors count as failed. Prints
# nothing and returns 1 if LOG has no such line.
pytest_counts() {
	local line pass fail err
	line=$(grep -E '^(=+ )?([0-9].*(passed|failed|error|deselected)|no tests ran).* in [0-9.]+s' "$1" |
		tail -n1)
	[ -n "$line" ] || return 1
	pass=$(echo "$line" | sed -nE 's/(^|.* )([0-9]+) passed.*/\2/p')
	fail=$(echo "$line" | sed -nE 's/(^|.* )([0-9]+) failed.*/\2/p')
	err=$(echo "$line" | sed -nE 's/(^|.* )([0-9]+) errors?.*/\2/p')
	echo "${pass:-0} $((${fail:-0} + ${err:-0}))"
}
