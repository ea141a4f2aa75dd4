#!/usr/bin/env python3
"""FastMCP's `from_openapi` server for the bench: the invoices spec, calls sent to --upstream.

Usage: fastmcp_server.py SPEC --upstream URL --port P

Run as its users would in production: Streamable HTTP with sessions (FastMCP's default), JSON
answers instead of SSE streams and no access log (both cheaper), one uvicorn worker.
"""
import argparse
import asyncio
import json

import yaml
from fastmcp import FastMCP
import httpx2 as httpx


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("spec")
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    with open(args.spec, "rb") as f:
        # JSON, or YAML read as JSON would be (YAML turns `version: 2026-01-15` into a date).
        spec = json.loads(json.dumps(yaml.safe_load(f), default=str))
    client = httpx.AsyncClient(base_url=args.upstream, headers={"authorization": "Bearer bench"},
                               limits=httpx.Limits(max_connections=1000, max_keepalive_connections=1000))
    mcp = FastMCP.from_openapi(openapi_spec=spec, client=client, name="invoices")
    asyncio.run(mcp.run_http_async(
        show_banner=False, host="127.0.0.1", port=args.port, path="/mcp", log_level="warning",
        json_response=True, uvicorn_config={"access_log": False}))


if __name__ == "__main__":
    main()
