import { describe, expect, it } from "vitest";
import { dataReadByFrozen, isDataPath, literalDataPaths, MAX_DATA_FILES } from "../../../src/measure/diff/test-data.js";
import { emptyRecord, parseRecord } from "../../../src/measure/provenance/record.js";

// The data the frozen tests read (issue 19): literal paths in a frozen file's text, and the record's
// reads joined with them. Pure.

const paths = new Set([
  "tests/test_a.py", "tests/data/x.json", "data/expected.csv", "src/pkg/examples/means.json", "src/pkg/stats.py",
  "test/a.test.js", "test/fixtures/a.json", "fixtures/b.txt", "README.md",
]);

describe("literalDataPaths", () => {
  it("reads Python's open() from the root, pathlib's joins beside the file, and .. above it", () => {
    const text = [
      'open("data/expected.csv")',
      'Path(__file__).parent / "data" / "x.json"',
      'os.path.join(os.path.dirname(__file__), "..", "src", "pkg", "examples", "means.json")',
      'import src.pkg.stats  # code is never data: "src/pkg/stats.py"',
    ].join("\n");
    expect(literalDataPaths("tests/test_a.py", text, paths)).toEqual(["data/expected.csv", "src/pkg/examples/means.json", "tests/data/x.json"]);
  });

  it("reads path.join(__dirname, …), a + concatenation and a template literal", () => {
    const text = "readFileSync(path.join(__dirname, 'fixtures', 'a.json'));\nfs.readFileSync(__dirname + '/../fixtures/b.txt');\nconst t = `README.md`;";
    expect(literalDataPaths("test/a.test.js", text, paths)).toEqual(["README.md", "fixtures/b.txt", "test/fixtures/a.json"]);
  });

  it("names nothing the base lacks, nothing with a substitution, and never the file itself", () => {
    expect(literalDataPaths("test/a.test.js", "read(`fixtures/${name}.json`); read('test/a.test.js'); read('nope.json')", paths)).toEqual([]);
  });

  it("leaves code and caches out", () => {
    expect(isDataPath("a/b.json")).toBe(true);
    expect(isDataPath("a/b.py")).toBe(false);
    expect(isDataPath("a/__pycache__/b.txt")).toBe(false);
    expect(isDataPath("node_modules/x/data.json")).toBe(false);
  });
});

describe("dataReadByFrozen", () => {
  const frozen = new Set(["tests/test_a.py", "test/a.test.js", "tests/data/x.json"]);
  const base = { paths, isFrozen: (p: string) => frozen.has(p) };

  it("keeps what a frozen file opened or names, never what other code opened or the run wrote, nor what is frozen already", () => {
    const record = {
      ...emptyRecord(),
      data: [
        { path: "src/pkg/examples/means.json", by: "tests/test_a.py" },
        { path: "fixtures/b.txt", by: "src/pkg/stats.py" },
        { path: "data/expected.csv", by: "tests/test_a.py" },
        { path: "tests/data/x.json", by: "tests/test_a.py" },
        { path: "README.md", by: "" },
      ],
      written: ["data/expected.csv"],
    };
    const named = new Map([["test/a.test.js", ["test/fixtures/a.json", "src/pkg/examples/means.json"]], ["src/pkg/stats.py", ["README.md"]]]);
    expect(dataReadByFrozen(record, base, named)).toEqual([
      { path: "src/pkg/examples/means.json", by: ["test/a.test.js", "tests/test_a.py"], seen: ["run", "text"] },
      { path: "test/fixtures/a.json", by: ["test/a.test.js"], seen: ["text"] },
    ]);
  });

  it("keeps the first files by path past the bound, and takes a record cached before data was kept", () => {
    const many = new Set([...paths, ...Array.from({ length: MAX_DATA_FILES + 5 }, (_, i) => `d/${String(i).padStart(5, "0")}.txt`)]);
    const record = { ...emptyRecord(), data: [...many].filter((p) => p.startsWith("d/")).reverse().map((path) => ({ path, by: "tests/test_a.py" })) };
    const found = dataReadByFrozen(record, { paths: many, isFrozen: base.isFrozen }, new Map());
    expect(found).toHaveLength(MAX_DATA_FILES);
    expect(found[0]!.path).toBe("d/00000.txt");
    const { data: _data, written: _written, ...old } = emptyRecord();
    expect(dataReadByFrozen(old, base, new Map())).toEqual([]);
  });
});

describe("the record's data lines", () => {
  it("keeps reads and writes of the tree relative to it, each once, and drops paths outside it", () => {
    const lines = [
      { k: "data", pid: 1, p: "/work/src/pkg/examples/means.json", by: "/work/tests/test_a.py" },
      { k: "data", pid: 1, p: "/work/src/pkg/examples/means.json", by: "/work/tests/test_a.py" },
      { k: "data", pid: 1, p: "/etc/passwd", by: "" },
      { k: "wrote", pid: 1, p: "/work/out.txt" },
    ].map((l) => JSON.stringify(l)).join("\n");
    const record = parseRecord(lines, "/work");
    expect(record.data).toEqual([{ path: "src/pkg/examples/means.json", by: "tests/test_a.py" }]);
    expect(record.written).toEqual(["out.txt"]);
    expect(record.dropped).toBe(1);
  });
});

describe("configurations are no readers of test data", () => {
  it("leaves out what a frozen vite or jest configuration reads or names", () => {
    const all = new Set([...paths, "vite.config.ts", "index.html", "jest.config.js"]);
    const frozen = new Set(["vite.config.ts", "jest.config.js", "tests/test_a.py"]);
    const record = { ...emptyRecord(), data: [{ path: "index.html", by: "vite.config.ts" }, { path: "README.md", by: "jest.config.js" }] };
    const named = new Map([["vite.config.ts", ["index.html"]], ["tests/test_a.py", ["README.md"]]]);
    expect(dataReadByFrozen(record, { paths: all, isFrozen: (p) => frozen.has(p) }, named)).toEqual([
      { path: "README.md", by: ["tests/test_a.py"], seen: ["text"] },
    ]);
  });
});
