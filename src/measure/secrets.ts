// secrets: secretlint's recommended rules over the lines a change adds. The lines are rebuilt into text
// (not the raw patch, whose `+` prefixes hide a PEM key from the rules) and every finding is mapped
// back to its line on head. A finding is never echoed in full: the evidence ends up in check runs,
// comments and the journal, and repeating a leaked credential there would leak it again.
import { lintSource } from "@secretlint/core";
import { creator as recommendedPreset } from "@secretlint/secretlint-rule-preset-recommend";
import type { Detail, Evidence } from "../kernel/types.js";
import type { AddedLines } from "../workspace/types.js";
import { plural } from "./diff/context.js";

const CLAIM = "secrets";

// The rules are fixed here, not read from a .secretlintrc: a config file in the repository under
// judgment could switch the rules off.
const CONFIG = { rules: [{ id: "@secretlint/secretlint-rule-preset-recommend", rule: recommendedPreset }] };

export interface SecretFinding {
  path: string;
  line: number;
  rule: string;
  masked: string;
}

/** `ghp_…(40 chars)`: enough to find it, never enough to use it. */
export function maskSecret(secret: string): string {
  const visible = secret.length >= 16 ? 4 : 0;
  return `${secret.slice(0, visible)}…(${secret.length} chars)`;
}

export async function secretsClaim(subject: string, added: readonly AddedLines[]): Promise<Evidence> {
  const findings: SecretFinding[] = [];
  let scannedLines = 0;
  try {
    for (const file of added) {
      if (file.lines.length === 0) continue;
      scannedLines += file.lines.length;
      findings.push(...await scanFile(file));
    }
  } catch (error) {
    return {
      claim: CLAIM, subject, outcome: "fail",
      reason: `the secret scan could not run: ${(error as Error).message}`, details: [], meta: { scanner: "secretlint" },
    };
  }
  // Binary, oversized or symlinked files cannot be read as lines: say so, so a reviewer knows what
  // no scanner looked at (a keystore is binary), rather than letting them pass unmentioned.
  const unscanned: Detail[] = added
    .filter((file) => file.skipped !== undefined)
    .map((file) => ({ kind: "not-scanned", path: file.path, message: `not scanned (${file.skipped}): ${JSON.stringify(file.path)}` }));
  const meta = { scanner: "secretlint", preset: "recommend", files: added.length, lines: scannedLines, findings: findings.length, unscanned: unscanned.length };
  if (findings.length === 0) {
    const note = unscanned.length > 0 ? `; ${unscanned.length} file${unscanned.length > 1 ? "s" : ""} not scanned (see details)` : "";
    return { claim: CLAIM, subject, outcome: "pass", reason: `no credentials in ${plural(scannedLines, "added line")} of ${plural(added.length, "file")}${note}`, details: unscanned, meta };
  }
  const details: Detail[] = findings.map((f): Detail => ({
    kind: "secret", path: f.path, line: f.line, message: `${f.rule}: ${f.masked} at ${f.path}:${f.line}`,
  })).concat(unscanned);
  const [first] = findings as [SecretFinding, ...SecretFinding[]];
  const more = findings.length > 1 ? ` (and ${findings.length - 1} more)` : "";
  return {
    claim: CLAIM, subject, outcome: "fail",
    reason: `a credential was added: ${first.rule} at ${first.path}:${first.line}${more}`, details, meta,
  };
}

async function scanFile(file: AddedLines): Promise<SecretFinding[]> {
  const ordered = [...file.lines].sort((a, b) => a.line - b.line);
  const content = ordered.map((l) => l.text).join("\n") + "\n";
  const result = await lintSource({
    source: { content, filePath: file.path, contentType: "text" },
    // The path only names the file: no rule may open it on this host (the P12 rule would).
    options: { config: CONFIG, maskSecrets: true, noPhysicFilePath: true },
  });
  return result.messages.map((message) => {
    const secret = content.slice(message.range[0], message.range[1]);
    const joinedLine = message.loc.start.line;
    return {
      path: file.path,
      line: ordered[joinedLine - 1]?.line ?? ordered[0]?.line ?? 0,
      rule: message.ruleId.replace(/^@secretlint\/secretlint-rule-/, ""),
      masked: maskSecret(secret),
    };
  });
}
