/** The objects of a JSONL text, one a line (empty lines skipped); a line that is not JSON is named by `label`:<line>. */
export function parseJsonLines<T>(text: string, label: string, check?: (x: T, where: string) => void): T[] {
  const out: T[] = [];
  text.split("\n").forEach((line, i) => {
    if (line === "") return;
    let x: T;
    try {
      x = JSON.parse(line) as T;
    } catch {
      throw new Error(`${label}:${i + 1}: not valid JSON`);
    }
    check?.(x, `${label}:${i + 1}`);
    out.push(x);
  });
  return out;
}
