// A real authorization server for the OAuth tests: oauth2-mock-server (signed RS256 JWTs, JWKS,
// OpenID discovery, /token with client_credentials, password and RFC 7523 jwt-bearer grants,
// /introspect), configured through its documented events.
//
//   node tests/oauth/issuer.mjs      prints one JSON line: {"issuer", "public_pem"}, then serves
//
// Token requests may carry `aud` (any grant) and `exp_in` / `nbf_in` (seconds from now), so the
// tests can obtain tokens for another audience, expired ones and not-yet-valid ones from the
// issuer itself. As an authorization server that honours RFC 8707 does, a `resource` indicator
// becomes the token's audience, and an authorization code grants the scopes that were asked at
// /authorize (the package grants "dummy" otherwise). `/introspect` answers for tokens this
// process issued (active until they expire).
import { createPublicKey } from 'node:crypto';
import { OAuth2Server } from 'oauth2-mock-server';

const server = new OAuth2Server();
const key = await server.issuer.keys.generate('RS256');
const issued = new Map();
const scopeOfCode = new Map();

server.service.on('beforeAuthorizeRedirect', (redirect, req) => {
  const code = redirect.url.searchParams.get('code');
  if (code && typeof req.query?.scope === 'string') scopeOfCode.set(code, req.query.scope);
});

server.service.on('beforeTokenSigning', (token, req) => {
  const body = req.body ?? {};
  const now = Math.floor(Date.now() / 1000);
  if (body.aud !== undefined) token.payload.aud = body.aud;
  else if (body.resource !== undefined) token.payload.aud = body.resource;
  if (body.grant_type === 'authorization_code' && scopeOfCode.has(body.code)) {
    token.payload.scope = scopeOfCode.get(body.code);
    scopeOfCode.delete(body.code);
  }
  if (body.exp_in !== undefined) token.payload.exp = now + Number(body.exp_in);
  if (body.nbf_in !== undefined) token.payload.nbf = now + Number(body.nbf_in);
});
server.service.on('beforeResponse', (response) => {
  const token = response.body?.access_token;
  if (typeof token === 'string') {
    const payload = JSON.parse(Buffer.from(token.split('.')[1], 'base64url').toString());
    issued.set(token, payload);
    // The response says the scope the token grants (the package would say "dummy").
    if (payload.scope !== undefined) response.body.scope = payload.scope;
  }
});
server.service.on('beforeIntrospect', (response, req) => {
  const payload = issued.get(req.body?.token);
  const now = Math.floor(Date.now() / 1000);
  response.body = payload && payload.exp > now ? { active: true, ...payload } : { active: false };
});

await server.start(Number(process.env.PORT ?? 0), '127.0.0.1');
const publicPem = createPublicKey({ key: key.toJSON ? key.toJSON() : key, format: 'jwk' })
  .export({ type: 'spki', format: 'pem' });
process.stdout.write(JSON.stringify({ issuer: server.issuer.url, public_pem: publicPem }) + '\n');
process.on('SIGTERM', async () => { await server.stop(); process.exit(0); });
