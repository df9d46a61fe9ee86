import { describe, expect, it } from "vitest";
import { rangeAtLeast } from "../../src/runners/node-package.js";

describe("rangeAtLeast: every version the range allows is at least major.minor", () => {
  it("holds for ranges whose floor is high enough", () => {
    for (const range of ["4", "^4.0.2", "~3.2.0", ">=3.1", "3.1.0", "v3.4", "^3.1.0-beta.1"]) expect(rangeAtLeast(range, 3, 1), range).toBe(true);
  });
  it("fails for lower floors, alternatives and what it cannot read", () => {
    for (const range of [undefined, "", "*", "latest", "^3.0.0", "~2.9", "3", "3.x", "<4", "^2 || ^4", "1.0.0 - 4.0.0", "workspace:*", "file:../vitest", "github:vitest-dev/vitest"]) {
      expect(rangeAtLeast(range, 3, 1), String(range)).toBe(false);
    }
  });
});
