#!/bin/sh
# Runs Maven for the gate's test command, as `ranex init` writes it for Maven repositories:
#   MAVEN_OPTS=... sh "$RANEX_REPORTERS/maven-run.sh" mvn -o -B -q -fae ... test
# - A failing test does not stop the modules that depend on its module
#   (-Dmaven.test.failure.ignore=true): with -fae alone Maven skips every module downstream of one
#   whose tests failed, so an owner's red target in `core` hid `app`'s tests on the base.
# - Maven's output goes to the gate as it is printed (this script's stdout is the run's output), and
#   to /tmp/ranex-build.log for junit-merge.sh's compile errors. The gate compares Maven's line for
#   each failed class with the Surefire reports (src/runners/maven-console.ts): the test JVM, which
#   can rewrite files under target/ and in /tmp, cannot take back what already left through the pipe.
# - The exit status: Maven's own when the build failed (a compile error, a missing dependency), else 1
#   when Maven printed a failed or errored test, else 0. It comes back through a pipe of this shell's
#   own (fd 4), which Maven and its test JVMs do not inherit.
# - Surefire's reports of an earlier run on the tree are removed before Maven starts.
# - Then junit-merge.sh writes the report at $RANEX_REPORT.
set -u
log=/tmp/ranex-build.log
# The report holds what this run wrote: Surefire keeps the reports of an earlier run on the same tree
# (a repeat follows its main run there, and may run only some modules), so they are removed first.
find . -path ./.ranex-deps -prune -o -type d -path '*/target/surefire-reports' -prune -exec rm -rf {} + 2>/dev/null
exec 3>&1
result=$( { { "$@" -Dmaven.test.failure.ignore=true 2>&1 3>&- 4>&-; echo "build $?" >&4; } \
  | awk -v file="$log" '{ print; fflush(); print > file } /<<< (FAILURE|ERROR)!/ { red = 1 } END { close(file); printf "tests %d\n", red > "/dev/fd/4" }' >&3; } 4>&1 )
build=$(printf '%s\n' "$result" | sed -n 's/^build \([0-9][0-9]*\)$/\1/p' | head -n 1)
case "$build" in
  "") status=1 ;;
  0) if printf '%s\n' "$result" | grep -qx 'tests 0'; then status=0; else status=1; fi ;;
  *) status=$build ;;
esac
sh "$(dirname "$0")/junit-merge.sh" "$log"
exit "$status"
