// A real RFC 8693 token-exchange server for the OAuth tests: oidc-provider with one confidential
// client (`mcp-server` / `exchange-secret`, client_secret_basic) and the token-exchange grant
// registered through provider.registerGrantType. Subject tokens are the RS256 JWTs of another
// issuer (tests/oauth/issuer.mjs), verified against its JWKS, so the tests exercise a real hop.
//
//   SUBJECT_ISSUER=http://localhost:40000 node tests/oauth/exchange.mjs
//        prints one JSON line: {"issuer", "token_endpoint", "jwks_uri"}, then serves until SIGTERM
//
// The issued token is signed here with jose, using a key generated at start that is also the
// provider's own `jwks` (so it is published at jwks_uri): oidc-provider's AccessToken model would
// need an account, a grant and a resource server just to get `act` into a JWT, and its claim set
// is not ours to choose. oidc-provider still does everything around it: client authentication,
// parameter parsing, grant-type checks and the OAuth error responses.
//
// It is also a plain authorization server for callers with opaque tokens: client `agent`
// (`agent-secret`) gets them by client credentials, and RFC 7662 introspection (for confidential
// clients such as `mcp-server`) says what they grant.
import { createServer } from 'node:http';
import { Provider, errors } from 'oidc-provider';
import { createRemoteJWKSet, exportJWK, generateKeyPair, jwtVerify, SignJWT } from 'jose';

// oidc-provider prints its notices with console.info; stdout carries only the ready line.
console.info = (...args) => console.error(...args);

const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const ACCESS_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:access_token';
const CLIENT_ID = 'mcp-server';
const DEFAULT_AUDIENCE = 'upstream-api';
const EXPIRES_IN = 600;

const subjectIssuer = process.env.SUBJECT_ISSUER?.replace(/\/+$/, '');
if (!subjectIssuer) {
  console.error('SUBJECT_ISSUER must be set to the issuer URL of the subject tokens');
  process.exit(2);
}
const subjectJwks = createRemoteJWKSet(new URL(`${subjectIssuer}/jwks`));

const { privateKey } = await generateKeyPair('RS256', { extractable: true });
const kid = 'exchange-rs256';
const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: 'RS256', use: 'sig' };

// Listen first so the issuer can carry the real port, then hand requests to the provider.
const server = createServer();
await new Promise((resolve) => server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [privateJwk] },
  cookies: { keys: ['exchange-test-cookie-key'] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
  },
  scopes: ['openid', 'read:pets', 'write:pets'],
  clients: [{
    client_id: 'agent',
    client_secret: 'agent-secret',
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: ['client_credentials'],
    response_types: [],
    redirect_uris: [],
    scope: 'read:pets write:pets',
  }, {
    client_id: CLIENT_ID,
    client_secret: 'exchange-secret',
    token_endpoint_auth_method: 'client_secret_basic',
    grant_types: [TOKEN_EXCHANGE],
    response_types: [],
    redirect_uris: [],
  }],
});

function invalidGrant(description) {
  const err = new errors.InvalidGrant(description);
  err.error_description = description;
  return err;
}

// RFC 8693 allows several audience / resource values; one becomes a string `aud`, more an array.
const list = (value) => [value].flat().filter((v) => typeof v === 'string' && v !== '');

provider.registerGrantType(TOKEN_EXCHANGE, async (ctx) => {
  const { params, client } = ctx.oidc;
  if (!params.subject_token) throw new errors.InvalidRequest('missing required parameter \'subject_token\'');
  if (params.subject_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest(`subject_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }
  if (params.requested_token_type && params.requested_token_type !== ACCESS_TOKEN_TYPE) {
    throw new errors.InvalidRequest(`requested_token_type must be ${ACCESS_TOKEN_TYPE}`);
  }

  let subject;
  try {
    ({ payload: subject } = await jwtVerify(params.subject_token, subjectJwks, { issuer: subjectIssuer }));
  } catch (err) {
    throw invalidGrant(`subject_token is invalid: ${err.message}`);
  }
  if (typeof subject.sub !== 'string' || subject.sub === '') {
    throw invalidGrant('subject_token has no sub');
  }

  const audiences = [...list(params.audience), ...list(params.resource)];
  const aud = audiences.length === 0 ? DEFAULT_AUDIENCE : audiences.length === 1 ? audiences[0] : audiences;
  const scope = params.scope || undefined;
  const accessToken = await new SignJWT({ act: { sub: client.clientId }, ...(scope && { scope }), client_id: client.clientId })
    .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid })
    .setIssuer(issuer)
    .setSubject(subject.sub)
    .setAudience(aud)
    .setIssuedAt()
    .setExpirationTime(`${EXPIRES_IN}s`)
    .setJti(crypto.randomUUID())
    .sign(privateKey);

  ctx.body = {
    access_token: accessToken,
    issued_token_type: ACCESS_TOKEN_TYPE,
    token_type: 'Bearer',
    expires_in: EXPIRES_IN,
    ...(scope && { scope }),
  };
}, ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'resource', 'scope'],
['audience', 'resource']);

server.on('request', provider.callback());

const ready = {
  issuer,
  token_endpoint: provider.urlFor('token'),
  jwks_uri: provider.urlFor('jwks'),
  introspection_endpoint: provider.urlFor('introspection'),
};
process.stdout.write(JSON.stringify(ready) + '\n');
process.on('SIGTERM', () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
});
