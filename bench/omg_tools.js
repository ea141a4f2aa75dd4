#!/usr/bin/env node
// Read the tool definitions out of a project that openapi-mcp-generator wrote: its src/index.ts
// holds `const toolDefinitionMap: Map<string, McpToolDefinition> = new Map([ ... ]);`, a plain
// object literal (JSON schemas, template-literal descriptions). The literal is evaluated by node
// (vm, empty context), not parsed with regexes. Prints JSON on stdout:
//   [{"name", "description", "inputSchema", "method", "pathTemplate"}, ...]
// in the map's order. Usage: omg_tools.js PROJECT_DIR
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

const file = path.join(process.argv[2], "src", "index.ts");
const text = fs.readFileSync(file, "utf8");
const decl = text.indexOf("const toolDefinitionMap");
if (decl < 0) throw new Error(`no toolDefinitionMap in ${file}`);
const open = text.indexOf("new Map(", decl);
if (open < 0) throw new Error(`no "new Map(" after toolDefinitionMap in ${file}`);
const start = open + "new Map(".length;

// The literal ends at a line "]);". Should one of those sit inside a description (a template
// literal), evaluating up to it fails and the next one is tried.
let map = null;
let lastError = null;
for (let end = text.indexOf("\n]);", start); end >= 0; end = text.indexOf("\n]);", end + 1)) {
  try {
    map = vm.runInNewContext(`new Map(${text.slice(start, end + 2)})`, {}, { timeout: 60000 });
    break;
  } catch (e) {
    lastError = e;
  }
}
if (map === null) throw new Error(`cannot evaluate toolDefinitionMap in ${file}: ${lastError}`);

const out = [];
for (const [key, def] of map) {
  out.push({
    key,
    name: def.name,
    description: def.description,
    inputSchema: def.inputSchema,
    method: def.method,
    pathTemplate: def.pathTemplate,
  });
}
process.stdout.write(JSON.stringify(out));
