// The fix line for a Maven or Gradle run that could not get its dependencies (issue 22): the general
// hints speak of npm's devDependencies and Python's imports, which send a Java user the wrong way
// (zalando/problem's setup failure said "add it to devDependencies").

// Maven's "[ERROR] ... Could not resolve dependencies / Could not transfer artifact / Non-resolvable
// parent POM / ... was not found in ... during a previous attempt", Gradle's "Could not resolve all
// files for configuration" and "Could not resolve <group:name:version>".
const MAVEN = /\[ERROR\][^\n]*(?:Could not (?:resolve|transfer|find artifact)|Non-resolvable|could not be resolved|Unresolveable|was not found in|offline mode and the artifact)/;
const GRADLE = /Could not resolve all (?:files|dependencies|artifacts) for configuration|Could not resolve [\w.-]+:[\w.-]+|No cached version of [\w.-]+:[\w.-]+/;

/** The fix for a JVM build's missing dependency, or null when the output shows none. `setup`: the setup failed (it has the network). */
export function jvmDependencyFix(output: string, setup: boolean): string | null {
  const build = MAVEN.test(output) ? "maven" : GRADLE.test(output) ? "gradle" : null;
  if (build === null) return null;
  const by = build === "maven" ? "Maven" : "Gradle";
  const byHand = build === "maven" ? "mvn -B test" : "gradle test (or ./gradlew test)";
  if (setup) {
    return `${by} could not download a dependency or plugin in setup: the setup fetches them with the network (setup_network: true), and only the package registries (Maven Central) are reachable; `
      + `run ${byHand} in a fresh clone to see which artifact, and check the build's repositories and versions (a sibling module's SNAPSHOT must be built by the same reactor, not fetched)`;
  }
  return `${by} ran offline and needed an artifact the setup did not fetch (a plugin or dependency only a later phase or another profile resolves): `
    + `add a step that resolves it to tests.setup (e.g. ${build === "maven" ? "mvn -B dependency:resolve-plugins" : "gradle dependencies"}), then run ranex init again so the cache is filled anew`;
}
