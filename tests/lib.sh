# Shared helpers for tests/cli_*.sh. Source it, call the checks, end with `finish`.
# A check prints "ok NAME", "FAIL NAME: why" or "skip NAME: why" (a check that cannot run here, counted
# as such); finish prints "N passed, M failed, K skipped" and sets the status.
passed=0 failed=0 skipped=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# A pyenv shim named python3 starts pyenv itself first: about 0.35 s a call on the CI machines, and the tests start
# python3 hundreds of times (and scripts run it by their #! line). Put the interpreter the shim resolves to first on
# PATH, under the same name, for this script and everything it starts.
case $(command -v python3 2>/dev/null) in
*/shims/python3)
    py=$(python3 -c 'import sys; print(sys.executable)' 2>/dev/null) && [ -x "$py" ] && mkdir -p "$tmp/.py" &&
        ln -sf "$py" "$tmp/.py/python3" && PATH="$tmp/.py:$PATH" ;;
esac
ok() { passed=$((passed + 1)); echo "ok $1"; }
fail() { failed=$((failed + 1)); echo "FAIL $1: $2"; }
skip() { skipped=$((skipped + 1)); echo "skip $1: $2"; }
# expect_exit NAME CODE CMD...: runs CMD, checks its exit code; stdout in $tmp/out, stderr in $tmp/err.
expect_exit() {
    local name=$1 code=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$code" ]; then ok "$name"; else fail "$name" "exit $rc, expected $code; stderr: $(head -c 300 "$tmp/err")"; fi
}
# expect_error NAME PATTERN CMD...: exit 2, exactly one line on stderr matching PATTERN, nothing on stdout.
expect_error() {
    local name=$1 pattern=$2; shift 2
    "$@" >"$tmp/out" 2>"$tmp/err"
    local rc=$? lines
    lines=$(wc -l <"$tmp/err")
    if [ "$rc" -ne 2 ]; then fail "$name" "exit $rc, expected 2"
    elif [ "$lines" -ne 1 ]; then fail "$name" "stderr has $lines lines: $(cat "$tmp/err")"
    elif ! grep -q -- "$pattern" "$tmp/err"; then fail "$name" "stderr '$(cat "$tmp/err")' lacks '$pattern'"
    elif [ -s "$tmp/out" ]; then fail "$name" "wrote to stdout"
    else ok "$name"; fi
}
finish() { echo "$passed passed, $failed failed, $skipped skipped"; [ "$failed" -eq 0 ]; }
