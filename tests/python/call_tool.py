"""Calls one tool of an MCP server over Streamable HTTP with the official Python SDK and prints
what the caller gets: the result, or the exception the SDK raised instead (it checks structured
results against the tool's outputSchema and raises when one does not conform).

Usage: call_tool.py --url URL --mode {2026-07-28,legacy} --tool NAME --args JSON
"""

import argparse
import json
import sys

from mcp import Client

from report import run_and_print


async def call(url, mode, tool, arguments):
    async with Client(url, mode=mode) as client:
        await client.list_tools()
        try:
            result = await client.call_tool(tool, arguments)
        except Exception as e:  # what an agent host sees when the SDK refuses a result
            return {"raised": f"{type(e).__name__}: {e}"}
        return {
            "is_error": bool(result.is_error),
            "structured": result.structured_content,
            "text": [c.text for c in result.content if c.type == "text"],
        }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--args", required=True)
    a = parser.parse_args()
    return run_and_print(call(a.url, a.mode, a.tool, json.loads(a.args)))


if __name__ == "__main__":
    sys.exit(main())
