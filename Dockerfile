# The tree farm data service: the wiki and the API, served by the Node server (docs/deploy.md,
# "A container image"). Two stages: the build, then a slim runtime that holds only the node
# binary, the production dependencies, the server's sources and dist/.
#
# Node is the project's own (the `node` devDependency: a binary from the npm registry), not
# Debian's. The build stage fetches it, and npm to run `npm ci` with, from the npm registry, the
# only place `npm ci` needs anyway; no Node base image is needed, so any Debian base will do
# (deploy/base-image.sh makes one with mmdebstrap where no image registry is reachable).
# NODE_VERSION is the lock file's `node` (a test keeps them equal). Each tarball's integrity is
# pinned beside its version (`npm view <package>@<version> dist.integrity`): the build refuses
# a tarball that differs. A new version needs its new integrity.
ARG NODE_VERSION=24.21.0
ARG NODE_INTEGRITY_X64=sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==
ARG NODE_INTEGRITY_ARM64=sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==
ARG NPM_VERSION=11.19.1
ARG NPM_INTEGRITY=sha512-ztsxKxt/kkIaAs+2i0GU6I+DRmUdrNasxTZKJe9TCdSjKxlhah/4r/hl5ygMD6XAg1qZ9c2TNomR4qgOydp10g==
ARG BASE_IMAGE=debian:bookworm-slim
# The npm registry's name for the architecture built for: x64, or arm64 (`--build-arg NODE_ARCH=arm64`).
ARG NODE_ARCH=x64

FROM ${BASE_IMAGE} AS build
ARG NODE_VERSION
ARG NODE_ARCH
ARG NODE_INTEGRITY_X64
ARG NODE_INTEGRITY_ARM64
ARG NPM_VERSION
ARG NPM_INTEGRITY
ADD https://registry.npmjs.org/node-linux-${NODE_ARCH}/-/node-linux-${NODE_ARCH}-${NODE_VERSION}.tgz /tmp/node.tgz
ADD https://registry.npmjs.org/npm/-/npm-${NPM_VERSION}.tgz /tmp/npm.tgz
COPY deploy/check-integrity.sh /tmp/
# Each tarball checked against its pin before use; ADD leaves a remote tarball packed: unpack
# Node into /usr/local/bin and npm beside it.
RUN case "$NODE_ARCH" in \
      x64) sh /tmp/check-integrity.sh /tmp/node.tgz "$NODE_INTEGRITY_X64" NODE_INTEGRITY_X64 ;; \
      arm64) sh /tmp/check-integrity.sh /tmp/node.tgz "$NODE_INTEGRITY_ARM64" NODE_INTEGRITY_ARM64 ;; \
      *) echo "NODE_ARCH=$NODE_ARCH: the Dockerfile pins Node for x64 and arm64 only" >&2; exit 1 ;; \
    esac \
 && sh /tmp/check-integrity.sh /tmp/npm.tgz "$NPM_INTEGRITY" NPM_INTEGRITY \
 && mkdir -p /opt/npm \
 && tar -xzf /tmp/node.tgz -C /usr/local --strip-components=1 package/bin/node \
 && tar -xzf /tmp/npm.tgz -C /opt/npm --strip-components=1 \
 && ln -s /opt/npm/bin/npm-cli.js /usr/local/bin/npm \
 && rm /tmp/node.tgz /tmp/npm.tgz /tmp/check-integrity.sh
WORKDIR /app
# The dependencies first, in a layer of their own, so a change to the sources reuses it. The
# production ones are enough for the build and the server; --ignore-scripts: none is needed.
COPY package.json package-lock.json ./
# Behind a proxy that inspects TLS, pass its CA bundle as a secret (docs/deploy.md):
# --secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt
# One ping without retries first: npm ci would retry for minutes before naming the failure.
RUN --mount=type=secret,id=ca-certificates,required=false \
    if [ -f /run/secrets/ca-certificates ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca-certificates; fi \
 && if ! ping=$(npm ping --fetch-retries=0 --no-update-notifier 2>&1); then \
      reason=$(echo "$ping" | sed -n 's/^npm error .*request to [^ ]* failed, reason: //p' | head -n 1); \
      echo "npm cannot use the registry (${reason:-$(echo "$ping" | tail -n 1)}):" \
        "check the network; behind a proxy that inspects TLS, build with" \
        "--secret id=ca-certificates,src=/etc/ssl/certs/ca-certificates.crt (docs/deploy.md)" >&2; \
      exit 1; \
    fi \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --no-update-notifier
COPY . .
# Build dist/ when the context's is missing or older than its sources, as `npm start` would
# (a fresh clone builds here; a checkout that just built reuses its dist/). SITE_ORIGIN, when
# given, is the build's own setting (docs/configuration.md).
ARG SITE_ORIGIN=
RUN node --input-type=module -e "import { buildWhenStale, projectBuild } from './src/build/site.ts'; \
  await buildWhenStale(projectBuild, console.log);"

FROM ${BASE_IMAGE} AS runtime
# A user of its own, with no shell and no home: the server only reads what is below /app.
RUN useradd --system --user-group --no-create-home --shell /usr/sbin/nologin treefarm
COPY --from=build /usr/local/bin/node /usr/local/bin/node
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/src ./src
COPY --from=build /app/dist ./dist
USER treefarm
# `npm start`'s defaults, but listening on every address of the container.
ENV HOST=0.0.0.0 PORT=4321
EXPOSE 4321
# The server itself, not npm, is the container's main process: SIGHUP reloads dist/, SIGTERM
# drains (requests in flight finish, within 10 s; stop with a timeout above that: docs/deploy.md).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + process.env.PORT + '/healthz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "src/server/serve.ts"]
