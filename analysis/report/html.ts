/** HTML escaping, pure and free of Node imports: the site's pages and their in-page scripts escape text by this one rule. */
const ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

export function escapeHtml(x: unknown): string {
  return String(x).replace(/[&<>"']/g, (c) => ESCAPES[c]);
}
