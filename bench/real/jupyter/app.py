"""Jupyter Server with ipykernel, over the Swagger 2.0 description it ships
(jupyter_server/services/api/api.yaml, written by hand), taken as it is."""

import os
import subprocess

NAME = "jupyter"
TITLE = "Jupyter Server"
VERSION = "2.21.1"
ORIGIN = "hand-written Swagger 2.0 (shipped api.yaml)"
# ipykernel so that kernels start (the python3 kernel spec).
REQUIREMENTS = ["jupyter_server==2.21.1", "ipykernel==7.4.0"]
TOKEN = "mcp-gen-real-suite-token"

# Steps expected to fail today, and why (a rule of the next issue, or the application).
KNOWN = {}


def start(env):
    port = env.port()
    root = os.path.join(env.tmp, "root")
    os.makedirs(root)
    cmd = [
        env.bin("jupyter"), "server", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={root}",
        f"--IdentityProvider.token={TOKEN}",
        # Deleting removes (no trash on this machine), folders included.
        "--FileContentsManager.delete_to_trash=False", "--FileContentsManager.always_delete_dir=True",
        "--allow-root",  # CI runs as root
    ]
    extra = {
        "JUPYTER_RUNTIME_DIR": os.path.join(env.tmp, "runtime"),
        "JUPYTER_DATA_DIR": os.path.join(env.tmp, "data"),
        "JUPYTER_CONFIG_DIR": os.path.join(env.tmp, "config"),
    }
    proc = env.spawn(cmd, "jupyter.log", extra)
    auth = {"Authorization": f"token {TOKEN}"}
    env.wait_http(f"http://127.0.0.1:{port}/api/status", headers=auth, procs=[proc])
    spec = subprocess.run(
        [env.bin("python"), "-c",
         "import jupyter_server, os; print(os.path.join(os.path.dirname(jupyter_server.__file__), 'services', 'api', 'api.yaml'))"],
        capture_output=True, text=True, check=True).stdout.strip()
    return {
        "procs": [proc],
        "upstream": f"http://127.0.0.1:{port}",
        "description": spec,
        # overlay server.credentials: the token api.yaml does not declare
        "secrets": {"JUPYTER_TOKEN": TOKEN},
        "http_headers": auth,
    }


def listed(r):
    """A list result: as it is (2026-07-28), or under `result` (earlier eras take objects only)."""
    if isinstance(r, dict) and isinstance(r.get("result"), list):
        return r["result"]
    return r if isinstance(r, list) else []


async def scenario(s):
    d = s.tag
    nd = f"{d}/notes"
    f1, f2 = f"{nd}/hello.txt", f"{nd}/renamed.txt"

    await s.step("who am I", "list_me", {}, check=lambda r: None if r and r.get("identity") else "no identity")
    await s.step("make a folder", "update_content", {"path": d, "type": "directory", "idempotency_key": s.key()})
    await s.step("make a nested folder", "update_content", {"path": nd, "type": "directory", "idempotency_key": s.key()},
                 check=lambda r: None if r and r.get("type") == "directory" else "not a directory")
    await s.step("save a file at a nested path", "update_content",
                 {"path": f1, "type": "file", "format": "text", "content": "hello from mcp\n", "idempotency_key": s.key()},
                 check=lambda r: None if r and r.get("path") == f1 else "not saved there")
    await s.step("read it back", "get_content", {"path": f1},
                 check=lambda r: None if r and r.get("content") == "hello from mcp\n" else "content differs")
    await s.step("list the folder", "get_content", {"path": nd},
                 check=lambda r: None if r and [e.get("name") for e in r.get("content") or []] == ["hello.txt"] else "listing differs")
    await s.step("rename it", "update_content_2", {"path": f1, "body_path": f2, "idempotency_key": s.key()},
                 check=lambda r: None if r and r.get("path") == f2 else "path not renamed")
    cp = await s.step("checkpoint it", "create_content_checkpoint", {"path": f2, "idempotency_key": s.key()},
                      check=lambda r: None if r and r.get("id") else "no checkpoint id")
    await s.step("list checkpoints", "list_content_checkpoints", {"path": f2},
                 check=lambda r: None if r is not None else "no list")
    await s.step("restore the checkpoint", "create_content_checkpoint_2",
                 {"path": f2, "checkpoint_id": (cp or {}).get("id", "none"), "idempotency_key": s.key()})
    await s.step("list kernel specs", "list_kernelspecs", {},
                 check=lambda r: None if r and "python3" in (r.get("kernelspecs") or {}) else "no python3 kernel")
    k = await s.step("start a kernel", "create_kernel", {"body": {"name": "python3"}, "idempotency_key": s.key()})
    kid = (k or {}).get("id", "none")
    await s.step("get the kernel", "get_kernel", {"kernel_id": kid},
                 check=lambda r: None if r and r.get("id") == kid else "another kernel")
    await s.step("interrupt the kernel", "interrupt_kernel", {"kernel_id": kid, "idempotency_key": s.key()})
    sess = await s.step("start a notebook session on that kernel", "create_session",
                        {"path": f"{d}/nb.ipynb", "name": "nb.ipynb", "type": "notebook",
                         "kernel": {"id": kid, "name": "python3"}, "idempotency_key": s.key()})
    sid = (sess or {}).get("id", "none")
    await s.step("list sessions", "list_sessions", {},
                 check=lambda r: None if any(x.get("id") == sid for x in listed(r)) else "session not listed")
    await s.step("stop the session", "delete_session", {"session": sid, "idempotency_key": s.key()})
    # Deleting a session shuts its kernel down (Jupyter's REST API docs).
    await s.step("its kernel stopped with it", "get_kernel", {"kernel_id": kid}, expect="not_found")
    k2 = await s.step("start another kernel", "create_kernel", {"body": {"name": "python3"}, "idempotency_key": s.key()})
    await s.step("stop the kernel", "delete_kernel", {"kernel_id": (k2 or {}).get("id", "none"), "idempotency_key": s.key()})
    await s.step("a missing file", "get_content", {"path": f"{d}/no-such-file.txt"}, expect="not_found")
    await s.step("a bad argument", "get_content", {"path": f2, "type": "spreadsheet"}, expect="invalid_argument")

    # POST /api/contents/{folder} makes a new untitled file each time it reaches Jupyter.
    def untitled():
        _, listing = s.http("GET", f"/api/contents/{d}")
        return sum(1 for e in (listing or {}).get("content") or [] if e.get("name", "").startswith("untitled"))

    await s.retried("make an untitled file", "create_content", {"path": d, "type": "file", "ext": ".txt"}, untitled)
    await s.step("delete the file", "delete_content", {"path": f2, "idempotency_key": s.key()})
    await s.step("read the deleted file", "get_content", {"path": f2}, expect="not_found")
    await s.step("delete the folder", "delete_content", {"path": d, "idempotency_key": s.key()})
    await s.step("the folder is gone", "get_content", {"path": d}, expect="not_found")
