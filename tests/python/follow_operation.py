"""Starts a long-running operation with the official Python SDK and follows it through the
catalog's status tool until it ends, as an agent host would.

Usage: follow_operation.py --url URL --mode {2026-07-28,legacy} --tool NAME --args JSON --status-tool NAME

Prints one JSON document: every structured result in order (the start, then each poll), and
the last result's error flag.
"""

import argparse
import asyncio
import json
import sys

from mcp import Client

from report import run_and_print


async def follow(url, mode, tool, arguments, status_tool):
    seen = []
    async with Client(url, mode=mode) as client:
        await client.list_tools()
        result = await client.call_tool(tool, arguments)
        seen.append(result.structured_content)
        for _ in range(50):
            current = result.structured_content or {}
            if result.is_error or current.get("status") != "working":
                break
            await asyncio.sleep(current.get("poll_after_ms", 0) / 1000)
            result = await client.call_tool(status_tool, {"operation": current["operation"]})
            seen.append(result.structured_content)
        return {
            "results": seen,
            "is_error": bool(result.is_error),
            "text": [c.text for c in result.content if c.type == "text"],
        }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--tool", required=True)
    parser.add_argument("--args", required=True)
    parser.add_argument("--status-tool", required=True)
    a = parser.parse_args()
    return run_and_print(follow(a.url, a.mode, a.tool, json.loads(a.args), a.status_tool))


if __name__ == "__main__":
    sys.exit(main())
