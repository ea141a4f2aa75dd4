"""Drives an OAuth-protected MCP server with the official Python SDK's own OAuth client.

Usage: oauth_client.py --url MCP_URL --scope "read:pets" [--mode {auto,legacy,2026-07-28}] [--timeout SECONDS]

The server is an OAuth 2.1 resource server whose authorization server (tests/oauth/issuer.mjs)
auto-approves /authorize and has no dynamic client registration, so the client is given as
pre-registered ("python-sdk", public, PKCE). The script:

1. connects with no credentials and records what the SDK raises, the HTTP answer (401) and its
   WWW-Authenticate challenge, then fetches the protected resource metadata the challenge names;
2. connects again with `OAuthClientProvider` as the HTTP client's auth and records, in order, every
   HTTP request the SDK made (discovery, /authorize, /token, the retried MCP request); lists the
   tools and calls find_pets and get_inventory;
3. decodes (without verifying) the claims of the token the SDK obtained;
4. calls add_pet, which needs a scope the token lacks (HTTP 403 insufficient_scope), and records
   what the SDK does about it (step-up re-authorization, the scope it asks for, the retried call).

The authorization redirect is handled in-process: the redirect handler GETs the authorization URL
without following the redirect and hands the code and state in the Location to the callback
handler. It plays the user at the consent screen: at the first authorization it grants only
--scope (the SDK itself asks for what the server's challenge or metadata lists, not for the
client's configured scope); later authorizations (a step-up) are approved as asked.

Prints one JSON document describing what the client saw; the Rust end-to-end test asserts on it.
"""

import argparse
import base64
import json
import re
import sys
from urllib.parse import parse_qs, urlencode, urlparse, urlunparse

import anyio
import httpx2
from mcp import Client, MCPError
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken

from report import run_and_print

CLIENT_ID = "python-sdk"
REDIRECT_URI = "http://127.0.0.1:1/callback"
# add_pet needs write:pets; the server's tools also require an idempotency key for writes.
ADD_PET = {"name": "Rex", "photoUrls": [], "idempotency_key": "py-oauth-add-rex"}


def parse_challenge(header):
    """`Bearer a="x", b=y` -> {"scheme": "Bearer", "a": "x", "b": "y"} (None without a header)."""
    if not header:
        return None
    scheme, _, rest = header.partition(" ")
    out = {"scheme": scheme}
    for name, quoted, bare in re.findall(r'([A-Za-z_][\w-]*)\s*=\s*(?:"([^"]*)"|([^\s,]+))', rest):
        out[name] = quoted or bare
    return out


def jwt_claims(token):
    """The payload of a JWT, decoded without checking its signature (None if it is not a JWT)."""
    parts = token.split(".")
    if len(parts) != 3:
        return None
    payload = parts[1] + "=" * (-len(parts[1]) % 4)
    try:
        return json.loads(base64.urlsafe_b64decode(payload))
    except ValueError:
        return None


def claims_of(token):
    claims = jwt_claims(token.access_token) or {}
    return {
        "sub": claims.get("sub"),
        "aud": claims.get("aud"),
        "scope": claims.get("scope"),
        "iss": claims.get("iss"),
        "token_response_scope": token.scope,  # what the SDK recorded as granted
    }


def outcome(result):
    return {
        "is_error": bool(result.is_error),
        "structured": result.structured_content,
        "text": [c.text for c in result.content if c.type == "text"],
    }


def raised(e):
    """An exception as the caller sees it; the SDK wraps failures in exception groups."""
    while isinstance(e, BaseExceptionGroup) and len(e.exceptions) == 1:
        e = e.exceptions[0]
    out = {"type": type(e).__name__, "message": str(e)}
    if isinstance(e, MCPError):
        out["code"] = e.code
        out["message"] = e.message
    return out


class HttpLog:
    """Every HTTP request a client sends, in order, with the answer's status (httpx2 event hooks).

    httpx2 calls the hooks for the requests an auth flow makes as well, so this shows the SDK's
    OAuth discovery and token requests between the MCP requests.
    """

    def __init__(self):
        self.entries = []
        self._pending = {}

    def hooks(self, by):
        async def on_request(request):
            entry = {"by": by, "method": request.method, "url": str(request.url.copy_with(query=None))}
            if request.url.query:
                entry["query"] = _elide(parse_qs(request.url.query.decode()))
            entry["bearer"] = request.headers.get("authorization", "").startswith("Bearer ")
            body = _body(request)
            if isinstance(body, dict) and "jsonrpc" in body:
                entry["rpc"] = body.get("method")
            elif isinstance(body, dict):
                entry["form"] = _elide(body)
            self._pending[id(request)] = entry
            self.entries.append(entry)

        async def on_response(response):
            entry = self._pending.pop(id(response.request), None)
            if entry is None:
                return
            entry["status"] = response.status_code
            if "www-authenticate" in response.headers:
                entry["www_authenticate"] = response.headers["www-authenticate"]
            if "location" in response.headers:
                entry["location"] = response.headers["location"]

        return {"request": [on_request], "response": [on_response]}

    def since(self, start):
        return self.entries[start:]


def _elide(params):
    """Request parameters with the one-time values (code, PKCE, state) replaced by "..."."""
    one_time = ("code", "code_verifier", "code_challenge", "state")
    return {k: "..." if k in one_time else (v[0] if isinstance(v, list) else v) for k, v in params.items()}


def _body(request):
    try:
        content = request.content
    except httpx2.RequestNotRead:
        return None
    if not content:
        return None
    if request.headers.get("content-type", "").startswith("application/x-www-form-urlencoded"):
        return {k: v[0] for k, v in parse_qs(content.decode()).items()}
    try:
        return json.loads(content)
    except ValueError:
        return None


class Storage:
    """TokenStorage holding the pre-registered client and every token the SDK saves."""

    def __init__(self, client_info):
        self.client_info = client_info
        self.tokens = None
        self.saved = []
        self.client_info_saved = []

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens: OAuthToken):
        self.tokens = tokens
        self.saved.append(tokens)

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info):
        self.client_info = client_info
        self.client_info_saved.append(client_info.model_dump(mode="json", exclude_none=True))


class Browser:
    """The redirect and callback handlers: the user agent that visits the authorization URL.

    The authorization server approves at once and redirects to redirect_uri; the redirect is not
    followed (nothing listens there), its Location carries the code and state. The first
    authorization grants only `first_grant` of the scopes asked (the user's consent); later ones
    grant what was asked.
    """

    def __init__(self, log, first_grant):
        self.log = log
        self.first_grant = first_grant
        self.authorizations = []
        self._result = None

    async def redirect(self, authorization_url):
        parsed = urlparse(authorization_url)
        query = {k: v[0] for k, v in parse_qs(parsed.query).items()}
        asked = query.get("scope")
        granted = asked
        if not self.authorizations and self.first_grant is not None:
            granted = " ".join(s for s in (asked or "").split() if s in self.first_grant.split()) or self.first_grant
        record = {"scope_asked": asked, "scope_granted": granted, "resource": query.get("resource")}
        self.authorizations.append(record)
        if granted != asked:
            query["scope"] = granted
            authorization_url = urlunparse(parsed._replace(query=urlencode(query)))
        async with httpx2.AsyncClient(event_hooks=self.log.hooks("redirect_handler"), follow_redirects=False) as http:
            response = await http.get(authorization_url)
        location = response.headers.get("location", "")
        params = {k: v[0] for k, v in parse_qs(urlparse(location).query).items()}
        record["status"] = response.status_code
        record["redirected_to"] = location.split("?")[0] or None
        record["got_code"] = "code" in params
        record["state_matches"] = params.get("state") == query.get("state")
        if "error" in params:
            record["error"] = params["error"]
        code, state, iss = params.get("code", ""), params.get("state"), params.get("iss")
        self._result = AuthorizationCodeResult(code=code, state=state, iss=iss)

    async def callback(self):
        result, self._result = self._result, None
        return result


async def no_token(url, mode, log, timeout):
    """Connect without credentials: what the SDK raises, and the challenge the server answers with."""
    out = {}
    start = len(log.entries)
    async with httpx2.AsyncClient(event_hooks=log.hooks("sdk")) as http:
        try:
            with anyio.fail_after(timeout):
                async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                    await client.list_tools()
            out["connected"] = True
        except Exception as e:  # noqa: BLE001 - recorded: the expected outcome is a failure
            out["connected"] = False
            out["raised"] = raised(e)
    requests = log.since(start)
    out["requests"] = requests
    answered = [r for r in requests if "status" in r]
    out["status"] = answered[0]["status"] if answered else None
    header = next((r["www_authenticate"] for r in answered if "www_authenticate" in r), None)
    out["www_authenticate"] = header
    out["challenge"] = parse_challenge(header)
    return out


async def fetch_metadata(challenge):
    url = (challenge or {}).get("resource_metadata")
    if not url:
        return {"url": None}
    async with httpx2.AsyncClient() as http:
        response = await http.get(url)
    out = {"url": url, "status": response.status_code, "content_type": response.headers.get("content-type")}
    try:
        out["document"] = response.json()
    except ValueError:
        out["body"] = response.text
    return out


def sdk_provider(url, scope, browser, storage):
    """The SDK's OAuth client for the pre-registered public client, configured with `scope`."""
    client_metadata = OAuthClientMetadata(
        client_name="petstore python oauth test",
        redirect_uris=[REDIRECT_URI],
        grant_types=["authorization_code"],
        response_types=["code"],
        token_endpoint_auth_method="none",
        scope=scope,
    )
    return OAuthClientProvider(
        server_url=url,
        client_metadata=client_metadata,
        storage=storage,
        redirect_handler=browser.redirect,
        callback_handler=browser.callback,
    )


async def with_token(url, scope, mode, log, timeout):
    """The SDK's authorization flow, calls through the authenticated session, then a step-up."""
    out = {}
    storage = Storage(
        OAuthClientInformationFull(
            client_id=CLIENT_ID,
            token_endpoint_auth_method="none",
            redirect_uris=[REDIRECT_URI],
            grant_types=["authorization_code"],
            scope=scope,
        )
    )
    browser = Browser(log, scope)
    provider = sdk_provider(url, scope, browser, storage)
    client_metadata = provider.context.client_metadata
    out["client_metadata_scope"] = {"configured": client_metadata.scope}

    start = len(log.entries)
    async with httpx2.AsyncClient(auth=provider, event_hooks=log.hooks("sdk")) as http:
        async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
            listed = await client.list_tools()
            out["protocol_version"] = client.protocol_version
            out["flow"] = log.since(start)
            out["authorizations"] = list(browser.authorizations)
            out["client_metadata_scope"]["after_flow"] = client_metadata.scope
            out["claims"] = claims_of(storage.tokens) if storage.tokens else None
            out["tools"] = sorted(t.name for t in listed.tools)
            out["tools_cache"] = {"ttl_ms": listed.ttl_ms, "cache_scope": listed.cache_scope}
            out["find_pets"] = outcome(await client.call_tool("find_pets", {"status": "available"}))
            out["get_inventory"] = outcome(await client.call_tool("get_inventory", {}))

            # A call the token's scope does not cover: 403 insufficient_scope.
            start = len(log.entries)
            tokens_before = len(storage.saved)
            authorizations_before = len(browser.authorizations)
            add_pet = {}
            try:
                with anyio.fail_after(timeout):
                    add_pet["result"] = outcome(await client.call_tool("add_pet", ADD_PET))
            except TimeoutError:
                add_pet["raised"] = {"type": "TimeoutError", "message": f"no answer within {timeout} s"}
            except Exception as e:  # noqa: BLE001 - recorded
                add_pet["raised"] = raised(e)
            add_pet["requests"] = log.since(start)
            add_pet["statuses"] = [r.get("status") for r in add_pet["requests"]]
            add_pet["reauthorizations"] = browser.authorizations[authorizations_before:]
            add_pet["step_up"] = bool(add_pet["reauthorizations"])
            add_pet["new_tokens"] = len(storage.saved) - tokens_before
            if add_pet["new_tokens"]:
                add_pet["claims"] = claims_of(storage.saved[-1])
            add_pet["client_metadata_scope"] = client_metadata.scope
            out["add_pet"] = add_pet

            if add_pet["new_tokens"]:
                # The SDK's response cache belongs to the Client, not to a token: "use" may answer
                # with the listing cached under the old token; "refresh" asks the server again.
                cached = await client.list_tools()
                refreshed = await client.list_tools(cache_mode="refresh")
                out["tools_after_step_up"] = {
                    "cached": sorted(t.name for t in cached.tools),
                    "refreshed": sorted(t.name for t in refreshed.tools),
                }
    out["tokens_saved"] = len(storage.saved)
    out["client_info_saved"] = storage.client_info_saved  # stays empty: no registration happens
    return out


async def scenario(url, scope, mode, timeout):
    log = HttpLog()
    out = {}
    out["no_token"] = await no_token(url, mode, log, timeout)
    out["metadata"] = await fetch_metadata(out["no_token"]["challenge"])
    with anyio.fail_after(timeout * 4):  # the whole authenticated session; add_pet has its own limit
        out.update(await with_token(url, scope, mode, log, timeout))
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", required=True)
    parser.add_argument("--scope", required=True, help="scope the client is configured with and the user grants")
    parser.add_argument("--mode", default="auto")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds each guarded step may take")
    args = parser.parse_args()
    return run_and_print(scenario(args.url, args.scope, args.mode, args.timeout))


if __name__ == "__main__":
    sys.exit(main())
