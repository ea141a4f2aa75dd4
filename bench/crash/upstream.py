"""The crash experiment's upstream: an invoice service with its own SQLite database.

POST <prefix>/v1/invoices creates one invoice. In `honour` mode an Idempotency-Key is stored
in the same transaction as the invoice, and a repeat with the key gets the stored answer; in
`ignore` mode every request creates an invoice. `<prefix>` (`/r0`, `/r1`, ...) tells which server
replica sent the request, so the harness can kill exactly that replica right after the commit,
before the answer leaves (the worst moment for a retry).
"""

import json
import socket
import sqlite3
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


class Upstream:
    def __init__(self, path, honour, on_commit):
        self.path = path
        self.honour = honour
        # Called with the replica index after each commit, before the answer is sent; returns
        # True when it killed that replica (the answer is then dropped).
        self.on_commit = on_commit
        self.local = threading.local()
        db = self.db()
        db.executescript(
            """
            PRAGMA journal_mode = WAL;
            CREATE TABLE IF NOT EXISTS invoices (
                id INTEGER PRIMARY KEY AUTOINCREMENT, intent TEXT NOT NULL, customer TEXT NOT NULL,
                total INTEGER NOT NULL, idempotency_key TEXT);
            CREATE TABLE IF NOT EXISTS idempotency (key TEXT PRIMARY KEY, response TEXT NOT NULL);
            """
        )

    def db(self):
        conn = getattr(self.local, "conn", None)
        if conn is None:
            conn = sqlite3.connect(self.path, timeout=30, isolation_level=None)
            conn.execute("PRAGMA synchronous = NORMAL")
            self.local.conn = conn
        return conn

    def create(self, body, key):
        db = self.db()
        db.execute("BEGIN IMMEDIATE")
        try:
            if self.honour and key:
                row = db.execute("SELECT response FROM idempotency WHERE key = ?", (key,)).fetchone()
                if row:
                    db.execute("COMMIT")
                    return row[0]
            lines = body.get("lines") or []
            total = sum(int(l.get("quantity", 0)) * int(l.get("unit_amount", 0)) for l in lines)
            intent = lines[0].get("description", "") if lines else ""
            cur = db.execute(
                "INSERT INTO invoices (intent, customer, total, idempotency_key) VALUES (?, ?, ?, ?)",
                (intent, body.get("customer", ""), total, key),
            )
            invoice = {
                "id": "inv_%014d" % cur.lastrowid,
                "customer": body.get("customer", ""),
                "currency": body.get("currency", ""),
                "status": "draft",
                "total": total,
                "due_date": body.get("due_date"),
                "lines": lines,
            }
            response = json.dumps(invoice)
            if self.honour and key:
                db.execute("INSERT INTO idempotency (key, response) VALUES (?, ?)", (key, response))
            db.execute("COMMIT")
            return response
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def counts(self):
        """intent -> number of invoices created for it."""
        rows = self.db().execute("SELECT intent, count(*) FROM invoices GROUP BY intent").fetchall()
        return dict(rows)

    def serve(self, port):
        upstream = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args):
                pass

            def setup(self):
                super().setup()
                # One small write per answer part: without this, Nagle and delayed ACKs add ~40 ms.
                self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

            def do_POST(self):
                prefix, _, rest = self.path.lstrip("/").partition("/")
                length = int(self.headers.get("content-length") or 0)
                body = json.loads(self.rfile.read(length) or b"{}")
                if rest != "v1/invoices" or not prefix.startswith("r"):
                    self.send_error(404)
                    return
                response = upstream.create(body, self.headers.get("idempotency-key"))
                if upstream.on_commit(int(prefix[1:])):
                    self.close_connection = True
                    return
                data = response.encode()
                self.send_response(201)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        class Server(ThreadingHTTPServer):
            def handle_error(self, request, client_address):
                pass  # a killed replica resets its connection: expected here

        server = Server(("127.0.0.1", port), Handler)
        server.daemon_threads = True
        threading.Thread(target=server.serve_forever, daemon=True).start()
        return server
