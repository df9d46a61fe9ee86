#!/bin/sh
# Runs Gradle for the gate's test command, as `ranex init` writes it for Gradle repositories:
#   sh "$RANEX_REPORTERS/gradle/run.sh" gradle --offline ... -I "$RANEX_REPORTERS/gradle/console.gradle" test
# - Gradle's output goes to the gate as it is printed (this script's stdout is the run's output), and
#   to /tmp/ranex-build.log for junit-merge.sh's compile errors. The gate compares the line
#   console.gradle prints for each test class with the JUnit XML (src/runners/maven-console.ts): the
#   test worker, which can rewrite files under build/ and in /tmp, cannot take back what already left
#   through the pipe (before, the log was written to /tmp and printed after Gradle ended).
# - The exit status is Gradle's own, through a pipe of this shell's own (fd 4), which Gradle and its
#   test workers do not inherit.
# - Then junit-merge.sh writes the report at $RANEX_REPORT.
set -u
log=/tmp/ranex-build.log
exec 3>&1
result=$( { { "$@" 2>&1 3>&- 4>&-; echo "build $?" >&4; } \
  | awk -v file="$log" '{ print; fflush(); print > file } END { close(file) }' >&3; } 4>&1 )
status=$(printf '%s\n' "$result" | sed -n 's/^build \([0-9][0-9]*\)$/\1/p' | head -n 1)
[ -n "$status" ] || status=1
sh "$(dirname "$0")/../junit-merge.sh" "$log"
exit "$status"
