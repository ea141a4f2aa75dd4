"""Calls a tool whose server asks the user for a value (MRTR `input_required`, 2026-07-28) with
the official Python SDK, answering each elicitation as the user would.

Usage: elicit_client.py --url URL --mode {2026-07-28,legacy} --tool NAME --args JSON --answer JSON

`--answer` is the content the user gives to every form the server asks for (e.g.
{"reason": "..."} or {"confirm": true}). Prints one JSON document: the elicitations the client
received (message, requested schema) and the call's outcome.
"""

import argparse
import json
import sys

from mcp import Client, types

from report import run_and_print


async def scenario(url, mode, tool, arguments, answer):
    asked = []

    async def elicit(context, params):
        asked.append({"message": params.message, "schema": params.requested_schema})
        return types.ElicitResult(action="accept", content=answer)

    async with Client(url, mode=mode, elicitation_callback=elicit) as client:
        try:
            result = await client.call_tool(tool, arguments)
        except Exception as e:  # what the host sees when the SDK gives up
            return {"elicitations": asked, "raised": f"{type(e).__name__}: {e}"}
        return {
            "elicitations": asked,
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
    parser.add_argument("--answer", required=True)
    a = parser.parse_args()
    return run_and_print(scenario(a.url, a.mode, a.tool, json.loads(a.args), json.loads(a.answer)))


if __name__ == "__main__":
    sys.exit(main())
