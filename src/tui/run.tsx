/** Runs the dashboard full-screen until the user quits; bundled only (Node's type stripping does not run .tsx). */
import { render } from "ink";
import type { Watch } from "../monitor/watch.ts";
import { Dashboard } from "./dashboard.tsx";

const ALT_SCREEN_ON = "\x1b[?1049h\x1b[H";
const ALT_SCREEN_OFF = "\x1b[?1049l";

export async function runDashboard(watch: Watch): Promise<number> {
  process.stdout.write(ALT_SCREEN_ON);
  try {
    const app = render(<Dashboard store={watch.store} restart={watch.restart} />, {
      // not incrementalRendering: in tmux it left stale lines; Ink wraps each frame in synchronized output anyway
      maxFps: 10,
      exitOnCtrlC: true,
    });
    await app.waitUntilExit();
    return 0;
  } finally {
    process.stdout.write(ALT_SCREEN_OFF);
  }
}
