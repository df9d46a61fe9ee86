// On installation: with RANEX_AUTO_PROTECT=1 and administration write, protect each installed
// repository's default branch as `ranex protect` would; otherwise only log what it would change.
import type { Context } from "probot";
import type { AppDeps } from "../deps.js";
import { applyProtection, planProtection } from "./apply.js";

export const INSTALLATION_EVENTS = ["installation.created", "installation_repositories.added"] as const;

type InstallationContext = Context<"installation.created"> | Context<"installation_repositories.added">;

export async function onInstallation(context: InstallationContext, deps: AppDeps): Promise<void> {
  const authority = deps.mergeAuthority;
  if (authority === undefined) return;
  const { payload } = context;
  const repositories = "repositories_added" in payload ? payload.repositories_added : payload.repositories ?? [];
  const mayAdminister = payload.installation.permissions.administration === "write";
  for (const { full_name: fullName } of repositories) {
    const [owner = "", repo = ""] = fullName.split("/");
    const log = context.log.child({ repository: fullName, delivery: context.id });
    try {
      const branch = (await context.octokit.rest.repos.get({ owner, repo })).data.default_branch;
      const command = `ranex protect --repo ${fullName} --branch ${branch}${authority.appId === null ? "" : ` --app-id ${authority.appId}`}`;
      const plan = await planProtection(context.octokit, { repo: { owner, repo }, branch, appId: authority.appId, ruleset: false });
      if (plan.changes.length === 0) {
        log.info({ branch }, "the default branch already requires ranex/judge and ranex/approval");
      } else if (authority.autoProtect && mayAdminister) {
        await applyProtection(context.octokit, plan);
        log.info({ branch, changes: plan.changes }, "protected the default branch (RANEX_AUTO_PROTECT=1)");
      } else {
        const why = authority.autoProtect ? "the app lacks administration: write" : "RANEX_AUTO_PROTECT is not 1";
        log.warn({ branch, changes: plan.changes, command }, `the default branch does not require the gate's checks; not changed (${why}): run the command`);
      }
    } catch (err) {
      log.error(err, `could not read or protect the default branch of ${fullName}; run ranex protect --repo ${fullName}`);
    }
  }
}
