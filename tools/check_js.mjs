// The JS check of `make lint`: node's own parser and a small rule set, no package and no network (Node >= 18).
//   node tools/check_js.mjs [FILE_OR_DIR ...]   (default: static/js; *.js and *.mjs, but *.min.js is vendored: skipped)
// Each file is parsed as the browser loads it: a classic <script> (node:vm), or an ES module when it imports or
// exports (`node --check`, as <script type="module">). Then it is read token by token for the rules below; every
// finding is printed as path:line:column: rule: why, and the exit status is 1 if any.
// The rules fit the ES5/ES2015 the pages use (var or let/const, function or =>), and each catches something the
// browser would only show at run time, or under the strict CSP (script-src 'self': no eval of any kind):
//   strict     "use strict" opens a classic script or the function that wraps it (typos become errors, not
//              globals); a module is strict already
//   eqeqeq     === and !==, never == or != (they convert types: "" == 0)
//   no-eval    no eval, no Function constructor, no string given to setTimeout/setInterval (the CSP refuses them)
//   no-debug   no debugger statement, no console.log/console.debug left behind (console.warn/error are fine)
//   text       LF line ends, no tab, no trailing space, a final newline, no line over 160 characters (as templates)
import { spawnSync } from "node:child_process";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { pathToFileURL } from "node:url";
import vm from "node:vm";

export const MAX_LINE = 160;

const PUNCTUATORS = [
  ">>>=", "...", "===", "!==", "**=", "<<=", ">>=", ">>>", "&&=", "||=", "??=",
  "=>", "==", "!=", "<=", ">=", "&&", "||", "??", "?.", "++", "--", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
  "**", "<<", ">>",
];
// After these a "/" starts a regular expression; after anything else it divides.
const BEFORE_REGEX = new Set([
  "return", "typeof", "instanceof", "in", "of", "new", "delete", "void", "throw", "case", "do", "else", "yield",
  "await",
]);

// Tokens of a file node's parser accepted: {type: "name"|"num"|"str"|"template"|"regex"|"punct", value, line, col}.
export function tokenize(source) {
  const tokens = [];
  const braces = [];  // "{" for a block or object, "${" for a template's expression
  let i = 0;
  let line = 1;
  let lineStart = 0;
  const at = (start) => ({ line, col: start - lineStart + 1 });
  const advance = (to) => {
    for (; i < to; i++) {
      if (source[i] === "\n") { line++; lineStart = i + 1; }
    }
  };
  const regexAllowed = () => {
    const last = tokens[tokens.length - 1];
    if (!last) return true;
    if (last.type === "punct") return ![")", "]", "}"].includes(last.value);
    if (last.type === "name") return BEFORE_REGEX.has(last.value);
    return false;
  };
  const templateChunk = (start) => {  // from after ` or }, to after the closing ` or the next ${
    let j = start;
    while (j < source.length) {
      if (source[j] === "\\") { j += 2; continue; }
      if (source[j] === "`") return { end: j + 1, open: false };
      if (source[j] === "$" && source[j + 1] === "{") return { end: j + 2, open: true };
      j++;
    }
    throw new Error("unterminated template");
  };
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (/\s/.test(c)) { advance(i + 1); continue; }
    if (c === "/" && next === "/") {
      const end = source.indexOf("\n", i);
      advance(end < 0 ? source.length : end);
      continue;
    }
    if (c === "/" && next === "*") { advance(source.indexOf("*/", i + 2) + 2); continue; }
    const start = i;
    const pos = at(start);
    if (c === "\"" || c === "'") {
      let j = i + 1;
      while (source[j] !== c) j += source[j] === "\\" ? 2 : 1;
      tokens.push({ type: "str", value: source.slice(i + 1, j), ...pos });
      advance(j + 1);
      continue;
    }
    if (c === "`" || (c === "}" && braces[braces.length - 1] === "${")) {
      if (c === "}") braces.pop();
      const chunk = templateChunk(i + 1);
      if (chunk.open) braces.push("${");
      tokens.push({ type: "template", value: source.slice(start, chunk.end), ...pos });
      advance(chunk.end);
      continue;
    }
    if (/[A-Za-z_$\u0080-\uffff]/.test(c)) {
      const m = /^[\w$\u0080-\uffff]+/.exec(source.slice(i));
      tokens.push({ type: "name", value: m[0], ...pos });
      advance(i + m[0].length);
      continue;
    }
    if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(next))) {
      const m = /^(?:0[xXoObB][0-9a-fA-F_]+n?|(?:[0-9][0-9_]*\.?[0-9_]*|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9_]+)?n?)/.exec(
        source.slice(i),
      );
      tokens.push({ type: "num", value: m[0], ...pos });
      advance(i + m[0].length);
      continue;
    }
    if (c === "/" && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (inClass || source[j] !== "/") {
        if (source[j] === "\\") j++;
        else if (source[j] === "[") inClass = true;
        else if (source[j] === "]") inClass = false;
        j++;
      }
      j++;
      while (/[a-z]/.test(source[j] || "")) j++;
      tokens.push({ type: "regex", value: source.slice(i, j), ...pos });
      advance(j);
      continue;
    }
    const punct = PUNCTUATORS.find((p) => source.startsWith(p, i)) || c;
    if (punct === "{") braces.push("{");
    if (punct === "}") braces.pop();
    tokens.push({ type: "punct", value: punct, ...pos });
    advance(i + punct.length);
  }
  return tokens;
}

function strictProblems(tokens) {
  // Before the directive only an opening wrapper may come: `(function () {`, `(() => {`, `!function () {`.
  const opener = new Set(["(", ")", "{", "!", "function", "=>"]);
  for (const t of tokens) {
    if (t.type === "str" && t.value === "use strict") return [];
    if (!(t.type === "punct" || t.type === "name") || !opener.has(t.value)) break;
  }
  const why = "open the file (or the function that wraps it) with \"use strict\"";
  return [{ line: 1, col: 1, rule: "strict", why }];
}

function tokenProblems(tokens) {
  const found = [];
  const add = (t, rule, why) => found.push({ line: t.line, col: t.col, rule, why });
  tokens.forEach((t, k) => {
    const before = tokens[k - 1];
    const after = tokens[k + 1];
    const member = before && before.type === "punct" && (before.value === "." || before.value === "?.");
    if (t.type === "punct" && (t.value === "==" || t.value === "!=")) {
      add(t, "eqeqeq", `use ${t.value}= (${t.value} converts types)`);
    }
    if (t.type !== "name" || member) return;
    if (t.value === "eval") add(t, "no-eval", "eval is refused by the CSP (no 'unsafe-eval')");
    if (t.value === "Function" && after && after.value === "(") {
      add(t, "no-eval", "the Function constructor is eval (refused by the CSP)");
    }
    if ((t.value === "setTimeout" || t.value === "setInterval") && after && after.value === "(") {
      const arg = tokens[k + 2];
      if (arg && (arg.type === "str" || arg.type === "template")) {
        add(t, "no-eval", `give ${t.value} a function, not a string (evaluated code: refused by the CSP)`);
      }
    }
    if (t.value === "debugger") add(t, "no-debug", "a debugger statement left behind");
    if (t.value === "console" && after && after.value === "." && ["log", "debug"].includes(tokens[k + 2]?.value)) {
      add(t, "no-debug", `console.${tokens[k + 2].value} left behind (console.warn/error say something went wrong)`);
    }
  });
  return found;
}

function textProblems(source) {
  const found = [];
  const add = (line, col, why) => found.push({ line, col, rule: "text", why });
  if (source.includes("\r")) add(1, 1, "line ends must be LF, not CRLF or CR");
  if (source.length && !source.endsWith("\n")) add(source.split("\n").length, 1, "end the file with a newline");
  source.split("\n").forEach((text, n) => {
    const tab = text.indexOf("\t");
    if (tab >= 0) add(n + 1, tab + 1, "a tab: indent with spaces");
    if (/[ \t]+$/.test(text)) add(n + 1, text.trimEnd().length + 1, "trailing whitespace");
    if (text.length > MAX_LINE) add(n + 1, MAX_LINE + 1, `${text.length} characters (at most ${MAX_LINE})`);
  });
  return found;
}

// A module's syntax, by node itself (node:vm parses modules only behind a flag): null, or [line, message].
function moduleSyntax(source) {
  const done = spawnSync(process.execPath, ["--input-type=module", "--check"], { input: source, encoding: "utf8" });
  if (done.status === 0) return null;
  const where = /\[stdin\]:(\d+)/.exec(done.stderr);
  const message = /^SyntaxError: (.*)$/m.exec(done.stderr);
  return [where ? Number(where[1]) : 1, message ? message[1] : done.stderr.trim()];
}

// The problems of one file's source, in line order ([] when clean).
export function check(source, filename = "<source>") {
  let isModule = false;
  try {
    new vm.Script(source, { filename });
  } catch (err) {
    isModule = /import statement outside a module|Unexpected token 'export'|import\.meta/.test(err.message);
    const line = Number((/:(\d+)\n/.exec(String(err.stack)) || [0, 1])[1]);
    const bad = isModule ? moduleSyntax(source) : [line, err.message];
    if (bad) return [{ line: bad[0], col: 1, rule: "syntax", why: bad[1] }];
  }
  const tokens = tokenize(source);
  return [...(isModule ? [] : strictProblems(tokens)), ...tokenProblems(tokens), ...textProblems(source)].sort(
    (a, b) => a.line - b.line || a.col - b.col,
  );
}

function scripts(target) {
  if (statSync(target).isFile()) return [target];
  return readdirSync(target)
    .sort()
    .flatMap((name) => scripts(join(target, name)))
    .filter((path) => /\.m?js$/.test(path) && !/\.min\.js$/.test(path));
}

function main(args) {
  const files = (args.length ? args : ["static/js"]).flatMap(scripts);
  let problems = 0;
  for (const file of files) {
    for (const p of check(readFileSync(file, "utf8"), file)) {
      console.error(`${relative(process.cwd(), file)}:${p.line}:${p.col}: ${p.rule}: ${p.why}`);
      problems++;
    }
  }
  if (problems) {
    console.error(`JS check: ${problems} problem(s) in ${files.length} file(s)`);
    return 1;
  }
  process.stdout.write(`JS check: ${files.length} file(s) clean (node ${process.versions.node})\n`);
  return 0;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) process.exitCode = main(process.argv.slice(2));
