// edges.covered: the task's approved behaviour graph; every edge needs a listed test passing on head.
import type { Detail, Evidence } from "../../kernel/types.js";
import type { Task } from "../../policy/schema.js";
import type { SuiteRun } from "../report-types.js";
import { suiteRunFact } from "../run-report.js";
import { casesById, disagreement, isGreen, listed, resultWord, runProblem, suiteMeta, violations } from "./run-facts.js";

const CLAIM = "edges.covered";

export function edgesClaim(subject: string, task: Task, head: SuiteRun): Evidence {
  const meta = { head: suiteMeta(head), edges: task.edges.map((e) => e.id) };
  const unsafe = violations(head);
  const extra = { ...(unsafe.length > 0 ? { unsafe: true } : {}), runs: [suiteRunFact(head)] };
  if (task.edges.length === 0) {
    return { claim: CLAIM, subject, outcome: "absent", reason: `task ${task.id} declares no edges`, details: [], meta };
  }
  const problem = unsafe.map((v) => `the sandbox reported a violation (${v})`)[0] ?? runProblem(head)
    ?? disagreement(head);
  if (problem !== null || head.report === null) {
    return { claim: CLAIM, subject, outcome: "fail", reason: `cannot judge the edges: ${problem ?? "no head report"}`, details: [], meta, ...extra };
  }
  const report = head.report;
  const onHead = casesById(report);
  const uncovered: string[] = [];
  const details: Detail[] = [];
  for (const edge of task.edges) {
    // An id several tests share vouches only when every copy passed: its case holds the worst result.
    const passing = edge.tests.filter((id) => {
      const found = onHead.get(id);
      return found !== undefined && isGreen(found);
    });
    const label = `edge ${edge.id} (${edge.from} -> ${edge.to})`;
    if (passing.length > 0) {
      details.push({ kind: "covered", message: `${label}: covered by ${listed(passing)}` });
      continue;
    }
    uncovered.push(edge.id);
    const seen = edge.tests.map((id) => `${id} ${resultWord(onHead.get(id))}`);
    details.push({ kind: "uncovered", message: `${label}: no listed test passed on head (${seen.join(", ")})` });
  }
  if (uncovered.length > 0) {
    return { claim: CLAIM, subject, outcome: "fail", reason: `edges without a passing test on head: ${listed(uncovered)}`, details, meta, ...extra };
  }
  return { claim: CLAIM, subject, outcome: "pass", reason: `all ${task.edges.length} edges have a passing test on head`, details, meta, ...extra };
}
