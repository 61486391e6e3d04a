#!/usr/bin/env bash
# Builds (once) the real Jaeger v2 and OpenTelemetry Collector binaries the end-to-end suites use,
# from Go modules at pinned versions, into a cache outside the repository.
# Why pseudo-versions and ocb: see shared/reference/jaeger-and-collector.md §1.2 and §3.
# Usage: scripts/ensure-otel-binaries.sh [jaeger|collector|all]   (prints the binary paths)
set -euo pipefail

CACHE="${SIDEGATE_BIN_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/sidegate}"
# Jaeger's module path has no /v2, so its v2.x tags are not installable; v1.76.0 is the v2.13.0 code
# (same commit) and is the newest version the module proxy serves here. Its go.mod has a replace
# directive, which `go install pkg@version` refuses, so we build inside the downloaded module, where
# its own go.mod applies (reference §1.2, fallback).
JAEGER_VERSION="v1.76.0"
# Collector v0.155.0 shares most of its module graph with that Jaeger build.
OTELCOL_VERSION="0.155.0"
OTELCOL_STABLE="1.61.0"
JAEGER_BIN="$CACHE/jaeger-$JAEGER_VERSION/jaeger"
OTELCOL_BIN="$CACHE/otelcol-$OTELCOL_VERSION/otelcol-sidegate"

need_go() {
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-otel-binaries: go is not installed; cannot build Jaeger or the collector" >&2
    exit 3
  fi
}

build_jaeger() {
  if [[ -x "$JAEGER_BIN" ]]; then return; fi
  need_go
  mkdir -p "$(dirname "$JAEGER_BIN")"
  echo "ensure-otel-binaries: building Jaeger $JAEGER_VERSION (first time only, several minutes)" >&2
  local src
  src="$(go mod download -json "github.com/jaegertracing/jaeger@$JAEGER_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')"
  if [[ -z "$src" ]]; then
    echo "ensure-otel-binaries: could not download the Jaeger module $JAEGER_VERSION" >&2
    exit 3
  fi
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o "$JAEGER_BIN.tmp" ./cmd/jaeger) >&2
  mv "$JAEGER_BIN.tmp" "$JAEGER_BIN"
}

build_collector() {
  if [[ -x "$OTELCOL_BIN" ]]; then return; fi
  need_go
  local dir; dir="$(dirname "$OTELCOL_BIN")"
  mkdir -p "$dir"
  local builder="$CACHE/builder-$OTELCOL_VERSION/builder"
  if [[ ! -x "$builder" ]]; then
    echo "ensure-otel-binaries: installing the collector builder v$OTELCOL_VERSION" >&2
    mkdir -p "$(dirname "$builder")"
    CGO_ENABLED=0 GOBIN="$(dirname "$builder")" go install \
      "go.opentelemetry.io/collector/cmd/builder@v$OTELCOL_VERSION" >&2
  fi
  local work; work="$(mktemp -d "$CACHE/otelcol-build.XXXXXX")"
  sed -e "s/@CORE@/v$OTELCOL_VERSION/g" -e "s/@STABLE@/v$OTELCOL_STABLE/g" -e "s#@OUT@#$work/dist#g" \
    "$(dirname "$0")/otelcol-builder.yaml" > "$work/manifest.yaml"
  echo "ensure-otel-binaries: building the OpenTelemetry Collector v$OTELCOL_VERSION (first time only)" >&2
  # The builder's own `go mod tidy` also resolves the *test* imports of every component, and the
  # module proxy here does not serve some of those (e.g. contrib pkg/golden v0.155.0: 403). So we
  # let its tidy fail if it must (go.mod is written first), tidy again with -e (tolerates modules
  # that only tests need), and build ourselves.
  "$builder" --config "$work/manifest.yaml" --skip-compilation >&2 ||
    echo "ensure-otel-binaries: the builder's strict go mod tidy failed; retrying with go mod tidy -e" >&2
  if [[ ! -f "$work/dist/go.mod" ]]; then
    echo "ensure-otel-binaries: the collector builder generated no go.mod" >&2
    exit 3
  fi
  (cd "$work/dist" && go mod tidy -e -compat=1.25 >&2 && CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o otelcol-sidegate . >&2)
  mv "$work/dist/otelcol-sidegate" "$OTELCOL_BIN"
  rm -rf "$work"
}

case "${1:-all}" in
  jaeger) build_jaeger; echo "$JAEGER_BIN" ;;
  collector) build_collector; echo "$OTELCOL_BIN" ;;
  all) build_jaeger; build_collector; echo "$JAEGER_BIN"; echo "$OTELCOL_BIN" ;;
  *) echo "usage: $0 [jaeger|collector|all]" >&2; exit 2 ;;
esac
