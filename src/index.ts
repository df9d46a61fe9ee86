// The GitHub App. This file only wires: events to handlers, the verdict pages. Every dependency
// (judge, journal, clock, job runner) comes in through AppDeps, so tests swap any of them.
import type { ApplicationFunction } from "probot";
import { onCheckRunRerequested, onCheckSuiteRerequested } from "./github/commands/check-run-rerequested.js";
import type { AppDeps } from "./github/deps.js";
import { onIssueComment } from "./github/commands/issue-comment.js";
import { MERGE_GROUP_EVENTS, onMergeGroup } from "./github/merge-queue/events.js";
import { INSTALLATION_EVENTS, onInstallation } from "./github/protection/install.js";
import { onPush } from "./github/pull-request/base-moved.js";
import { onPullRequest } from "./github/pull-request/events.js";
import { onPullRequestReview, PULL_REQUEST_REVIEW_EVENTS } from "./github/approval/pull-request-review.js";
import { onPullRequestPush, PUSH_EVENTS } from "./github/approval/pushes.js";
import { opsRoutes } from "./ops/routes.js";
import { pageRoutes, withPageFacts } from "./web/index.js";

export type { AppDeps } from "./github/deps.js";

export default function ranexApp(given: AppDeps): ApplicationFunction {
  return (app, { addHandler }) => {
    // Each verdict's timings and diff facts are kept beside its journal entry for its page.
    const deps = withPageFacts(given, (err) => app.log.error(err, "could not keep the verdict page facts"));
    // Every action: the handler picks those that can change a verdict, and `closed` cancels work.
    app.on("pull_request", (context) => onPullRequest(context, deps));
    app.on("push", (context) => onPush(context, deps));
    app.on("issue_comment.created", (context) => onIssueComment(context, deps));
    app.on("check_run.rerequested", (context) => onCheckRunRerequested(context, deps));
    app.on("check_suite.rerequested", (context) => onCheckSuiteRerequested(context, deps));
    app.on([...PULL_REQUEST_REVIEW_EVENTS], (context) => onPullRequestReview(context, deps));
    app.on([...PUSH_EVENTS], (context) => onPullRequestPush(context, deps));
    app.on([...MERGE_GROUP_EVENTS], (context) => onMergeGroup(context, deps));
    app.on([...INSTALLATION_EVENTS], (context) => onInstallation(context, deps));
    addHandler(pageRoutes(deps));
    if (deps.ops !== undefined) addHandler(opsRoutes(deps.ops));
  };
}
