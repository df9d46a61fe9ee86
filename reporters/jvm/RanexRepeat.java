// The gate's own JUnit Platform launcher for tests.stable's repeats on a Maven tree a run already built
// (issue 22; reporters/maven-direct.sh starts it, src/runners/maven-direct.ts says when). It runs the
// selected methods once, in a JVM of their own, on the test classpath Surefire used for the module,
// which skips Maven's start (about two thirds of a selected run's CPU). It says what it did as Maven
// would: a `Tests run: ... <<< FAILURE! -- in <class>` line for every class with a failed or errored
// test, printed to the run's output before any report is written (src/runners/maven-console.ts
// compares them), and a JUnit report in Surefire's form at the path it is given, its module's suite
// named `ranex-module=<folder>` as reporters/junit-merge.sh names it.
// The system properties Surefire's fork had (its report's <properties>: the pom's
// systemPropertyVariables, Surefire's own) are set before any test runs, as Surefire's booter sets them.
// Usage: java -cp <this>:<test classpath>:<junit-platform-launcher> RanexRepeat <report> <module> <Class#a+b,Other#c> <output file> <a Surefire report of the module>
// Exit: 0 every selected test passed, 1 one did not, 90 it cannot stand for Surefire's run (a test
// named otherwise than a plain method: a parameterized or dynamic test; the fork's JVM was started
// with a property the JVM defines at its start set otherwise, an argLine's -Dfile.encoding say):
// then no report is written, and the caller runs Maven.
import java.io.FileOutputStream;
import java.io.OutputStreamWriter;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.platform.engine.FilterResult;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.engine.TestSource;
import org.junit.platform.engine.discovery.DiscoverySelectors;
import org.junit.platform.engine.support.descriptor.MethodSource;
import org.junit.platform.launcher.Launcher;
import org.junit.platform.launcher.LauncherDiscoveryRequest;
import org.junit.platform.launcher.PostDiscoveryFilter;
import org.junit.platform.launcher.TestExecutionListener;
import org.junit.platform.launcher.TestIdentifier;
import org.junit.platform.launcher.core.LauncherDiscoveryRequestBuilder;
import org.junit.platform.launcher.core.LauncherFactory;

public final class RanexRepeat {
  private RanexRepeat() {}

  /** One test's outcome, in Surefire's words. */
  private static final class Case {
    final String className;
    final String name;
    String kind = "passed"; // passed, failure, error, skipped
    String message = "";
    String type = "";
    String trace = "";
    long started = System.nanoTime();
    double seconds;

    Case(String className, String name) {
      this.className = className;
      this.name = name;
    }
  }

  public static void main(String[] args) throws Exception {
    String report = args[0];
    String module = args[1];
    Map<String, Set<String>> wanted = new LinkedHashMap<>();
    for (String part : args[2].split(",")) {
      int hash = part.indexOf('#');
      Set<String> methods = wanted.computeIfAbsent(part.substring(0, hash), k -> new HashSet<>());
      for (String m : part.substring(hash + 1).split("\\+")) methods.add(m);
    }
    String why = replayProperties(new String(Files.readAllBytes(Paths.get(args[4])), StandardCharsets.UTF_8));
    if (why != null) {
      System.out.println("ranex-repeat: " + why + ": Maven runs the repeat");
      System.exit(90);
    }
    // Test output goes to a file, as Surefire's redirectTestOutputToFile has it: the run's output holds the launcher's lines.
    PrintStream out = System.out;
    PrintStream testOutput = new PrintStream(new FileOutputStream(args[3], true), true, "UTF-8");
    System.setOut(testOutput);
    System.setErr(testOutput);

    LauncherDiscoveryRequestBuilder request = LauncherDiscoveryRequestBuilder.request();
    for (String cls : wanted.keySet()) request.selectors(DiscoverySelectors.selectClass(cls));
    // Only the named methods of each class, as Surefire's -Dtest=Class#a+b filter has it.
    PostDiscoveryFilter only = descriptor -> {
      Optional<TestSource> source = descriptor.getSource();
      if (!source.isPresent() || !(source.get() instanceof MethodSource)) return FilterResult.included("container");
      MethodSource method = (MethodSource) source.get();
      Set<String> methods = wanted.get(method.getClassName());
      return methods != null && methods.contains(method.getMethodName()) ? FilterResult.included("selected") : FilterResult.excluded("not selected");
    };
    request.filters(only);
    LauncherDiscoveryRequest built = request.build();

    List<Case> cases = new ArrayList<>();
    Map<String, Case> running = new HashMap<>();
    boolean[] unreadable = {false};
    TestExecutionListener listener = new TestExecutionListener() {
      @Override
      public void executionStarted(TestIdentifier id) {
        if (!id.isTest()) return;
        Optional<TestSource> source = id.getSource();
        MethodSource method = source.isPresent() && source.get() instanceof MethodSource ? (MethodSource) source.get() : null;
        // Surefire names a plain @Test method by its name; any other test (an invocation, a dynamic test) otherwise.
        if (method == null || !id.getLegacyReportingName().equals(method.getMethodName() + "()")) {
          unreadable[0] = true;
          return;
        }
        Case c = new Case(method.getClassName(), method.getMethodName());
        running.put(id.getUniqueId(), c);
        cases.add(c);
      }

      @Override
      public void executionSkipped(TestIdentifier id, String reason) {
        if (!id.isTest()) return;
        Optional<TestSource> source = id.getSource();
        if (!source.isPresent() || !(source.get() instanceof MethodSource)) {
          unreadable[0] = true;
          return;
        }
        MethodSource method = (MethodSource) source.get();
        Case c = new Case(method.getClassName(), method.getMethodName());
        c.kind = "skipped";
        c.message = reason == null ? "" : reason;
        cases.add(c);
      }

      @Override
      public void executionFinished(TestIdentifier id, TestExecutionResult result) {
        Case c = running.remove(id.getUniqueId());
        if (c == null) return;
        c.seconds = (System.nanoTime() - c.started) / 1e9;
        if (result.getStatus() == TestExecutionResult.Status.SUCCESSFUL) return;
        if (result.getStatus() == TestExecutionResult.Status.ABORTED) {
          c.kind = "skipped";
        } else {
          Throwable t = result.getThrowable().orElse(null);
          c.kind = t instanceof AssertionError ? "failure" : "error";
          if (t != null) {
            c.type = t.getClass().getName();
            c.message = String.valueOf(t.getMessage());
            StringWriter trace = new StringWriter();
            t.printStackTrace(new PrintWriter(trace));
            c.trace = trace.toString();
          }
        }
      }
    };
    Launcher launcher = LauncherFactory.create();
    launcher.execute(built, listener);
    System.setOut(out);
    System.setErr(out);
    if (unreadable[0]) {
      out.println("ranex-repeat: a selected test is not a plain method (a parameterized or dynamic test): Maven runs the repeat");
      out.flush();
      System.exit(90);
    }
    // Maven's line for each class with a failed or errored test, printed before the report exists.
    Map<String, List<Case>> byClass = new LinkedHashMap<>();
    for (Case c : cases) byClass.computeIfAbsent(c.className, k -> new ArrayList<>()).add(c);
    boolean red = false;
    for (Map.Entry<String, List<Case>> e : byClass.entrySet()) {
      int failures = 0;
      int errors = 0;
      int skipped = 0;
      double seconds = 0;
      for (Case c : e.getValue()) {
        if (c.kind.equals("failure")) failures++;
        if (c.kind.equals("error")) errors++;
        if (c.kind.equals("skipped")) skipped++;
        seconds += c.seconds;
      }
      String line = String.format("Tests run: %d, Failures: %d, Errors: %d, Skipped: %d, Time elapsed: %.3f s", e.getValue().size(), failures, errors, skipped, seconds);
      if (failures + errors > 0) {
        red = true;
        out.println("[ERROR] " + line + " <<< FAILURE! -- in " + e.getKey());
      } else {
        out.println("ranex-repeat: " + line + " in " + e.getKey());
      }
    }
    out.flush();
    try (Writer w = new OutputStreamWriter(new FileOutputStream(report), StandardCharsets.UTF_8)) {
      w.write("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n");
      if (!module.isEmpty()) w.write("<testsuite name=\"ranex-module=" + xml(module.replace("%", "%25").replace("/", "%2F")) + "\">");
      for (Map.Entry<String, List<Case>> e : byClass.entrySet()) {
        w.write("<testsuite name=\"" + xml(e.getKey()) + "\" tests=\"" + e.getValue().size() + "\">\n");
        for (Case c : e.getValue()) {
          w.write("  <testcase name=\"" + xml(c.name) + "\" classname=\"" + xml(c.className) + "\" time=\"" + String.format("%.3f", c.seconds) + "\"");
          if (c.kind.equals("passed")) {
            w.write("/>\n");
          } else if (c.kind.equals("skipped")) {
            w.write("><skipped message=\"" + xml(c.message) + "\"/></testcase>\n");
          } else {
            w.write("><" + c.kind + " message=\"" + xml(c.message) + "\" type=\"" + xml(c.type) + "\">" + xml(c.trace) + "</" + c.kind + "></testcase>\n");
          }
        }
        w.write("</testsuite>\n");
      }
      if (!module.isEmpty()) w.write("</testsuite>\n");
      w.write("</testsuites>\n");
    }
    out.println("ranex-repeat: done");
    out.flush();
    System.exit(red ? 1 : 0);
  }

  // Set by the launch itself, not by the pom: the booter's command line, the JIT's description.
  private static final Set<String> LAUNCH = new HashSet<>(java.util.Arrays.asList("sun.java.command", "java.vm.info", "sun.management.compiler"));
  private static final Pattern PROPERTY = Pattern.compile("<property name=\"([^\"]*)\" value=\"([^\"]*)\"\\s*/>");

  /** Sets the fork's system properties; why not, when one the JVM reads at its start differs. */
  private static String replayProperties(String report) {
    Matcher m = PROPERTY.matcher(report);
    while (m.find()) {
      String name = unxml(m.group(1));
      String value = unxml(m.group(2));
      if (LAUNCH.contains(name) || value.equals(System.getProperty(name))) continue;
      // A property the JVM itself defines at its start, with another value there: an option this JVM was not given.
      // One the JVM does not define (java.util.logging.config.file from systemPropertyVariables) is set as Surefire sets it.
      boolean jvm = name.matches("(?:java|jdk|sun|file|os|user|native|line|path)\\..*") && !name.equals("java.class.path") && System.getProperty(name) != null;
      if (jvm) return "the test JVM Surefire forked had " + name + "=" + value + ", this one " + System.getProperty(name);
      System.setProperty(name, value);
    }
    return null;
  }

  private static String unxml(String s) {
    Matcher m = Pattern.compile("&(#x[0-9a-fA-F]+|#[0-9]+|amp|lt|gt|quot|apos);").matcher(s);
    StringBuffer b = new StringBuffer();
    while (m.find()) {
      String e = m.group(1);
      String r = e.equals("amp") ? "&" : e.equals("lt") ? "<" : e.equals("gt") ? ">" : e.equals("quot") ? "\"" : e.equals("apos") ? "'"
          : new String(Character.toChars(e.startsWith("#x") ? Integer.parseInt(e.substring(2), 16) : Integer.parseInt(e.substring(1))));
      m.appendReplacement(b, Matcher.quoteReplacement(r));
    }
    m.appendTail(b);
    return b.toString();
  }

  private static String xml(String s) {
    StringBuilder b = new StringBuilder();
    for (char ch : s.toCharArray()) {
      switch (ch) {
        case '&': b.append("&amp;"); break;
        case '<': b.append("&lt;"); break;
        case '>': b.append("&gt;"); break;
        case '"': b.append("&quot;"); break;
        default:
          if (ch < 0x20 && ch != '\n' && ch != '\t' && ch != '\r') b.append(' ');
          else b.append(ch);
      }
    }
    return b.toString();
  }
}
