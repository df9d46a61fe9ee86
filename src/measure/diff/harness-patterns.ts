// What the harness-reference scan looks for (issue 3, "The limit to state honestly"; issue 11, "The
// diff rules catch the rest they can"). Code under test runs inside the test runner's process, so it
// can try to lie: patch the runner, reach it without naming it, write the report itself, or leave
// with exit status 0 before a failure is recorded. A pattern is a tripwire, not a proof: it makes the
// attempt visible to the person who decides, and each one has an honest counter-example it spares.

export interface HarnessPattern {
  name: string;
  pattern: RegExp;
  /**
   * `all`: flagged in added non-test code and in the PR's new test files alike. `code`: only in
   * non-test code, because honest tests do it every day (stub `process.exit`, patch `sys.modules`,
   * write an `.xml` fixture, drop a module from `require.cache`). `test`: a narrower form of a
   * `code` pattern, for test files only.
   */
  scope: "all" | "code" | "test";
}

// Runner module names a lookup in sys.modules would be after.
const PY_RUNNERS = String.raw`_?pytest|pluggy|unittest|nose2?|xdist|py\.test`;

// jest's and vitest's built-in matchers: a test file that redefines one decides its own outcome.
const JEST_MATCHERS = [
  "toBe", "toEqual", "toStrictEqual", "toBeTruthy", "toBeFalsy", "toBeNull", "toBeUndefined", "toBeDefined", "toBeNaN",
  "toContain", "toContainEqual", "toMatch", "toMatchObject", "toThrow", "toThrowError", "toHaveLength", "toHaveProperty",
  "toHaveBeenCalled", "toHaveBeenCalledWith", "toHaveBeenCalledTimes", "toHaveBeenLastCalledWith", "toHaveReturned",
  "toBeCloseTo", "toBeGreaterThan", "toBeGreaterThanOrEqual", "toBeLessThan", "toBeLessThanOrEqual", "toBeInstanceOf",
  "toMatchSnapshot", "toMatchInlineSnapshot",
].join("|");

export const HARNESS_PATTERNS: readonly HarnessPattern[] = [
  // --- Python: the runner, its hooks and its plugin machinery.
  { name: "_pytest", pattern: /\b_pytest\b/, scope: "all" },
  // A hook definition anywhere but a frozen conftest.py (which diff.frozen guards): `def pytest_…`.
  { name: "a pytest hook definition", pattern: /\b(?:async\s+)?def\s+pytest_\w+/, scope: "all" },
  {
    name: "a pytest hook",
    pattern: /\bpytest_(?:plugins|runtest_\w+|collection\w*|session\w+|configure|unconfigure|terminal_summary|report_\w+|make\w+|load_initial_conftests|cmdline_\w+|addoption|itemcollected|deselected|ignore_collect|pycollect_\w+|pyfunc_call|generate_tests|fixture_\w+|assertrepr_compare|warning_recorded)\b/,
    scope: "all",
  },
  { name: "a pluggy hook implementation", pattern: /\bhook(?:impl|wrapper)\b|\bpluggy\b|\bpluginmanager\b|\bconfig\s*\.\s*pluginmanager\b/i, scope: "all" },
  // Non-test code has no reason to touch the module table at all; tests do (monkeypatching), so in
  // them only a lookup of the runner, a walk over every module, or a key built at run time counts.
  { name: "sys.modules", pattern: /\bsys\s*\.\s*modules\b/, scope: "code" },
  {
    name: "a lookup of the runner in sys.modules",
    pattern: new RegExp(String.raw`\bsys\s*\.\s*modules\b.*["'](?:${PY_RUNNERS})\b|["'](?:${PY_RUNNERS})["'.].*\bsys\s*\.\s*modules\b`
      + String.raw`|\bsys\s*\.\s*modules\s*\.\s*(?:values|items|keys|copy)\s*\(|\b(?:list|dict|tuple|sorted|iter)\s*\(\s*sys\s*\.\s*modules\b`
      + String.raw`|\bin\s+sys\s*\.\s*modules\s*:|\bsys\s*\.\s*modules\s*\[[^\]]*(?:\+|\bf["']|\.join\b|%)|\bgetattr\s*\(\s*sys\s*,\s*["']modules["']`),
    scope: "test",
  },
  // The garbage collector hands out every live object: the runner's hooks and reports included.
  { name: "the garbage collector's object lists", pattern: /\bget_(?:objects|referrers|referents)\b/, scope: "all" },
  // Any `_exit`: os._exit, an aliased module (`import os as o; o._exit`), `from os import _exit`, getattr.
  { name: "_exit", pattern: /\b_exit\b/, scope: "all" },
  { name: "atexit", pattern: /\batexit\b/, scope: "all" },

  // --- Node: leaving early, the module loader and its hooks, options that load code first.
  { name: "process.exit", pattern: /\bprocess\s*(?:\.\s*(?:exit|reallyExit|exitCode)\b|\[\s*["'`](?:exit|reallyExit|exitCode)["'`])/, scope: "code" },
  { name: "require.cache", pattern: /\brequire\s*\.\s*cache\b/, scope: "code" },
  { name: "require.extensions", pattern: /\brequire\s*\.\s*extensions\b/, scope: "all" },
  {
    name: "a module loader internal",
    pattern: /\bModule\s*\.\s*(?:_load|_resolveFilename|_extensions|_compile|_pathCache|_findPath|_nodeModulePaths|_initPaths|wrap(?:per)?|prototype\s*\.\s*(?:require|_compile|load))\b|\bmodule\s*\.\s*constructor\s*\.\s*_\w+/,
    scope: "all",
  },
  {
    name: "a module loader hook",
    pattern: /\b(?:module|Module)\s*\.\s*register(?:Hooks)?\s*\(|\{[^}]*\bregister(?:Hooks)?\b[^}]*\}\s*(?:from|=\s*(?:await\s+import|require)\s*\(?)\s*["'`](?:node:)?module["'`]|["'`](?:node:)?module["'`]\s*\)\s*\)?\s*\.\s*register(?:Hooks)?\b|\b(?:resolve|load)\s*:\s*async\b.*\bnextLoad\b|\bnext(?:Resolve|Load)\s*\(/,
    scope: "all",
  },
  { name: "a Node option that loads code first", pattern: /--(?:experimental-)?loader\b|--import\b|--require\b|\bNODE_OPTIONS\b/, scope: "all" },
  // jest's and vitest's assertion library replaced in a test file's own context (issue 19): a
  // built-in matcher redefined (`expect.extend({ toBe: … })`, a `toBe(…) {` method, `.toBe = …`) or
  // `expect` itself reassigned. The head run's canary has an `expect` of its own (each test file gets
  // one), so it cannot see this; a tripwire until a canary runs in the PR's own test files' context.
  {
    name: "a redefinition of a built-in jest/vitest matcher",
    pattern: new RegExp(String.raw`(?:(?<![.\w$])|["'\x60])(?:${JEST_MATCHERS})["'\x60]?\s*(?::\s*(?:async\s+)?(?:function\b|\([^)]*\)\s*=>|[\w$]+\s*=>)|\([^)]*\)\s*\{)|\.\s*(?:${JEST_MATCHERS})\s*=(?!=)|\[\s*["'\x60](?:${JEST_MATCHERS})["'\x60]\s*\]\s*=(?!=)`),
    scope: "all",
  },
  {
    name: "a reassignment of expect",
    pattern: /\b(?:global|globalThis|window|self)\s*\.\s*expect\s*=(?!=)|(?<![.\w$]|(?:const|let|var)\s+)expect\s*=(?![=>])|\bdefineProperty\s*\(\s*(?:global|globalThis)\s*,\s*["'`]expect["'`]/,
    scope: "all",
  },
  // jest's and vitest's equality asks a value with an `asymmetricMatch` function whether it matches,
  // on either side: code under test returning `{ asymmetricMatch: () => true }` passes every
  // `toEqual` of a frozen test (issue 19, values that lie about themselves). Under the gate's jest and
  // vitest launchers the received values are walked at run time too (src/runners/lying-received.ts);
  // this catches the word where no launcher runs. Tests write their own matchers every day; code
  // under test has no reason to speak it.
  { name: "jest's and vitest's asymmetric matcher protocol", pattern: /\basymmetricMatch\b|\bjest\.asymmetricMatcher\b/, scope: "code" },
  // vitest's and jest's globals for the running worker and test state.
  { name: "the test runner's internal state", pattern: /\b__vitest_\w+__|\bjest-circus\b/, scope: "all" },
  // Code that asks which test is running can answer differently under test; tests may name snapshots by it.
  { name: "the name of the running test", pattern: /\bcurrentTestName\b|\bPYTEST_CURRENT_TEST\b/, scope: "code" },

  // A Python coding cookie decides how the rest of the file is decoded: with utf-7 (or any codec
  // but the plain ones) a line every reader and this scan take for a comment can be code (issue 19).
  {
    name: "a Python coding cookie for an encoding that can hide code",
    pattern: /^[ \t\f]*#.*?coding[:=][ \t]*(?!(?:utf[-_]?8|ascii|us-ascii|latin[-_]?1|iso[-_]?8859[-_]1|cp1252)(?:-sig)?\b)[-\w.]+/i,
    scope: "all",
  },

  // --- The report itself.
  { name: "RANEX_JUNIT", pattern: /RANEX_JUNIT/, scope: "all" },
  { name: "junitxml", pattern: /junit[_-]?xml/i, scope: "code" },
  // A write whose destination is a `.xml` path: the report is the one thing the runner produces.
  { name: "a write to an .xml report", pattern: /(?:\b(?:open|write\w*|createWriteStream|appendFile\w*|copyFile\w*|rename\w*)\s*\([^)]*\.xml\b|>>?\s*["'`]?[^\s"'`]*\.xml\b)/i, scope: "code" },
];
