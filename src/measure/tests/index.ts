// The claims built from test runs and extra checks, for the judge to call.
export { collectTargets } from "./targets.js";
export { regressionClaim } from "./regression.js";
export { redGreenClaim, NO_TARGETS_REASON, SELF_AUTHORED_MESSAGE } from "./red-green.js";
export { edgesClaim } from "./edges.js";
export { checkClaim } from "../checks.js";
