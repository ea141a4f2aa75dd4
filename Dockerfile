# A generated MCP server in a container: `docker build --build-arg CRATE=petstore-mcp -t petstore-mcp .`
# See docs/deploying.md for the configuration (auth issuer, public URL, store, secrets).
FROM rust:1.95-bookworm AS build
ARG CRATE=petstore-mcp
WORKDIR /src
COPY . .
RUN cargo build --release --locked -p "$CRATE" \
    && cp "target/release/$CRATE" /server

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --home /var/lib/mcp mcp && mkdir -p /var/lib/mcp && chown mcp /var/lib/mcp
COPY --from=build /server /usr/local/bin/server
USER mcp
WORKDIR /var/lib/mcp
EXPOSE 8080
# Non-loopback: set <PREFIX>_AUTH_ISSUER (or <PREFIX>_INSECURE_NO_AUTH=true behind an authenticating proxy).
ENTRYPOINT ["/usr/local/bin/server", "serve", "--http", "0.0.0.0:8080"]
