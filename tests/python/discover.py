"""Drives a server whose endpoint has exposure `discover` with the official Python SDK, as an
agent host would: list the tools, search, describe what it found, then call through call_tool a
keyed write twice (the retry of one intent) and a paged list to its end through next-page handles.

Usage: discover.py --url URL --mode {2026-07-28,legacy} --query TEXT --write NAME --write-args JSON
                   --list NAME --list-args JSON --cursor ARG

Prints one JSON document: the listed tool names, the search's names in order, the described
definitions' names and input properties, both writes' structured results and error flags, and
every page's structured result.
"""

import argparse
import json
import sys

from mcp import Client

from report import run_and_print


def structured(result):
    return {"is_error": bool(result.is_error), "structured": result.structured_content,
            "text": [c.text for c in result.content if c.type == "text"]}


async def drive(a):
    out = {}
    async with Client(a.url, mode=a.mode) as client:
        listed = await client.list_tools()
        out["tools"] = sorted(t.name for t in listed.tools)
        out["listed"] = [t.model_dump(by_alias=True, exclude_none=True) for t in listed.tools]
        found = await client.call_tool("search_tools", {"query": a.query, "limit": 10})
        out["search"] = [t["name"] for t in (found.structured_content or {}).get("tools", [])]
        described = await client.call_tool("describe_tools", {"names": [a.write, a.list, "no_such_tool"]})
        d = described.structured_content or {}
        out["described"] = {t["name"]: sorted(t["inputSchema"].get("properties", {})) for t in d.get("tools", [])}
        out["unknown"] = d.get("unknown", [])
        write_args = json.loads(a.write_args)
        out["writes"] = [
            structured(await client.call_tool("call_tool", {"name": a.write, "arguments": write_args}))
            for _ in range(2)
        ]
        bad = await client.call_tool("call_tool", {"name": a.write, "arguments": {"idempotency_key": "k"}})
        out["invalid"] = structured(bad)
        pages = []
        args = json.loads(a.list_args)
        for _ in range(20):
            page = await client.call_tool("call_tool", {"name": a.list, "arguments": args})
            pages.append(structured(page))
            handle = (page.structured_content or {}).get("next_cursor")
            if page.is_error or not handle:
                break
            args = dict(json.loads(a.list_args), **{a.cursor: handle})
        out["pages"] = pages
    return out


def main():
    p = argparse.ArgumentParser()
    for flag in ("--url", "--mode", "--query", "--write", "--write-args", "--list", "--list-args", "--cursor"):
        p.add_argument(flag, required=True)
    return run_and_print(drive(p.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
