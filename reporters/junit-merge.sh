#!/bin/sh
# Merges the JUnit XML files a JVM build leaves (Maven Surefire's target/surefire-reports/TEST-*.xml,
# Gradle's build/test-results/<task>/TEST-*.xml, in every module) into one report at $RANEX_REPORT.
# With a build log as argument, each test source the compiler rejected (Maven's "[ERROR] /path/X.java:[l,c]
# why", javac's own "/path/X.java:l: error: why" as Gradle prints it) becomes a testcase named by its
# path, which the gate reads as a file that failed to load.
# `ranex init` writes it for Maven and Gradle repositories:
#   mvn ... test > /tmp/build.log 2>&1; status=$?; sh "$RANEX_REPORTERS/junit-merge.sh" /tmp/build.log; exit $status
#   gradle ... test > /tmp/build.log 2>&1; status=$?; sh "$RANEX_REPORTERS/junit-merge.sh" /tmp/build.log; exit $status
set -u
tab=$(printf '\t')
out="${RANEX_REPORT:?RANEX_REPORT is not set}"
escape() { sed -e 's/&/\&amp;/g' -e 's/</\&lt;/g' -e 's/>/\&gt;/g' -e 's/"/\&quot;/g'; }
{
  printf '<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n'
  find . \( -path '*/target/surefire-reports/TEST-*.xml' -o -path '*/build/test-results/*/TEST-*.xml' \) -type f \
    -not -path './.ranex-deps/*' | LC_ALL=C sort | while IFS= read -r file; do
    # The module is the folder that holds target/ or build/ ("" at the root). A module's reports go in a
    # suite named `ranex-module=<folder>` (`%` and `/` percent-written, so the name is no path), and two
    # modules' classes of one name keep their ids and files apart (src/runners/jvm-ids.ts).
    module=$(printf '%s' "$file" | sed -E -e 's#^\./##' -e 's#(^|/)(target/surefire-reports|build/test-results)/.*$##' -e 's#%#%25#g' -e 's#/#%2F#g')
    [ -n "$module" ] && printf '<testsuite name="ranex-module=%s">' "$(printf '%s' "$module" | escape)"
    sed -e '1s/^[[:space:]]*<?xml[^>]*?>//' "$file"
    [ -n "$module" ] && printf '</testsuite>'
    printf '\n'
  done
  if [ "$#" -ge 1 ] && [ -f "$1" ]; then
    # Maven: "[ERROR] /path/X.java:[7,41] why"; Gradle (javac's own format): "/path/X.java:7: error: why".
    sed -n -E -e 's/^\[ERROR\] (\/[^:]+\.(java|kt|groovy|scala)):\[[0-9,]+\] (.*)$/\1\t\3/p' \
      -e 's/^(\/[^:]+\.(java|groovy|scala)):[0-9]+: error: (.*)$/\1\t\3/p' "$1" | while IFS="$tab" read -r path why; do
      rel=${path#"$PWD"/}
      case "$rel" in /*) continue ;; esac
      rel=$(printf '%s' "$rel" | escape)
      why=$(printf '%s' "$why" | escape)
      printf '<testsuite name="%s" tests="1"><testcase classname="%s" name="%s"><error message="%s"/></testcase></testsuite>\n' "$rel" "$rel" "$rel" "$why"
    done | awk '!seen[$0]++'
  fi
  printf '</testsuites>\n'
} > "$out"
