"""Prefect (the orchestration server), over the OpenAPI 3.1 description its FastAPI REST API
serves at /api/openapi.json, taken as it is. SQLite in the run's temporary directory."""

import os
import uuid

NAME = "prefect"
TITLE = "Prefect"
VERSION = "3.9.1"
ORIGIN = "FastAPI, OpenAPI 3.1 served at /api/openapi.json"
REQUIREMENTS = ["prefect==3.9.1"]

# Steps expected to fail today, and why (a rule of the next issue, or the application).
KNOWN = {}


def start(env):
    port = env.port()
    home = os.path.join(env.tmp, "prefect-home")
    os.makedirs(home)
    extra = {
        "PREFECT_HOME": home,  # profiles, logs and the default database under the run's directory
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{os.path.join(env.tmp, 'prefect.db')}",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",  # no telemetry from a test run
        "PREFECT_UI_ENABLED": "false",  # the dashboard is not under test
    }
    proc = env.spawn([env.bin("prefect"), "server", "start", "--host", "127.0.0.1", "--port", str(port)],
                     "prefect.log", extra)
    origin = f"http://127.0.0.1:{port}"
    env.wait_http(f"{origin}/api/health", procs=[proc])
    # The REST API is mounted at /api; its description says so (`servers: [{url: /api}]`) and its
    # paths (`/flows/filter`) do not repeat the prefix. (/openapi.json at the root, the one /docs
    # shows, has the same paths without `servers`.)
    return {
        "procs": [proc],
        "upstream": f"{origin}/api",
        "description": env.fetch(f"{origin}/api/openapi.json", "openapi.json"),
        "secrets": {},  # no authentication unless PREFECT_SERVER_API_AUTH_STRING is set
    }


def _has(field, want):
    return lambda r: None if r and r.get(field) == want else f"{field} is not {want!r}"


def _items(r):
    """A list result: the array itself, or the array under the one key the server wraps it in."""
    if isinstance(r, list):
        return r
    if isinstance(r, dict):
        for v in r.values():
            if isinstance(v, list):
                return v
    return None


async def scenario(s):
    t = s.tag  # lowercase letters and digits: a valid flow, variable and artifact name in Prefect
    flow_name = f"{t}-etl"

    # Flows (docs: "Flows" REST reference). POST /flows/filter is Prefect's list; it takes a key here
    # because mcp-gen treats a POST read as a write (a known compiler issue).
    await s.step("list flows", "read_flows", {"limit": 10, "idempotency_key": s.key()},
                 check=lambda r: None if _items(r) is not None else "no list")
    flow = await s.step("create a flow", "create_flow", {"name": flow_name, "tags": [t], "idempotency_key": s.key()},
                        check=_has("name", flow_name))
    fid = (flow or {}).get("id", str(uuid.uuid4()))
    await s.step("read the flow", "read_flow", {"id": fid}, check=_has("name", flow_name))
    await s.step("find the flow by name", "read_flow_by_name", {"name": flow_name}, check=_has("id", fid))
    await s.step("tag the flow", "update_flow", {"id": fid, "tags": [t, "nightly"], "idempotency_key": s.key()})
    await s.step("the flow has its tags", "read_flow", {"id": fid},
                 check=lambda r: None if r and sorted(r.get("tags") or []) == sorted([t, "nightly"]) else "tags differ")
    await s.step("list flows by tag", "read_flows",
                 {"flows": {"tags": {"all_": [t]}}, "idempotency_key": s.key()},
                 check=lambda r: None if [f.get("id") for f in _items(r) or []] == [fid] else "not just the flow")

    # Variables (docs: "Variables"): create, read, update, list a page past the first, delete.
    names = [f"{t}_a", f"{t}_b", f"{t}_c"]
    made = []
    for n in names:
        v = await s.step(f"create variable {n[-1]}", "create_variable",
                         {"name": n, "value": f"value {n[-1]}", "tags": [t], "idempotency_key": s.key()},
                         check=_has("name", n))
        made.append((v or {}).get("id", str(uuid.uuid4())))
    va = made[0]
    await s.step("read a variable by name", "read_variable_by_name", {"name": names[0]}, check=_has("id", va))
    await s.step("update the variable", "update_variable",
                 {"id": va, "value": {"retries": 3}, "idempotency_key": s.key()})
    await s.step("read the variable back", "read_variable", {"id": va}, check=_has("value", {"retries": 3}))
    await s.step("the second page of variables", "read_variables",
                 {"variables": {"tags": {"all_": [t]}}, "sort": "NAME_ASC", "limit": 1, "offset": 1,
                  "idempotency_key": s.key()},
                 check=lambda r: None if [v.get("name") for v in _items(r) or []] == [names[1]] else "not the second")
    await s.step("count the variables", "count_variables", {"variables": {"tags": {"all_": [t]}}},
                 check=lambda r: None if r == 3 or (isinstance(r, dict) and 3 in r.values()) else f"count {r!r}")
    await s.step("a variable name that exists", "create_variable",
                 {"name": names[0], "value": "again", "idempotency_key": s.key()}, expect="conflict")

    # A flow run of the flow (docs: "Flow runs"): Prefect dedupes runs on their idempotency_key, the
    # body field mcp-gen forwards the tool's key into.
    run = await s.step("start a flow run", "create_flow_run",
                       {"flow_id": fid, "name": f"{t}-run", "idempotency_key": s.key()}, check=_has("flow_id", fid))
    rid = (run or {}).get("id", str(uuid.uuid4()))
    await s.step("read the flow run", "read_flow_run", {"id": rid}, check=_has("name", f"{t}-run"))

    # Errors.
    await s.step("a missing variable", "read_variable", {"id": str(uuid.uuid4())}, expect="not_found")
    await s.step("a missing flow", "read_flow", {"id": str(uuid.uuid4())}, expect="not_found")
    await s.step("a bad argument", "read_variables", {"sort": "BY_COLOUR", "idempotency_key": s.key()},
                 expect="invalid_argument")
    await s.step("an id that is no UUID", "read_flow", {"id": "etl"}, expect="invalid_argument")
    # Prefect refuses these with FastAPI's 422 (HTTPValidationError, which the description lists
    # for every operation); the runtime answers `upstream_rejected` for a 422 today.
    refused = {"invalid_argument", "upstream_rejected"}
    await s.step("a name Prefect refuses", "create_variable",
                 {"name": f"{t} Bad Name!", "value": 1, "idempotency_key": s.key()}, expect=refused)
    await s.step("a page size over Prefect's cap", "read_variables", {"limit": 1000, "idempotency_key": s.key()},
                 expect=refused)

    # An artifact (docs: "Artifacts"): each POST /artifacts/ makes a new version, so only the key
    # keeps a retried call from making two.
    def artifacts():
        _, n = s.http("POST", "/api/artifacts/count", json={"artifacts": {"key": {"any_": [f"{t}-report"]}}})
        return n if isinstance(n, int) else -1

    await s.retried("publish a report artifact", "create_artifact",
                    {"key": f"{t}-report", "type": "markdown", "data": f"# Report {t}", "description": "nightly"},
                    artifacts)

    # Clean up: deletes, and reads that find nothing afterwards.
    await s.step("delete the variable", "delete_variable", {"id": va, "idempotency_key": s.key()})
    await s.step("the variable is gone", "read_variable", {"id": va}, expect="not_found")
    await s.step("delete the flow", "delete_flow", {"id": fid, "idempotency_key": s.key()})
    await s.step("the flow is gone", "read_flow", {"id": fid}, expect="not_found")
    await s.step("its run went with it", "read_flow_run", {"id": rid}, expect="not_found")
    await s.step("delete it again", "delete_flow", {"id": fid, "idempotency_key": s.key()}, expect="not_found")
