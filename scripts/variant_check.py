#!/usr/bin/env python3
"""Checks provider-variant catalogs against the providers' documented schema rules.

Written from the documentation, not from mcp-gen's code (src/schema/variant/), so that the two
can disagree:

openai-strict — OpenAI Structured Outputs, "Supported schemas"
  (platform.openai.com/docs/guides/structured-outputs#supported-schemas) and the API's errors:
  root is an object and not anyOf; every object has additionalProperties: false and lists every
  property in required; every array has a typed items; only the supported keywords; string
  formats from the supported nine; a $ref has no siblings and resolves; limits of 5000 object
  properties, 10 levels of nesting, 1000 enum values, 15,000 characters for one enum of more
  than 250 values, 120,000 characters of names, enum and const values; function names
  ^[a-zA-Z0-9_-]{1,64}$.
gemini — the Schema object of Gemini function declarations (generativelanguage v1beta
  content.proto; ai.google.dev/gemini-api/docs/function-calling): only its fields; type is one
  string of STRING, NUMBER, INTEGER, BOOLEAN, ARRAY, OBJECT (any case); no $ref, no type lists;
  enum values are strings; formats enum/date-time (string), int32/int64 (integer),
  float/double (number); arrays have items; objects below the root have properties; names
  start with a letter or underscore, then letters, digits, _ . -, at most 64.
inline — no $ref, $defs or $dynamicRef anywhere.

  variant_check.py --variant openai-strict CATALOG.json [...]   # exit 1 on any violation
  variant_check.py --self-test
"""
import argparse
import json
import re
import sys

OPENAI_KEYS = {
    "type", "properties", "required", "additionalProperties", "items", "enum", "const", "anyOf",
    "$ref", "$defs", "description", "title", "pattern", "format", "multipleOf", "maximum",
    "exclusiveMaximum", "minimum", "exclusiveMinimum", "minItems", "maxItems",
}
OPENAI_FORMATS = {"date-time", "time", "date", "duration", "email", "hostname", "ipv4", "ipv6", "uuid"}
OPENAI_TYPES = {"string", "number", "integer", "boolean", "object", "array", "null"}
OPENAI_NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")

GEMINI_KEYS = {
    "type", "format", "title", "description", "nullable", "enum", "maxItems", "minItems",
    "properties", "required", "minProperties", "maxProperties", "minLength", "maxLength",
    "pattern", "example", "anyOf", "propertyOrdering", "default", "items", "minimum", "maximum",
}
GEMINI_TYPES = {"string", "number", "integer", "boolean", "array", "object"}
GEMINI_FORMATS = {"string": {"enum", "date-time"}, "integer": {"int32", "int64"}, "number": {"float", "double"}}
GEMINI_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_.\-]{0,63}$")


def children(schema, path):
    """(subschema, path, steps-deeper) for the subschema positions of the subsets checked here."""
    for name, sub in (schema.get("properties") or {}).items() if isinstance(schema.get("properties"), dict) else []:
        yield sub, f"{path}/properties/{name}"
    if isinstance(schema.get("items"), dict):
        yield schema["items"], f"{path}/items"
    for i, sub in enumerate(schema.get("anyOf") or []):
        yield sub, f"{path}/anyOf/{i}"


def check_openai(tool):
    out = []
    name, root = tool.get("name", ""), tool.get("inputSchema")
    bad = lambda where, what: out.append(f"{name}: {where or '/'}: {what}")
    if not OPENAI_NAME.match(name):
        bad("", "function name does not match ^[a-zA-Z0-9_-]{1,64}$")
    if not isinstance(root, dict):
        return out + [f"{name}: inputSchema is not an object"]
    if root.get("type") != "object":
        bad("", "root schema must have type 'object'")
    for k in ("anyOf", "oneOf", "allOf", "enum", "not"):
        if k in root:
            bad("", f"root schema must not have '{k}'")
    defs = root.get("$defs") or {}
    stats = {"properties": 0, "enum_values": 0, "chars": 0}
    stats["chars"] += sum(len(d) for d in defs)

    def walk(s, path, depth):
        if not isinstance(s, dict):
            bad(path, "schema is not an object")
            return
        for k in s:
            if k not in OPENAI_KEYS:
                bad(path, f"'{k}' is not permitted")
        if "$ref" in s:
            if len(s) > 1:
                bad(path, f"$ref cannot have keywords {sorted(k for k in s if k != '$ref')}")
            ref = s["$ref"]
            if not (isinstance(ref, str) and (ref == "#" or (ref.startswith("#/$defs/") and ref[8:] in defs))):
                bad(path, f"$ref {ref!r} does not resolve")
            return
        t = s.get("type")
        ts = t if isinstance(t, list) else [t] if t is not None else []
        if "anyOf" not in s and not ts:
            bad(path, "schema must have a 'type' key")
        for x in ts:
            if x not in OPENAI_TYPES:
                bad(path, f"type {x!r} is not supported")
        if "format" in s and (s["format"] not in OPENAI_FORMATS or "string" not in ts):
            bad(path, f"format {s['format']!r} is not supported")
        container = "object" in ts or "array" in ts
        level = depth + 1 if container else depth
        if container and level > 10:
            bad(path, f"nesting depth {level} exceeds 10")
        if "object" in ts:
            props = s.get("properties")
            if not isinstance(props, dict):
                bad(path, "object schema missing properties")
                props = {}
            if s.get("additionalProperties") is not False:
                bad(path, "'additionalProperties' is required to be supplied and to be false")
            req = s.get("required")
            if not isinstance(req, list) or set(req) != set(props):
                missing = sorted(set(props) - set(req if isinstance(req, list) else []))
                bad(path, f"'required' must include every key in properties (missing {missing[:3]})")
            stats["properties"] += len(props)
            stats["chars"] += sum(len(p) for p in props)
        if "array" in ts:
            items = s.get("items")
            if not isinstance(items, dict) or not ({"type", "anyOf", "$ref"} & set(items)):
                bad(path, "array schema needs a typed 'items'")
        if "enum" in s:
            values = s["enum"]
            if not isinstance(values, list) or not values:
                bad(path, "enum must be a non-empty list")
                values = []
            stats["enum_values"] += len(values)
            text = sum(len(v) for v in values if isinstance(v, str))
            stats["chars"] += text
            if len(values) > 250 and text > 15000:
                bad(path, f"enum of {len(values)} values has {text} characters (> 15,000)")
            if "null" in ts and None not in values:
                bad(path, "nullable enum must list null")
        if isinstance(s.get("const"), str):
            stats["chars"] += len(s["const"])
        if "anyOf" in s and not (isinstance(s["anyOf"], list) and s["anyOf"]):
            bad(path, "anyOf must be a non-empty list")
        for sub, p in children(s, path):
            walk(sub, p, level)

    walk({k: v for k, v in root.items() if k != "$defs"}, "", 0)
    for dname, d in defs.items():
        walk(d, f"/$defs/{dname}", 0)
    if stats["properties"] > 5000:
        bad("", f"{stats['properties']} object properties (> 5000)")
    if stats["enum_values"] > 1000:
        bad("", f"{stats['enum_values']} enum values (> 1000)")
    if stats["chars"] > 120000:
        bad("", f"{stats['chars']} characters of names and values (> 120,000)")
    return out


def check_gemini(tool):
    out = []
    name, root = tool.get("name", ""), tool.get("inputSchema")
    bad = lambda where, what: out.append(f"{name}: {where or '/'}: {what}")
    if not GEMINI_NAME.match(name):
        bad("", "function name must start with a letter or underscore (letters, digits, _ . -; at most 64)")
    if not isinstance(root, dict) or str(root.get("type", "")).lower() != "object":
        return out + [f"{name}: parameters must be an OBJECT schema"]

    def walk(s, path, is_root):
        if not isinstance(s, dict):
            bad(path, "schema is not an object")
            return
        for k in s:
            if k not in GEMINI_KEYS:
                bad(path, f"Unknown name {k!r}: Cannot find field")
        t = s.get("type")
        if isinstance(t, list):
            bad(path, "type is a list (proto field is not repeating)")
            return
        t = t.lower() if isinstance(t, str) else None
        if t is None and "anyOf" not in s:
            bad(path, "schema has no type")
        if t is not None and t not in GEMINI_TYPES:
            bad(path, f"type {t!r} is not a Gemini type")
        if "enum" in s and not all(isinstance(v, str) for v in s["enum"]):
            bad(path, "enum values must be strings")
        if "format" in s and s["format"] not in GEMINI_FORMATS.get(t, set()):
            bad(path, f"format {s['format']!r} is not supported for {t}")
        if t == "array" and not isinstance(s.get("items"), dict):
            bad(path, "items: missing field")
        if t == "object":
            props = s.get("properties")
            if not is_root and not (isinstance(props, dict) and props):
                bad(path, "properties: should be non-empty for OBJECT type")
            for r in s.get("required") or []:
                if r not in (props or {}):
                    bad(path, f"required names {r!r}, which is not a property")
        for sub, p in children(s, path):
            walk(sub, p, False)

    walk(root, "", True)
    return out


SUBSCHEMA_MAPS = ("properties", "patternProperties", "dependentSchemas", "$defs", "definitions")
SUBSCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems")
SUBSCHEMA_ONE = ("items", "additionalProperties", "additionalItems", "not", "if", "then", "else",
                 "contains", "propertyNames", "unevaluatedProperties", "unevaluatedItems")


def check_inline(tool):
    out = []

    def walk(s, path):
        if not isinstance(s, dict):
            return
        for k in ("$ref", "$defs", "$dynamicRef", "definitions"):
            if k in s:
                out.append(f"{tool.get('name')}: {path or '/'}: '{k}' in the inline variant")
        for k, v in s.items():
            if k in SUBSCHEMA_MAPS and isinstance(v, dict):
                for name, sub in v.items():
                    walk(sub, f"{path}/{k}/{name}")
            elif k in SUBSCHEMA_LISTS and isinstance(v, list):
                for i, sub in enumerate(v):
                    walk(sub, f"{path}/{k}/{i}")
            elif k in SUBSCHEMA_ONE:
                walk(v, f"{path}/{k}")

    walk(tool.get("inputSchema"), "")
    for_output = tool.get("outputSchema")
    if for_output is not None:
        walk(for_output, "(output)")
    return out


CHECKS = {"openai-strict": check_openai, "gemini": check_gemini, "inline": check_inline}


def check_catalog(catalog, variant):
    check = CHECKS[variant]
    problems = []
    for tool in catalog.get("tools", []):
        problems.extend(check(tool))
    return problems


def self_test():
    good_openai = {"name": "get_x", "inputSchema": {
        "type": "object", "additionalProperties": False, "required": ["a", "b"],
        "properties": {"a": {"type": "string", "pattern": "^a"},
                       "b": {"anyOf": [{"$ref": "#/$defs/B"}, {"type": "null"}], "description": "B."}},
        "$defs": {"B": {"type": "object", "properties": {}, "required": [], "additionalProperties": False}}}}
    cases = [
        ("openai-strict", good_openai, 0),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}},
                                                         "additionalProperties": False}}, 1),  # not required
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {}, "required": []}}, 1),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "type": "string", "maxLength": 3}}, "required": ["a"], "additionalProperties": False}}, 1),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "$ref": "#/$defs/A", "description": "d"}}, "required": ["a"], "additionalProperties": False,
            "$defs": {"A": {"type": "string"}}}}, 1),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "oneOf": [{"type": "string"}]}}, "required": ["a"], "additionalProperties": False}}, 2),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "type": "array"}}, "required": ["a"], "additionalProperties": False}}, 1),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "type": "string", "format": "uri"}}, "required": ["a"], "additionalProperties": False}}, 1),
        ("openai-strict", {"name": "x" * 65, "inputSchema": {"type": "object", "properties": {},
                                                              "required": [], "additionalProperties": False}}, 1),
        ("openai-strict", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {
            "type": ["string", "null"], "enum": ["a"]}}, "required": ["a"], "additionalProperties": False}}, 1),
        ("gemini", {"name": "get_x", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "string", "nullable": True, "enum": ["x"]},
            "b": {"type": "array", "items": {"type": "integer", "format": "int64", "minimum": 1}}},
            "required": ["a"]}}, 0),
        ("gemini", {"name": "x", "inputSchema": {"type": "object", "properties": {
            "a": {"type": ["string", "null"]}}}}, 1),
        ("gemini", {"name": "x", "inputSchema": {"type": "object", "properties": {
            "a": {"$ref": "#/x"}}}}, 2),
        ("gemini", {"name": "x", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "integer", "enum": [1, 2]}}}}, 1),
        ("gemini", {"name": "x", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "object"}}, "additionalProperties": False}}, 2),
        ("gemini", {"name": "x", "inputSchema": {"type": "object", "properties": {
            "a": {"type": "string", "format": "email", "const": "a"}}}}, 2),
        ("gemini", {"name": "1x", "inputSchema": {"type": "object", "properties": {}}}, 1),
        ("inline", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}},
                                                  "$defs": {"A": {}}}}, 2),
        ("inline", {"name": "x", "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}}}, 0),
    ]
    failed = 0
    for i, (variant, tool, expected) in enumerate(cases):
        got = CHECKS[variant](tool)
        if len(got) != expected:
            failed += 1
            print(f"case {i} ({variant}): expected {expected} problem(s), got {len(got)}: {got}")
    print(f"{len(cases) - failed} passed, {failed} failed")
    return 1 if failed else 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--variant", choices=sorted(CHECKS))
    ap.add_argument("--self-test", action="store_true")
    ap.add_argument("--max-shown", type=int, default=20)
    ap.add_argument("catalogs", nargs="*")
    args = ap.parse_args()
    if args.self_test:
        sys.exit(self_test())
    if not args.variant or not args.catalogs:
        ap.error("--variant and at least one catalog are required")
    total_tools, problems = 0, []
    for path in args.catalogs:
        with open(path, encoding="utf-8") as f:
            catalog = json.load(f)
        total_tools += len(catalog.get("tools", []))
        problems.extend(f"{path}: {p}" for p in check_catalog(catalog, args.variant))
    for p in problems[: args.max_shown]:
        print(p)
    print(f"{args.variant}: {total_tools} tool(s) in {len(args.catalogs)} catalog(s), {len(problems)} violation(s)")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
