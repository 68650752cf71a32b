// Parse a Mermaid diagram (stdin) with the official parser, under jsdom (tests/ci/test_report.py).
// Needs node and `npm install mermaid@11 jsdom` in the folder MERMAID_NODE_MODULES names.
import { readFileSync } from 'node:fs';
import { JSDOM } from 'jsdom';
const dom = new JSDOM('<!doctype html><html><body></body></html>');
globalThis.window = dom.window;
globalThis.document = dom.window.document;
const mermaid = (await import('mermaid')).default;
mermaid.initialize({ startOnLoad: false });
const text = readFileSync(0, 'utf8');
try {
  const r = await mermaid.parse(text);
  console.log('ok', JSON.stringify(r));
} catch (e) {
  console.log('error', String(e && e.message || e));
  process.exit(1);
}
