/**
 * The mcpbox command line: runMain (run.ts) answers the command lines of quick.ts without commander and gives every
 * other one to the commander program of program.ts; it is the only place that exits the process.
 */
import { runMain } from "./run.ts";

runMain();
