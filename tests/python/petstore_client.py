"""Drives a generated petstore MCP server with the official Python SDK (an independent client).

Usage: petstore_client.py --mode {2026-07-28,legacy,auto} (--url URL | [--env NAME=VALUE] --stdio -- COMMAND...)

Runs the petstore scenario (list tools; create, get, list, delete a pet; invalid arguments;
a missing pet; an unknown tool) and prints one JSON document describing what the client saw.
The Rust end-to-end test asserts on it.
"""

import argparse
import json
import os
import sys

from mcp import Client, MCPError, StdioServerParameters

from report import run_and_print


def dump(model):
    return model.model_dump(mode="json", by_alias=True, exclude_none=True)


def outcome(result):
    return {
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": [c.text for c in result.content if c.type == "text"],
    }


async def scenario(target, mode):
    out = {}
    async with Client(target, mode=mode) as client:
        listed = await client.list_tools()
        out["protocol_version"] = client.protocol_version
        out["tools"] = [dump(t) for t in listed.tools]
        created = await client.call_tool(
            "add_pet",
            {"name": "Rex", "photoUrls": ["https://example.com/rex.jpg"], "status": "available", "tags": [{"id": 1, "name": "good"}], "idempotency_key": "py-add-rex"},
        )
        out["created"] = outcome(created)
        pet_id = (created.structured_content or json.loads(created.content[0].text))["id"]
        out["got"] = outcome(await client.call_tool("get_pet", {"petId": pet_id}))
        out["listed"] = outcome(await client.call_tool("find_pets", {"status": "available"}))
        out["tagged"] = outcome(await client.call_tool("find_pets", {"tags": ["good"]}))
        out["both"] = outcome(await client.call_tool("find_pets", {"status": "sold", "tags": ["good"]}))
        out["invalid"] = outcome(await client.call_tool("get_pet", {"petId": 0}))
        out["deleted"] = outcome(await client.call_tool("delete_pet", {"petId": pet_id, "idempotency_key": "py-delete-rex"}))
        out["missing"] = outcome(await client.call_tool("get_pet", {"petId": pet_id}))
        try:
            await client.call_tool("no_such_tool", {})
            out["unknown"] = {"error": None}
        except MCPError as e:
            out["unknown"] = {"error": {"code": e.code, "message": e.message}}
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url")
    parser.add_argument("--stdio", action="store_true", help="start the server command given after --")
    parser.add_argument("--mode", required=True)
    parser.add_argument("--env", action="append", default=[], help="NAME=VALUE for the stdio server")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if args.url:
        target = args.url
    elif args.stdio and command:
        # The SDK passes only a minimal environment to the server; add what it needs.
        env = dict(os.environ)
        env.update(kv.split("=", 1) for kv in args.env)
        target = StdioServerParameters(command=command[0], args=command[1:], env=env)
    else:
        parser.error("pass --url URL, or --stdio -- COMMAND...")
    return run_and_print(scenario(target, args.mode))


if __name__ == "__main__":
    sys.exit(main())
