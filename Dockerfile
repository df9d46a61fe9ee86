# Ranex Gate: the GitHub App server (`npm start` role: webhooks + embedded judge worker) and, with a
# different command, a judge worker (`ranex worker`). See docs/operations.md for what the container
# needs so that bubblewrap can build its sandboxes (user namespaces; the seccomp profile).

# ---- build: compile TypeScript, then keep only production dependencies ----
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 falls back to compiling when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --no-audit --no-fund

# ---- runtime ----
FROM node:20-bookworm-slim
# bubblewrap: the sandbox. git: fetching heads. python3 + pytest + venv: the toolchain the judged
# Python repositories' tests run with, and the virtualenvs their dependencies are installed into
# (node is already here). tini: reaps the measuring processes' children and forwards SIGTERM.
# The other ecosystems' toolchains (docs/ecosystems.md) are the operator's choice, by build argument:
#   --build-arg RANEX_TOOLCHAINS="golang-go openjdk-17-jdk-headless maven cargo"
# A toolchain outside /usr/local/bin:/usr/bin:/bin reaches the sandbox through the policy's
# `toolchain.path` (docs/policy.md); `ranex doctor` lists what the sandbox sees.
ARG RANEX_TOOLCHAINS=""
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap git ca-certificates python3 python3-pytest python3-venv tini ${RANEX_TOOLCHAINS} \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY bin ./bin
COPY reporters ./reporters
COPY schema ./schema
COPY app.yml ./

# Non-root: the judge needs no privilege of its own; bubblewrap uses unprivileged user namespaces.
RUN groupadd --system --gid 10001 ranex \
 && useradd --system --uid 10001 --gid ranex --home-dir /data --shell /usr/sbin/nologin ranex \
 && mkdir -p /data && chown ranex:ranex /data
USER ranex
ENV NODE_ENV=production RANEX_DATA_DIR=/data PORT=3000 HOME=/data
VOLUME ["/data"]
EXPOSE 3000

HEALTHCHECK --interval=30s --timeout=10s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]

ENTRYPOINT ["/usr/bin/tini", "--"]
# The worker role: CMD ["node", "bin/ranex.js", "worker"]
CMD ["node", "dist/server.js"]
