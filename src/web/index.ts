// The verdict pages (issue 8): wiring between the app's dependencies and the page routes.
import { dataDirKey, publicKeyPem, sealPublicKeyOf } from "../attest/index.js";
import type { AppDeps } from "../github/deps.js";
import { openJournal } from "../journal/index.js";
import { pageFactsOf, writePageFacts } from "./page-facts.js";
import { pageSecret } from "./page-token.js";
import { webRoutes, type WebDeps } from "./routes.js";

export { webRoutes, verdictHref, journalHref, agentsHref, type WebDeps } from "./routes.js";
export { pageSecret, verdictToken, journalToken, agentsToken } from "./page-token.js";
export { readPageFacts, type PageFacts } from "./page-facts.js";

type PageDeps = Pick<AppDeps, "dataDir" | "openJournal" | "publicKey" | "pageSecret">;

/** The page routes over the app's journal and key; SQLite and the data dir's key when none is given. */
export function pageRoutes(deps: PageDeps): ReturnType<typeof webRoutes> {
  return webRoutes(webDepsOf(deps));
}

export function webDepsOf(deps: PageDeps): WebDeps {
  return {
    openJournal: deps.openJournal ?? (() => openJournal({ dataDir: deps.dataDir })),
    publicKey: deps.publicKey ?? (async () => publicKeyPem((await dataDirKey(deps.dataDir)).publicKey)),
    sealPublicKey: () => sealPublicKeyOf(deps.dataDir),
    dataDir: deps.dataDir,
    secret: () => pageSecret(deps.dataDir, deps.pageSecret),
  };
}

/**
 * The app's `record`, timed, and followed by keeping the page facts (timings, diff facts, run
 * summaries) beside the new journal entry. Failing to keep them never fails the verdict: the page
 * then says they were not recorded.
 */
export function withPageFacts(deps: AppDeps, onError: (err: unknown) => void = () => {}): AppDeps {
  return {
    ...deps,
    record: async (judgment, context) => {
      const started = performance.now();
      const recorded = await deps.record(judgment, context);
      try {
        await writePageFacts(deps.dataDir, recorded.journalId, pageFactsOf(judgment, performance.now() - started));
      } catch (err) {
        onError(err);
      }
      return recorded;
    },
  };
}
