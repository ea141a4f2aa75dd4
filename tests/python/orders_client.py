"""Drives the native orders example (examples/orders) with the official Python SDK and prints
what it saw: the catalog, a keyed create and its repeat, refused arguments, a handler's own
error, an irreversible cancel, and a walk through every page of orders by next-page handles.

Usage: orders_client.py --url URL --mode {2026-07-28,legacy} --customer NAME
"""

import argparse
import json
import sys

from mcp import Client

from report import run_and_print


def outcome(result):
    text = [c.text for c in result.content if c.type == "text"]
    return {"is_error": bool(result.is_error), "structured": result.structured_content, "text": text}


async def scenario(url, mode, customer):
    async with Client(url, mode=mode) as client:
        tools = await client.list_tools()
        out = {"tools": sorted(t.name for t in tools.tools)}
        order = {
            "customer": customer,
            "currency": "EUR",
            "note": "python",
            "lines": [{"sku": "MUG-01", "quantity": 2, "unit_price": 1250}],
            "idempotency_key": f"{customer}-first",
        }
        out["create"] = outcome(await client.call_tool("create_order", order))
        out["repeat"] = outcome(await client.call_tool("create_order", order))
        bad = dict(order, idempotency_key=f"{customer}-bad", lines=[{"sku": "MUG-01", "quantity": 0, "unit_price": 1}])
        out["invalid"] = outcome(await client.call_tool("create_order", bad))
        out["missing"] = outcome(await client.call_tool("get_order", {"order_id": "ord_0000000000000000"}))
        order_id = out["create"]["structured"]["id"]
        cancel = {"order_id": order_id, "reason": "customer_request", "idempotency_key": f"{customer}-cancel"}
        out["cancel"] = outcome(await client.call_tool("cancel_order", cancel))
        out["cancel_again"] = outcome(
            await client.call_tool("cancel_order", dict(cancel, idempotency_key=f"{customer}-cancel-2"))
        )
        for i in range(4):
            more = dict(order, note=f"more-{i}", idempotency_key=f"{customer}-more-{i}")
            await client.call_tool("create_order", more)
        seen, cursor, pages = [], None, 0
        while True:
            args = {"customer": customer, "limit": 2}
            if cursor is not None:
                args["cursor"] = cursor
            page = outcome(await client.call_tool("list_orders", args))
            if page["is_error"]:
                out["page_error"] = page
                break
            pages += 1
            seen.extend(o["id"] for o in page["structured"]["items"])
            cursor = page["structured"]["next_cursor"]
            if cursor is None or pages > 10:
                break
        out["pages"] = pages
        out["listed"] = seen
        out["quote"] = outcome(await client.call_tool("quote_shipping", {"country": "TR", "weight_grams": 1200}))
        return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--mode", required=True)
    parser.add_argument("--customer", required=True)
    a = parser.parse_args()
    return run_and_print(scenario(a.url, a.mode, a.customer))


if __name__ == "__main__":
    sys.exit(main())
