// issue_comment.created: `/ranex <command>` on a pull request.
import type { Context } from "probot";
import type { AppDeps } from "../deps.js";
import { explainHead } from "./explain.js";
import { override, overrideReasonOf } from "./override.js";
import { currentPull, rejudge, reply } from "./rejudge.js";

export const HELP = [
  "Ranex Gate understands:",
  "",
  "- `/ranex rejudge`: judge the current head again (people with write, maintain or admin permission who did not open the pull request and do not run the agents)",
  "- `/ranex explain`: the latest verdict for the current head, in plain words",
  "- `/ranex override <reason>`: take a FAIL on the current head as wrong, with the reason, signed and journalled (people with maintain or admin permission who had no hand in the change; it does not approve the change)",
].join("\n");

/** The `/ranex` command of a comment: the first word after `/ranex` on the first line that starts with it. */
export function commandOf(body: string): string | null {
  const match = /^[ \t]*\/ranex(?:[ \t]+(\S+))?/m.exec(body);
  if (match === null) return null;
  return (match[1] ?? "").toLowerCase();
}

export async function onIssueComment(context: Context<"issue_comment.created">, deps: AppDeps): Promise<void> {
  const { payload } = context;
  if (payload.issue.pull_request === undefined) return;
  const command = commandOf(payload.comment.body);
  if (command === null) return;
  if (!deps.runner.accept(context.id)) return;
  const repo = { owner: payload.repository.owner.login, repo: payload.repository.name };
  const number = payload.issue.number;
  const log = context.log.child({ repository: `${repo.owner}/${repo.repo}`, pr: number, delivery: context.id, command });

  if (command === "rejudge") {
    await rejudge({
      octokit: context.octokit, log, repo, number, via: "comment", deliveryId: context.id,
      requester: { login: payload.comment.user?.login ?? "", type: payload.comment.user?.type ?? "" },
      onAllowed: async () => {
        await context.octokit.rest.reactions.createForIssueComment({ ...repo, comment_id: payload.comment.id, content: "eyes" });
      },
    }, deps);
    return;
  }
  if (command === "override") {
    await override({
      octokit: context.octokit, log, repo, number, reason: overrideReasonOf(payload.comment.body),
      requester: { login: payload.comment.user?.login ?? "", type: payload.comment.user?.type ?? "" },
    }, deps);
    return;
  }
  if (command === "explain") {
    const target = await currentPull(context.octokit, repo, number);
    await reply(context.octokit, repo, number, await explainHead(context.octokit, repo, target.head, { baseRef: target.baseRef, findEntry: deps.findEntry }));
    return;
  }
  const unknown = command === "" ? "`/ranex` needs a command." : `\`/ranex ${command}\` is not a command.`;
  await reply(context.octokit, repo, number, `${unknown}\n\n${HELP}`);
}
