import { configDefaults, defineConfig } from "vitest/config";

/** Podman's Docker API, started by scripts/ci/podman.sh (.ci/run and `scripts/setup.sh test` run it). */
const PODMAN_SOCKET = "/run/mcpbox-podman/podman.sock";

// Unit tests (next to the code) run in parallel; end-to-end tests (test/) share one Docker engine and run one file
// at a time so their timings and container counts do not disturb each other. The "podman" project runs the main
// end-to-end paths (serve, tools, build, the code runner) against Podman instead, through DOCKER_HOST.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: "unit",
          include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
          testTimeout: 20_000,
        },
      },
      {
        test: {
          name: "e2e",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, "test/podman/**"],
          globalSetup: ["test/global-setup.ts"],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: "podman",
          include: ["test/podman/**/*.test.ts"],
          // fails the run when Podman's service does not answer: never skipped
          globalSetup: ["test/podman/global-setup.ts"],
          // the tests' engine client, the mcpbox processes they spawn and the docker CLI all use Podman
          env: { DOCKER_HOST: `unix://${PODMAN_SOCKET}`, MCPBOX_PODMAN_SOCKET: PODMAN_SOCKET },
          fileParallelism: false,
          // after the unit and e2e projects, not beside them: two engines at once on two cores disturb the timings
          sequence: { groupOrder: 1 },
          testTimeout: 180_000,
          hookTimeout: 600_000,
        },
      },
    ],
  },
});
