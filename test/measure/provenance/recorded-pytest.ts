// One real sandboxed pytest run of a small tree with the provenance record, for the Python hook's
// end-to-end tests (the record's events are what they read).
import type { SuiteRun } from "../../../src/measure/report-types.js";
import { runSuite } from "../../../src/measure/run-suite.js";
import { createSandbox } from "../../../src/sandbox/index.js";
import { PROFILE } from "../../sandbox/helpers.js";
import { tempDir } from "../../helpers/git-repo.js";
import { writeTree } from "../tests/real-run.js";

const PYTEST = 'python3 -m pytest --junitxml="$RANEX_JUNIT" tests';

/** The tree (with an empty `src/__init__.py`) run by `python3 -m pytest tests` as the head run. */
export async function recordedPytest(files: Record<string, string>): Promise<SuiteRun> {
  const scratch = tempDir("ranex-recorded-");
  return runSuite(createSandbox(PROFILE), {
    label: "head", treeDir: writeTree({ "src/__init__.py": "", ...files }), readonly: [], reportDir: `${scratch}/report`,
    recordDir: `${scratch}/gate`, setup: undefined, command: PYTEST, setupNetwork: false, timeout: 60,
  });
}
