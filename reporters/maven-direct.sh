#!/bin/sh
# tests.stable's repeat of selected methods on a Maven tree a run of the gate's command already built,
# without starting Maven (issue 22): the gate's JUnit Platform launcher (reporters/jvm/RanexRepeat.java)
# in a JVM of its own, on the test classpath Surefire used for the module in that run (its
# `surefire.test.class.path`, in the module's Surefire reports), plus the junit-platform-launcher
# Surefire resolved for it in setup. src/runners/maven-direct.ts writes it before the Maven selection:
#   sh "$RANEX_REPORTERS/maven-direct.sh" '<module folder>' 'ex.CalcTest#a+b'; s=$?; [ "$s" = 90 ] || exit "$s"; <mvn -Dtest ...>
# Exit 90 (and no report) when it cannot stand for Surefire's run: no report of the module to take the
# classpath from, no JUnit Platform on it, the launcher does not compile, a selected test is not a
# plain method. The caller then runs Maven, as it did before. Otherwise the launcher's own status:
# 0 every selected test passed, 1 one did not (its outcome stands: the repeat ran).
set -u
module=$1
tests=$2
dir=${module:-.}
no() { echo "ranex-repeat: $1: Maven runs the repeat"; exit 90; }
# The class path is read from a report of the module's last run; an escaped character makes it unreadable here.
xml=$(ls "$dir"/target/surefire-reports/TEST-*.xml 2>/dev/null | head -n 1)
[ -n "$xml" ] || no "no Surefire report in $dir to take the class path from"
cp=$(sed -n 's/^ *<property name="surefire.test.class.path" value="\([^"&<]*\)"\/>.*$/\1/p' "$xml" | head -n 1)
[ -n "$cp" ] || no "no readable surefire.test.class.path in $xml"
# The Platform's launcher at the engine's version, as Surefire adds it, unless the class path has one.
launcher=
case ":$cp:" in
  *junit-platform-launcher-*) ;;
  *)
    engine=$(printf '%s\n' "$cp" | tr ':' '\n' | grep '/junit-platform-engine-[^/]*\.jar$' | head -n 1)
    [ -n "$engine" ] || no "no JUnit Platform engine on the class path"
    version=$(basename "$(dirname "$engine")")
    launcher="$(dirname "$(dirname "$(dirname "$engine")")")/junit-platform-launcher/$version/junit-platform-launcher-$version.jar"
    [ -f "$launcher" ] || no "no junit-platform-launcher $version in the local repository"
    launcher=":$launcher"
    ;;
esac
# Compiled once per tree (the repeats of one tree follow one another), named by the source's checksum.
src="$RANEX_REPORTERS/jvm/RanexRepeat.java"
classes="$PWD/$dir/target/ranex-repeat-$(cksum < "$src" | cut -d ' ' -f 1)"
if [ ! -f "$classes/RanexRepeat.class" ]; then
  rm -rf "$classes.tmp"
  javac -J-XX:TieredStopAtLevel=1 -J-XX:+UseSerialGC -nowarn -encoding UTF-8 -d "$classes.tmp" -cp "$cp$launcher" "$src" >/tmp/ranex-repeat-javac.log 2>&1 \
    && mv "$classes.tmp" "$classes" || no "the gate's launcher did not compile against this JUnit Platform ($(head -c 300 /tmp/ranex-repeat-javac.log))"
fi
# Surefire's fork: the module's folder as working directory, assertions enabled, `basedir` set (the
# launcher sets the rest of the fork's system properties from the report).
xml="$PWD/$xml"
cd "$dir" || no "no folder $dir"
exec java -ea -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Dbasedir="$PWD" -cp "$classes:$cp$launcher" RanexRepeat "$RANEX_REPORT" "$module" "$tests" /tmp/ranex-repeat-output.txt "$xml"
