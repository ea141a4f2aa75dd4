"""Kinto (Mozilla's JSON storage server: Pyramid + Cornice) with its memory backend and the
basicauth policy, over the Swagger 2.0 description it serves at /v1/__api__, taken as it is."""

import base64
import os
import subprocess

NAME = "kinto"
TITLE = "Kinto"
VERSION = "26.5.0"
ORIGIN = "Pyramid + Cornice, Swagger 2.0 served at /v1/__api__"
REQUIREMENTS = ["kinto==26.5.0"]

# Kinto's basicauth policy: any user:password pair is an identity (basicauth:<hmac of both>).
USER, PASSWORD = "mcp-gen", "real-suite-secret"

# Steps expected to fail today, and why.
KNOWN = {
    "the next page, with the cursor the first page gave":
        "Kinto puts the next page's address in a `Next-Page` response header that its description "
        "does not declare; mcp-gen hands back no cursor for `_token` (and `paginate` has no way to "
        "name such a header), so the model cannot reach page 2 through list_records: issue 45's "
        "pagination rule (a `next` link or header served through a handle)",
}


def _configure(ini):
    """`kinto init` writes the accounts plugin and policy; Kinto's docs' basicauth setup instead."""
    text = open(ini).read()
    edits = [
        # the accounts and admin plugins off (default_bucket, Kinto's own, stays)
        ("kinto.includes = kinto.plugins.default_bucket\n                 kinto.plugins.admin\n"
         "                 kinto.plugins.accounts\n", "kinto.includes = kinto.plugins.default_bucket\n"),
        # any user:password is an identity
        ("multiauth.policies = account\n", "multiauth.policies = basicauth\n"),
        ("multiauth.policy.account.use = kinto.plugins.accounts.AccountsPolicy\n", ""),
        # any authenticated identity may create buckets (Kinto's default, which init narrows)
        ("kinto.bucket_create_principals = account:admin\n",
         "kinto.bucket_create_principals = system.Authenticated\n"),
    ]
    for old, new in edits:
        if old not in text:
            raise RuntimeError(f"kinto init wrote an ini without {old.strip()!r}")
        text = text.replace(old, new)
    with open(ini, "w") as f:
        f.write(text)


def start(env):
    port = env.port()
    ini = os.path.join(env.tmp, "kinto.ini")
    subprocess.run([env.bin("kinto"), "init", "--ini", ini, "--backend", "memory", "--cache-backend", "memory",
                    "--host", "127.0.0.1"], check=True, capture_output=True, cwd=env.tmp)
    _configure(ini)
    subprocess.run([env.bin("kinto"), "migrate", "--ini", ini], check=True, capture_output=True, cwd=env.tmp)
    proc = env.spawn([env.bin("kinto"), "start", "--ini", ini, "--port", str(port)], "kinto.log")
    origin = f"http://127.0.0.1:{port}"
    env.wait_http(f"{origin}/v1/__heartbeat__", procs=[proc])
    basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()
    return {
        "procs": [proc],
        # the description's paths start after its basePath `/v1`
        "upstream": f"{origin}/v1",
        "description": env.fetch(f"{origin}/v1/__api__", "kinto-api.json"),
        # the description declares `basicauth` (type basic): the generated server reads these two
        "secrets": {"KINTO_BASICAUTH_USERNAME": USER, "KINTO_BASICAUTH_PASSWORD": PASSWORD},
        "http_headers": {"Authorization": f"Basic {basic}"},
    }


def _has(**want):
    """check: the answer's `data` holds these fields with these values."""
    def check(r):
        data = (r or {}).get("data") or {}
        for k, v in want.items():
            if data.get(k) != v:
                return f"data.{k} is {data.get(k)!r}, not {v!r}"
        return None
    return check


def _titles(want):
    """check: the listed records' titles, in order."""
    def check(r):
        got = [x.get("title") for x in (r or {}).get("data") or []]
        return None if got == want else f"titles {got}"
    return check


async def scenario(s):
    b, c = s.tag, "tasks"  # Kinto ids: letters, digits, - and _
    where = {"bucket_id": b, "collection_id": c}

    await s.step("create a bucket", "create_bucket", {"data": {"id": b}, "idempotency_key": s.key()},
                 check=_has(id=b))
    await s.step("create a collection in it", "create_collection",
                 {"bucket_id": b, "data": {"id": c}, "idempotency_key": s.key()}, check=_has(id=c))
    ids = []
    for title in ["buy bread", "call the plumber", "water the plants"]:
        r = await s.step(f"create a record: {title}", "create_record",
                         {**where, "data": {"title": title, "done": False}, "idempotency_key": s.key()},
                         check=lambda r: None if (r or {}).get("data", {}).get("id") else "no id")
        ids.append(((r or {}).get("data") or {}).get("id", "none"))
    await s.step("store a record under an id I choose (PUT)", "update_record",
                 {**where, "id": "milk", "data": {"title": "buy milk", "done": False}, "idempotency_key": s.key()},
                 check=_has(id="milk", title="buy milk"))

    await s.step("list the records", "list_records", {**where, "_sort": ["title"]},
                 check=_titles(["buy bread", "buy milk", "call the plumber", "water the plants"]))
    await s.step("read one", "get_record", {**where, "id": ids[1]}, check=_has(title="call the plumber"))
    await s.step("mark it done (PATCH)", "patch_record",
                 {**where, "id": ids[1], "data": {"done": True}, "idempotency_key": s.key()},
                 check=_has(title="call the plumber", done=True))
    await s.step("replace it (PUT)", "update_record",
                 {**where, "id": ids[1], "data": {"title": "call the plumber again"}, "idempotency_key": s.key()},
                 check=lambda r: _has(title="call the plumber again")(r)
                 or ("the old field `done` survived a PUT" if "done" in (r or {}).get("data", {}) else None))
    await s.step("only the fields I ask for", "get_record", {**where, "id": ids[1], "_fields": ["title"]},
                 check=lambda r: None if set((r or {}).get("data", {})) <= {"id", "last_modified", "title"}
                 else f"fields {sorted((r or {}).get('data', {}))}")

    # Kinto pages with `_limit`; the next page's address comes in a `Next-Page` header, whose
    # `_token` the next call sends.
    first = await s.step("the first page of two", "list_records", {**where, "_sort": ["title"], "_limit": 2},
                         check=_titles(["buy bread", "buy milk"]))
    cursor = None
    for k in ("next_cursor", "_token", "next"):
        cursor = cursor or (first or {}).get(k)
    await s.step("the next page, with the cursor the first page gave", "list_records",
                 {**where, "_sort": ["title"], "_limit": 2, "_token": cursor or "(the first page gave none)"},
                 check=_titles(["call the plumber again", "water the plants"]))
    # What a model can do without the header: Kinto's `_since` (objects changed after a timestamp).
    by_time = await s.step("the first two by time", "list_records", {**where, "_sort": ["last_modified"], "_limit": 2})
    last = (((by_time or {}).get("data") or [{}])[-1:] or [{}])[0].get("last_modified", 0)
    await s.step("the ones after them, by _since", "list_records",
                 {**where, "_sort": ["last_modified"], "_limit": 2, "_since": last},
                 check=lambda r: None if len((r or {}).get("data") or []) == 2 else "not two more")

    await s.step("delete one", "delete_record", {**where, "id": ids[0], "idempotency_key": s.key()},
                 check=_has(id=ids[0], deleted=True))
    await s.step("read the deleted record", "get_record", {**where, "id": ids[0]}, expect="not_found")
    await s.step("a missing record", "get_record", {**where, "id": "no-such-record"}, expect="not_found")
    # Kinto does not say whether a bucket it will not show you exists: 403, not 404.
    await s.step("a record in a bucket that is not there", "get_record",
                 {"bucket_id": f"{b}-missing", "collection_id": c, "id": ids[2]}, expect="permission_denied")
    await s.step("a bad argument (a negative page size)", "list_records", {**where, "_limit": -1},
                 expect="invalid_argument")
    # An id Kinto refuses (HTTP 400 "Invalid object id"): the schema allows any string.
    await s.step("a bad argument Kinto refuses (an id with spaces)", "update_record",
                 {**where, "id": "not a valid id", "data": {"title": "x"}, "idempotency_key": s.key()},
                 expect={"invalid_argument", "upstream_rejected"})

    # POST .../records without an id makes a new record each time it reaches Kinto.
    def records():
        status, body = s.http("GET", f"/v1/buckets/{b}/collections/{c}/records")
        return len((body or {}).get("data") or []) if status == 200 else -1

    await s.retried("add a record", "create_record", {**where, "data": {"title": "retried", "done": False}}, records)

    await s.step("delete the collection", "delete_collection", {"bucket_id": b, "id": c, "idempotency_key": s.key()},
                 check=_has(id=c, deleted=True))
    # The overlay says a person approves deleting a whole bucket: the call waits for them.
    await s.step("delete the bucket (a person approves)", "delete_bucket", {"id": b, "idempotency_key": s.key()},
                 expect="awaiting_approval")
    s.http("DELETE", f"/v1/buckets/{b}")
