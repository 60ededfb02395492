import { registry } from "./actors";

registry.startAndWait().then(
  () => console.log("actor-bench app: registered with the engine"),
  (err: unknown) => {
    console.error("actor-bench app failed to start:", err);
    process.exit(1);
  },
);
