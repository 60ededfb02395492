/**
 * The report's prose: what each table and chart shows and how to read it,
 * in one place, apart from the code that computes and lays out the figures.
 * Each note takes the words it needs (a side's, a count) as arguments.
 */

/** Heading the headline; `controls` is each control side's sentence on what it is. */
export const headlineNote = (controls: readonly string[], flag: string, flagShare: number) =>
  "Milliseconds, p50 / p90 / p99, nearest rank, no trimming. Each side on its own clock, as the reference measures it; the same-clock table in the report puts the client's round trip on both sides. " +
  controls.map((f) => `${f} `).join("") +
  `n is the samples the percentiles are taken over; failures are counted, never retried, and left out (${flag}: more than ${flagShare * 100}% of the stage's attempts failed; the caveats say why). ` +
  'A create or wake counts only when the actor proves a fresh instance (the others are "cold flag wrong" and left out); on any other row "cold flag wrong" counts calls that hit a restarted instance, which stay in n.';

/** Under the open-model table. */
export const OPEN_MODEL_NOTE =
  "In the open model a request goes out at its scheduled time whether or not earlier ones have answered, and its latency counts from that time (as wrk2 does), so a runtime that cannot keep up shows growing latency instead of a lower send rate. Client clock on every side.";

const NUMBER_WORDS: Record<number, string> = { 2: "two", 3: "three", 4: "four", 5: "five" };

/** Heading the cost over the control: its own words on what it does, how many sides the table puts on one clock, and its name for itself. */
export const controlCostNote = (controlAbout: string, sides: number, word: string) =>
  `${controlAbout} ` +
  `Every column here is the driver's round trip (process.hrtime, send to full reply), so the ${NUMBER_WORDS[sides] ?? sides} are on one clock; a runtime's p50 minus the ${word}'s is what its actor system adds on this machine. ` +
  `A negative difference means the runtime did less than the ${word} for that row (for instance a write it acknowledges before an fsync).`;

/** Heading the same-clock table: how the driver's call reaches each side. */
export const sameClockNote = (routes: readonly string[]) =>
  `Milliseconds, p50 / p90 / p99, nearest rank, all timed by the load driver with process.hrtime from send to full reply: ${routes.slice(0, -1).join(", ")}${routes.length > 1 ? ", " : ""}${routes[routes.length - 1]}.`;

/** Heading a platform's own timings, in its words. */
export const platformNote = (w: { name: string; actor: string }) =>
  `One block is one stage. ${w.name} aggregates each block's ${w.actor} invocations over its window (UTC, widened to whole seconds, so calls made just before or after the stage in the same second are counted too) and reports the quantiles itself; they are its figures, not nearest rank over our samples.`;

/** Heading the CPU per operation. */
export const CPU_NOTE =
  "CPU milliseconds per successful operation, each stage's CPU time summed over its repetitions: the side's own processes (named in each cell) apart from the load driver's, which sends and times every call. From /proc/<pid>/stat (utime + stime) read before and after each stage, in clock ticks of 10 ms, so a figure's step is 10 ms over the stage's operations. In brackets, where the run has several repetitions: the 95% interval of a fresh run's figure for the side's own processes (a t interval on the logarithm of each repetition's figure), the spread a figure must clear to differ from another run's. A process not measured shows \"-\": a runtime this machine does not run (a deployed one, say) has no CPU figure here.";

/** Heading the rows per operation. */
export const ROWS_NOTE =
  "SQLite rows read and written per successful operation, as the runtime's own SQL cursors counted them (rowsRead and rowsWritten of every statement the call ran, the schema's included), on the sides whose runtime counts them: the units a runtime that bills storage by rows bills it by. The mean over the stage's successful calls; n is how many carried the counts.";

/** Heading the cost per million operations: how each cell is computed, and what it cannot say. */
export const costNote = (asOf: string, billedGb: number, utilisation: number) =>
  "US dollars per million operations of each headline row, each side priced the ways its package names, from the units this run measured and the published prices below " +
  `(${asOf}; \`npm run report -- <runDir> --prices FILE\` gives other prices). ` +
  `A usage price is each request's price, plus the side's own-clock mean call time as wall-clock duration at ${billedGb} GB, plus the rows the call read and wrote (measured by the runtime's own cursors); the CPU time of a front the call passes through cannot be read locally and is left out. ` +
  `A CPU price is the side's own processes' measured CPU time per operation at a price per vCPU-second, over an assumed ${utilisation * 100}% utilisation of the machine it runs on. ` +
  "A local run's figures are its machine's and its timers': a deployed runtime's wall time and a cloud machine's CPU differ. Where a unit was not measured, the cell says so; nothing is filled in.";

/** Heading the memory per actor. */
export const MEMORY_NOTE =
  "Kilobytes of resident memory (VmRSS of the side's own processes, read before and after each stage) per actor, from the scaling group. Per sleeping actor: in each repetition, on fresh runtimes, the least-squares slope of that resident set at every level's wakes (each begun with every actor of the run asleep) on the actors the run then had; the figure is the mean of the repetitions' slopes, in brackets its 95% t interval over them (none with one repetition). Per live actor: the growth across the highest level's burst over the creates that stayed awake at its end, the same way. The actors column is the first repetition's span of actors and the levels fitted. Resident memory includes what allocators keep after use, so these are upper bounds of what an actor needs, on this machine; and where earlier groups had already raised a process's resident set (the last column: the run's actors and the side's resident set as the lowest level's wakes began), the next actors reuse what its allocator kept and the growth comes out lower than on a fresh runtime: compare sleeping figures only between runs that started their scaling group alike.";

/** The first caveat of a local run. */
export const LOCAL_RUN_CAVEAT =
  "A local run: every side's runtime and the load driver ran on this one machine, one side after the other, sharing its cores. These are the software's costs on a small machine, not what any cloud gives.";

/** Under the charts; `creates` says which side's create bar is a create of its own. */
export const chartsNote = (creates: readonly string[]) =>
  "The headline chart's request group is each side's median warm round trip (warm.ping); the create and write groups subtract that median from every sample first, so they show the work rather than the hop." +
  creates.map((c) => ` ${c}`).join("");

/** The full tables' intervals with one repetition: none. */
export const ONE_REPETITION_NOTE =
  "The run made one repetition, so no interval is printed: the samples of one run share its runtime and machine state, and an interval over them would promise a precision the next run does not keep. Repeat the plan (`--repeat 3` or more) for intervals over fresh runtimes.";

/** The full tables' intervals over `k` repetitions, and which level of variance dominates. */
export const repetitionsNote = (k: number, orders: string, between: number, judged: number) =>
  `This run repeated its plan ${k} times, every side's runtime started afresh each time, in these orders: ${orders}. ` +
  `Brackets: the 95% interval, over the ${k} repetitions, of the percentile a fresh run gives (the geometric mean of the repetitions' values): a t interval on their logarithms with ${k - 1} degrees of freedom, which covers 95% at any number of repetitions (checked by simulation at 3, 5 and 10). ` +
  "Where there is none, the cell says why: a percentile of fewer samples a repetition than it needs is each repetition's maximum (a p99 of under 100), and a clock that steps in whole milliseconds cannot carry values of a few steps. " +
  `The per-repetition p50s and their coefficient of variation (CV) show the spread; "variance mostly" says whether the repetitions' p50s differ by more than twice what their own sampling error explains (between repetitions) or not (within a run): ${between} of ${judged} rows vary mostly between repetitions.`;

/** Heading the scaling table. */
export const scaleNote = (concurrency: number) =>
  `At each level the run first makes that many more actors (plain, left asleep), then wakes a set of sleeping actors one at a time, creates new ones one at a time, and creates a burst at concurrency ${concurrency}. The wakes start with all of the run's actors asleep; the creates and the burst follow at once, with the woken set still awake. "Actors existing" counts every actor of the run on that side as the wakes began, earlier groups' included. Each side on its own clock (as in the headline); burst rates are the driver's measured completions per second on every side.`;

/** Heading the start-state table; `sleeps` says how each side puts its actors to sleep. */
export const startStateNote = (sleeps: string) =>
  `A group's figures should not depend on which groups ran before it. So every group starts with every actor the run made before it asleep, on every side: ${sleeps}. ` +
  "What is not reset is how many actors exist: later groups run on a runtime holding more (asleep) actors, and each stage record keeps the count (notes.startState).";

/** Heading the table of how the sides differ. */
export const DIFFERENCES_NOTE =
  "The stages are written once for both sides; what cannot be the same is stated by each side's adapter and recorded in the manifest. This table is that record.";

/** Heading the capacity table; the objective and the search's constants are the run's. */
export const idleNote = (clockNote: string) =>
  "Actors called once and then left untouched for each length of the ladder (no sleep call: what a wake finds is the runtime's own idle sleep or eviction), then called once more; that call is the sample. " +
  "The steps nest, so the ladder costs about its longest step; each side's waits overlap the others', while every wake is measured alone. " +
  `Every answer counts (${clockNote}); "cold" is how many came from a fresh instance. A step longer than the idle after which the runtime itself sleeps an untouched actor (the last column, the side's own figure) must prove every wake cold, and a wake that did not is counted against it; a shorter step reports what it found. ` +
  "The actual idle is each actor's, from the answer to its first call to the send of its wake, over all repetitions.";

export const capacityNote = (p99Ms: number, failurePercent: number, factor: number, resolution: number, pool: number) =>
  `The highest open-model rate each side held for each operation: a step at a rate holds when the p99 of its calls (the client's clock, from each call's intended send time, so a side that falls behind is charged for the wait) is within ${p99Ms} ms and at most ${failurePercent}% of its arrivals fail; a create not proven cold is a failure. ` +
  `The search starts low and multiplies the rate by ${factor} until a step misses, then bisects between the highest rate held and the lowest missed until they are within a factor of ${resolution}; a step stops sending as soon as it has missed for certain. ` +
  `Warm calls and writes go round robin to ${pool} running actors; each create is a new actor. ` +
  "The rate held is the geometric mean over the repetitions of each one's knee, read as the geometric middle of its bracket (the highest rate it held, the lowest it missed); in brackets, its 95% interval: a t interval on the logarithms, as every interval over repetitions here, its variance no less than the brackets' width allows. Two runs agree on a rate where their intervals overlap. The range runs from the lowest rate any repetition held to the highest any missed: every repetition's knee lies inside it. " +
  "A local figure is the whole machine's: runtime, app and driver share its cores, and the control side shows where the driver and the loopback themselves stop.";

/** Heading the curve's steps. */
/** Heading the ceiling table. */
export const ceilingNote = (p99Ms: number, failurePercent: number) =>
  `The highest open-model rate one actor held: the capacity group's search and objective (p99 within ${p99Ms} ms on the client's clock from each call's intended send time, at most ${failurePercent}% of arrivals failed), every call to the same running actor, warm calls to an actor without storage and one-row writes to a store actor. ` +
  "This is one object's limit, where the capacity group spreads its calls over many; a runtime that runs one actor's calls one at a time shows its per-call cost here. " +
  "A local figure is the whole machine's (runtime, app and driver share its cores); a vendor's stated per-object limit is for its hosted platform, so the verdicts below say what this machine shows of it, not what the platform does.";

export const CAPACITY_STEPS_NOTE =
  "Every step of every search: arrivals planned and sent, failures (failed calls and creates not proven cold), p50 and p99 of the successes (client ms from the intended send time, nearest rank; over fewer than 100 successes the p99 is their maximum), the verdict, and the CPU per successful call of the side's processes and of the driver. A stopped step sent fewer arrivals than it planned.";

/** Heading the cost against load. */
export const costLoadNote = (vcpus: number, price: string) =>
  `What a million operations cost at a sustained load. A side priced by CPU pays for its machine whatever the load: here this run's ${vcpus} vCPUs at ${price}, so a million operations cost the machine's price over the load, falling as the load rises up to the most the machine holds (the capacity group's lowest held rate where the run has it, else the load at which the side's measured CPU per operation fills every vCPU). ` +
  'A side priced per operation costs the same at any load. "Cheaper above" is the load past which the machine costs less per operation than that side; a dash: not within what the machine holds. ' +
  "The machine is this run's, shared with the driver: a dedicated server holds more, and costs another price.";
