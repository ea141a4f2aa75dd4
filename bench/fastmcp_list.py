#!/usr/bin/env python3
"""Time what a FastMCP user waits for: load an OpenAPI document, build the
server with FastMCP.from_openapi(...), and list its tools.

Usage: fastmcp_list.py DOC
Prints one line on stdout: "tools=N load=S build=S list=S total=S".
Peak RSS is measured outside (by /usr/bin/time -v in peers.sh).
"""
import asyncio
import json
import sys
import time


def main() -> int:
    path = sys.argv[1]
    t0 = time.perf_counter()
    # Imports count: a user pays them too (they are a fixed ~1-2 s cost).
    from fastmcp import FastMCP

    try:  # fastmcp 4.x takes an httpx2 client; older versions httpx.
        import httpx2 as httpx
    except ImportError:  # pragma: no cover
        import httpx
    t_import = time.perf_counter()

    with open(path, "rb") as f:
        raw = f.read()
    if path.endswith((".yaml", ".yml")):
        import yaml

        spec = yaml.safe_load(raw)
    else:
        spec = json.loads(raw)
    t_load = time.perf_counter()

    base = "http://127.0.0.1:9"
    servers = spec.get("servers") or []
    if servers and isinstance(servers[0], dict) and servers[0].get("url", "").startswith("http"):
        base = servers[0]["url"]
    client = httpx.AsyncClient(base_url=base)
    mcp = FastMCP.from_openapi(openapi_spec=spec, client=client)
    t_build = time.perf_counter()

    async def list_tools():
        tools = await mcp.list_tools()
        # Serialize like tools/list would, so lazily built schemas are paid for.
        payload = [t.to_mcp_tool().model_dump(mode="json", exclude_none=True) for t in tools]
        return len(tools), len(json.dumps(payload))

    n, nbytes = asyncio.run(list_tools())
    t_list = time.perf_counter()
    print(
        f"tools={n} bytes={nbytes} import={t_import - t0:.3f} load={t_load - t_import:.3f} "
        f"build={t_build - t_load:.3f} list={t_list - t_build:.3f} total={t_list - t0:.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
