// The installation token reaches git only as a `-c http.extraHeader=…` on the fetch's command line:
// never written to a config file, never in the environment of the measuring process.
import type { GitHub } from "./check-runs.js";

export async function installationToken(octokit: GitHub): Promise<string> {
  const auth = (await octokit.auth({ type: "installation" })) as { token?: unknown };
  if (typeof auth.token !== "string" || auth.token === "") throw new Error("the app could not get an installation token to fetch the repository");
  return auth.token;
}

/** `http.extraHeader=AUTHORIZATION: basic <base64 x-access-token:TOKEN>`, as actions/checkout does it. */
export function fetchHeader(token: string): string {
  const basic = Buffer.from(`x-access-token:${token}`, "utf8").toString("base64");
  return `http.extraHeader=AUTHORIZATION: basic ${basic}`;
}

/** A git error may echo its command line: the token (plain or in its header form) becomes `***`. */
export function withoutToken(err: unknown, token: string): Error {
  const secrets = [token, Buffer.from(`x-access-token:${token}`, "utf8").toString("base64")];
  let message = err instanceof Error ? err.message : String(err);
  for (const secret of secrets) message = message.split(secret).join("***");
  return new Error(message);
}
