import { statSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openJournal } from "../../src/journal/index.js";
import { tempDir } from "../helpers/git-repo.js";
import { journalSuite, type Backend } from "./journal-suite.js";

const sqlite: Backend = {
  async fresh() {
    const dataDir = join(tempDir("ranex-journal-"), "data");
    const journal = await openJournal({ dataDir });
    const path = join(dataDir, "journal.db");
    return {
      journal, target: { dataDir },
      raw: {
        async tamper(statements) {
          const db = new Database(path);
          try {
            // What someone with the file can do: drop the guards, then edit.
            db.exec("DROP TRIGGER IF EXISTS ranex_journal_no_update; DROP TRIGGER IF EXISTS ranex_journal_no_delete;");
            for (const [sql, params] of statements) db.prepare(sql).run(...params);
          } finally {
            db.close();
          }
        },
        async attempt(sql) {
          const db = new Database(path);
          try {
            db.exec(sql);
            return null;
          } catch (err) {
            return (err as Error).message;
          } finally {
            db.close();
          }
        },
      },
    };
  },
};

describe("sqlite journal", () => {
  journalSuite(sqlite);

  it("lives in <data dir>/journal.db in WAL mode", async () => {
    const dataDir = join(tempDir(), "data");
    const journal = await openJournal({ dataDir, databaseUrl: "" });
    const path = join(dataDir, "journal.db");
    expect(statSync(path).isFile()).toBe(true);
    const db = new Database(path, { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
    await journal.close();
  });

  it("says clearly when the journal cannot be opened", async () => {
    const file = join(tempDir(), "not-a-dir");
    await import("node:fs/promises").then((fs) => fs.writeFile(file, "x"));
    await expect(openJournal({ dataDir: file })).rejects.toThrow(/cannot open the journal at/);
  });
});
