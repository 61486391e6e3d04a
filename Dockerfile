# sidegate gateway image. Built by docker-compose.yml; not buildable on the project's machines
# (no Docker engine there), so it is checked offline only: see test/e2e/deploy-files.test.ts.
# syntax=docker/dockerfile:1

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# `prepare` runs the TypeScript build, which needs the sources: install without scripts first.
RUN npm ci --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM node:20-bookworm-slim
# MALLOC_TRIM_THRESHOLD_: glibc gives freed memory back to the system past 128 KiB instead of its
# adaptive default, so the ~10 MB V8's compiler thread frees after tiering up undici's HTTP parser
# does not stay resident (idle RSS 71-72 MB in every process instead of 72 or 82; no measurable
# CPU cost: README "Idle memory").
ENV NODE_ENV=production \
    MALLOC_TRIM_THRESHOLD_=131072 \
    SIDEGATE_HOST=0.0.0.0 \
    SIDEGATE_PORT=8787 \
    OTEL_SERVICE_NAME=sidegate
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY otel-collector.yaml ./
USER node
EXPOSE 8787
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.SIDEGATE_PORT||8787)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM drains in-flight requests and flushes spans (see src/gateway/start-gateway.ts).
STOPSIGNAL SIGTERM
# The Node flags `npm start` uses (docs/performance.md, issue 25):
# --single-threaded-gc: V8 collects on the event loop's thread only. A sidecar runs on a CPU share;
#   V8's GC helper threads then compete with the event loop for it and stretch the pauses they
#   were meant to shorten.
# --no-allocation-site-pretenuring: V8 otherwise learns to allocate the telemetry's short-lived
#   span objects straight into the old generation, whose garbage the tail's mark-sweeps collect.
ENTRYPOINT ["node", "--single-threaded-gc", "--no-allocation-site-pretenuring", "dist/main.js"]
CMD ["serve"]
