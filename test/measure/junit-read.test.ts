import { copyFileSync, mkdirSync, symlinkSync, truncateSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readJunitReport } from "../../src/measure/junit-read.js";
import { tempDir } from "../helpers/git-repo.js";

const FIXTURES = join(import.meta.dirname, "fixtures", "junit");

function tree(): string {
  const dir = tempDir("ranex-junit-tree-");
  mkdirSync(join(dir, "tests"));
  writeFileSync(join(dir, "tests", "test_calc.py"), "def test_add():\n    pass\n");
  writeFileSync(join(dir, "tests", "test_broken.py"), "import nothing\n");
  return dir;
}

function report(text: string | Buffer): string {
  const file = join(tempDir("ranex-junit-out-"), "junit.xml");
  writeFileSync(file, text);
  return file;
}

const GOOD = `<?xml version="1.0" encoding="utf-8"?><testsuites><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_add"/></testsuite></testsuites>`;

describe("readJunitReport", () => {
  it("reads a real pytest report and maps classnames through the materialised tree", async () => {
    const file = join(tempDir("ranex-junit-out-"), "junit.xml");
    copyFileSync(join(FIXTURES, "pytest.xml"), file);
    const result = await readJunitReport(file, tree());
    if (!("report" in result)) throw new Error(result.error);
    expect(result.report.cases.map((c) => c.id)).toContain("tests/test_calc.py::TestX::test_y");
    expect(result.report.loadErrors).toEqual(["tests/test_broken.py"]);
    expect(result.report.digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it("the digest is over the bytes on disk", async () => {
    const plain = await readJunitReport(report(GOOD), tree());
    const withBom = await readJunitReport(report(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(GOOD)])), tree());
    if (!("report" in plain) || !("report" in withBom)) throw new Error("expected reports");
    expect(withBom.report.cases).toEqual(plain.report.cases);
    expect(withBom.report.digest).not.toBe(plain.report.digest);
  });

  it("a missing report says the command wrote none", async () => {
    expect(await readJunitReport(join(tempDir(), "absent.xml"), tree())).toEqual({ error: "no JUnit report at $RANEX_JUNIT: the test command wrote none" });
  });

  it("refuses a symbolic link, even to a good report", async () => {
    const dir = tempDir("ranex-junit-out-");
    writeFileSync(join(dir, "real.xml"), GOOD);
    symlinkSync(join(dir, "real.xml"), join(dir, "junit.xml"));
    expect(await readJunitReport(join(dir, "junit.xml"), tree())).toEqual({ error: "refused: the JUnit report is a symbolic link" });
  });

  it("refuses a directory", async () => {
    expect(await readJunitReport(tempDir(), tree())).toEqual({ error: "refused: the JUnit report is not a regular file" });
  });

  it("refuses a report over 50 MB without reading it", async () => {
    const file = report("");
    truncateSync(file, 50 * 1024 * 1024 + 1);
    const result = await readJunitReport(file, tree());
    expect(result).toEqual({ error: "refused: the JUnit report is 52428801 bytes, over the 50 MB limit" });
  });

  it("refuses bytes that are not UTF-8, and UTF-16", async () => {
    const latin1 = Buffer.from(GOOD.replace("test_add", "test_\xe9"), "latin1");
    expect(await readJunitReport(report(latin1), tree())).toEqual({ error: "refused: the JUnit report is not valid UTF-8" });
    const utf16 = Buffer.from(GOOD, "utf16le");
    expect(await readJunitReport(report(utf16), tree())).toEqual({ error: "refused: the JUnit report is not UTF-8 text (it holds NUL bytes)" });
  });

  it("refuses a declared encoding other than UTF-8", async () => {
    const result = await readJunitReport(report(GOOD.replace("utf-8", "ISO-8859-1")), tree());
    expect(result).toEqual({ error: "refused: the report declares encoding ISO-8859-1; only UTF-8 is read" });
  });

  it("refuses an XXE attempt before parsing: the secret file is never read", async () => {
    const secret = join(tempDir(), "secret.txt");
    writeFileSync(secret, "TOP-SECRET-VALUE");
    const xxe = `<?xml version="1.0"?><!DOCTYPE t [<!ENTITY x SYSTEM "file://${secret}">]><testsuites><testsuite name="s"><testcase classname="c" name="&x;"/></testsuite></testsuites>`;
    const result = await readJunitReport(report(xxe), tree());
    expect(result).toEqual({ error: "refused: DTD present (a JUnit report needs none; DTDs allow entity attacks)" });
    expect(JSON.stringify(result)).not.toContain("TOP-SECRET");
  });

  it("refuses a billion-laughs entity, and stray DTD markup", async () => {
    const laughs = `<?xml version="1.0"?><!doctype lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">]><testsuites/>`;
    expect(await readJunitReport(report(laughs), tree())).toEqual({ error: "refused: DTD present (a JUnit report needs none; DTDs allow entity attacks)" });
    const entityOnly = `<testsuites><!ENTITY lol "lol"></testsuites>`;
    expect(await readJunitReport(report(entityOnly), tree())).toEqual({ error: "refused: ENTITY declaration present" });
    const element = `<testsuites><!ELEMENT a ANY></testsuites>`;
    expect(await readJunitReport(report(element), tree())).toEqual({ error: "refused: a markup declaration other than a comment or CDATA is present" });
  });

  it("comments and CDATA are fine", async () => {
    const xml = `<testsuites><!-- tests 1 --><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_add"><failure><![CDATA[a < b]]></failure></testcase></testsuite></testsuites>`;
    const result = await readJunitReport(report(xml), tree());
    if (!("report" in result)) throw new Error(result.error);
    expect(result.report.cases).toEqual([{ id: "tests/test_calc.py::test_add", file: "tests/test_calc.py", name: "test_add", result: "failed", message: "a < b" }]);
  });

  // jhy/jsoup: a failing test of an HTML parser prints `<!DOCTYPE ...>` in its message, which
  // Surefire writes into a CDATA stack trace: the whole report was refused, so the base had no
  // report and the task's target could not be told red.
  it("reads a report whose CDATA or comment holds `<!DOCTYPE` as text", async () => {
    const xml = `<testsuites><!-- saw <!DOCTYPE html> --><testsuite name="pytest"><testcase classname="tests.test_calc" name="test_add"><failure message="expected: &lt;&lt;!DOCTYPE root&gt;&gt;"><![CDATA[expected: <<!DOCTYPE root SYSTEM 'a"b.dtd'>> but was: <<!DOCTYPE root SYSTEM "a"b.dtd">> <!ENTITY x "y">]]></failure></testcase></testsuite></testsuites>`;
    const result = await readJunitReport(report(xml), tree());
    if (!("report" in result)) throw new Error(result.error);
    expect(result.report.cases).toMatchObject([{ id: "tests/test_calc.py::test_add", result: "failed" }]);
  });

  it("still refuses a DTD beside, after or around comments and CDATA, or behind one never closed", async () => {
    const dtd = `<!DOCTYPE t [<!ENTITY x SYSTEM "file:///etc/passwd">]>`;
    const refused = { error: "refused: DTD present (a JUnit report needs none; DTDs allow entity attacks)" };
    // A section's opening inside an attribute value does not open a section: the DTD after it is markup.
    expect(await readJunitReport(report(`<testsuites><testsuite name="<![CDATA[">${dtd}<testcase name="]]>"/></testsuite></testsuites>`), tree())).toEqual(refused);
    expect(await readJunitReport(report(`<testsuites><testsuite name='<!--'>${dtd}<testcase name='-->'/></testsuite></testsuites>`), tree())).toEqual(refused);
    expect(await readJunitReport(report(`<?xml version="1.0"?><!-- a -->${dtd}<testsuites/>`), tree())).toEqual(refused);
    expect(await readJunitReport(report(`<testsuites><![CDATA[ a ]]>${dtd}</testsuites>`), tree())).toEqual(refused);
    expect(await readJunitReport(report(`<testsuites><![CDATA[ a ]]]]><![CDATA[>${dtd}]]></testsuites>`), tree())).toMatchObject({ report: expect.anything() as unknown });
    expect(await readJunitReport(report(`<testsuites><![CDATA[ a ]]>]]>${dtd}</testsuites>`), tree())).toEqual(refused);
    expect(await readJunitReport(report(`<testsuites><![CDATA[ a ${dtd}</testsuites>`), tree())).toEqual({ error: "refused: a comment or CDATA section is never closed" });
    expect(await readJunitReport(report(`<testsuites><!-- a ${dtd}</testsuites>`), tree())).toEqual({ error: "refused: a comment or CDATA section is never closed" });
  });

  it("refuses unparsable XML and a non-JUnit document with the reason", async () => {
    expect(await readJunitReport(report("<testsuites><testcase>"), tree())).toMatchObject({ error: expect.stringMatching(/^refused: unparsable XML: /) });
    expect(await readJunitReport(report("<html/>"), tree())).toEqual({ error: "refused: not a JUnit report: the root element is <html>, expected <testsuites> or <testsuite>" });
  });

  it("does not map a classname to a path outside the tree", async () => {
    const dir = tree();
    const xml = `<testsuites><testsuite name="pytest"><testcase classname="" name="x" file="../../etc/passwd"/></testsuite></testsuites>`;
    const result = await readJunitReport(report(xml), join(dir, "tests"));
    if (!("report" in result)) throw new Error(result.error);
    expect(result.report.cases[0]?.file).toBeNull();
  });
});
