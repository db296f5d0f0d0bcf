#!/usr/bin/env bash
# Builds the programs a Go module lists as tools (its go.mod's `tool` lines: engines/'s here, or
# kube-testenv's own), from
# the Go module proxy, once per machine, and prints the cache directory that holds them as the
# last line of stdout:
#
#   go-tools/build.sh kyverno   -> .../tally/engines/<key>/{kyverno,reports-controller,gatekeeper}
#   go-tools/build.sh gatekeeper   (the same: the policy engines share one module)
#   go-tools/build.sh helm      -> .../tally/kube-testenv-tools/<key>/{helm,crane,promtool,prometheus}
#
#   key   = sha256 of the Go version, go.mod, go.sum and tags file of the module
#   cache = ${XDG_CACHE_HOME:-$HOME/.cache}/tally/<engines | kube-testenv-tools>/<key>/
#
# helm, crane and prometheus are tools of kube-testenv's own module (its go.mod's `tool` lines),
# not folders here: one build list with the API server's, so that the packages they share with it
# (client-go, grpc, OpenTelemetry, x/net...) are the same versions and compiled once into the Go
# build cache, not once per module. Asking for any of the three builds all four programs.
#
# A build happens only when the cache has no complete build for the key (a cold build of Kyverno's
# two programs and Gatekeeper's takes about 6.5 minutes on two idle cores; nothing when cached). The
# source directory of the module the asked program comes from (for files such as Kyverno's or
# Gatekeeper's CRDs and Helm chart; kube-testenv's for its tools) is written to
# <cache>/module-dir.<name>.
# Progress goes to stderr. GOTOOLCHAIN, GOFLAGS, GOPROXY... are honoured as go honours them.
set -euo pipefail

asked="${1:?usage: go-tools/build.sh <kyverno | gatekeeper | helm | crane | prometheus>}"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# the module each asked program comes from, whose source is module-dir.<asked>
case "$asked" in
  kyverno)
    name=engines
    source_module=github.com/kyverno/kyverno
    cd "$here/engines"
    ;;
  gatekeeper)
    name=engines
    source_module=github.com/open-policy-agent/gatekeeper/v3
    cd "$here/engines"
    ;;
  helm | crane | prometheus)
    name=kube-testenv-tools
    source_module=""
    cd "$here/../kube-testenv"
    ;;
  *)
    echo "usage: go-tools/build.sh <kyverno | gatekeeper | helm | crane | prometheus>" >&2
    exit 2
    ;;
esac

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: go is not on the PATH (Go 1.26.7 or newer is needed)" >&2
  exit 3
fi

goversion="$(go env GOVERSION)"
key="$(
  {
    echo "$goversion"
    for f in go.mod go.sum tags; do
      if [[ -f "$f" ]]; then
        echo "== $f"
        cat "$f"
      fi
    done
  } | sha256sum | cut -c1-64
)"
cache="${XDG_CACHE_HOME:-$HOME/.cache}/tally/$name/$key"

if [[ ! -f "$cache/.complete" ]]; then
  mkdir -p "$cache"
  # One build at a time per key; whoever waited finds the programs made.
  exec 9>"$cache/.lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  if [[ ! -f "$cache/.complete" ]]; then
    echo "build.sh: building the tools of $(pwd) ($goversion) into $cache;" \
      "a cold build takes minutes" >&2
    start=$SECONDS
    tmp="$cache/tmp.$$"
    trap 'rm -rf "$tmp"' EXIT
    mkdir -p "$tmp"
    # `tool` is every tool of the module; one go build shares the packages they have in common.
    # A module's `tags` file holds the build tags its tools are built with (Prometheus's
    # remove_all_sd leaves out the service discoveries of clouds the tests never use)
    tags=""
    if [[ -f tags ]]; then
      tags="$({ grep -v '^#' tags || true; } | tr -s ' \n' ',' | sed 's/^,//; s/,$//')"
    fi
    go build -trimpath -ldflags='-s -w' -tags="$tags" -o "$tmp/" tool >&2
    mv -f "$tmp"/* "$cache/"
    touch "$cache/.complete"
    echo "build.sh: built in $((SECONDS - start))s" >&2
  fi
fi

# where the asked program's module is unpacked (Kyverno's and Gatekeeper's CRDs and charts are read
# from there); for kube-testenv's tools, which come from several modules, kube-testenv's own
# directory. Written to a file of this process's, then moved, so that a caller never reads it half
# written.
if [[ -z "$source_module" ]]; then
  pwd > "$cache/module-dir.$$"
else
  go mod download -json "$source_module" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p' \
    > "$cache/module-dir.$$"
fi
if [[ ! -s "$cache/module-dir.$$" ]]; then
  echo "build.sh: the source of $source_module was not found" >&2
  exit 4
fi
mv -f "$cache/module-dir.$$" "$cache/module-dir.$asked"
echo "$cache"
