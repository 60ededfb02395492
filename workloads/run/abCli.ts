import { parseAbArgs, recompare, runAb } from "./ab";
import { HelpRequested, UsageError } from "./runConfig";
import { enterNetns, runEntry } from "./entry";
import { failureLine } from "../../analysis/contract/cliError";

async function main(): Promise<number> {
  let cfg: ReturnType<typeof parseAbArgs>;
  try {
    const argv = process.argv.slice(2);
    if (argv[0] === "--recompare") {
      if (argv.length !== 2) throw new UsageError("--recompare takes one folder: npm run ab -- --recompare results/<stack>/ab-<runId>");
      console.log(recompare(argv[1]));
      return 0;
    }
    cfg = parseAbArgs(argv);
  } catch (err) {
    if (err instanceof HelpRequested) {
      console.log(err.message);
      return 0;
    }
    if (err instanceof UsageError) {
      console.error(err.message.startsWith("usage:") ? err.message : `${failureLine(err)} (npm run ab -- --help lists the flags)`);
      return 2;
    }
    throw err;
  }
  const inNetns = enterNetns([cfg.a, cfg.b]);
  if (inNetns) return inNetns;
  const sides = cfg.a.sides.join(", ");
  const limit = cfg.pairs
    ? `${cfg.pairs} pairs (whole blocks)`
    : `up to ${cfg.minutes} minutes (no block starts that the slowest block so far would carry past them)`;
  console.log(
    `ab: A = "${cfg.flags.a}", B = "${cfg.flags.b}"; side ${sides}, groups ${cfg.a.groups.join(",")}, preset ${cfg.a.preset}.\n` +
      `Runs blocks of four repetitions, A B B A, each on fresh runtimes, for ${limit}; then compares the arms pair by pair.`,
  );
  const out = await runAb(cfg);
  console.log(`\nA: ${out.a.runDir}\nB: ${out.b.runDir}\ncomparison: ${out.comparisonDir}/comparison.md\n\n${out.markdown}`);
  const failures = [...out.a.failures.map((f) => `A: ${f}`), ...out.b.failures.map((f) => `B: ${f}`)];
  if (failures.length) {
    console.error(`\n${failures.length} failure(s):\n  ${failures.join("\n  ")}`);
    return 1;
  }
  return 0;
}

runEntry("npm run ab", main);
