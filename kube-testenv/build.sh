#!/usr/bin/env bash
# Builds kube-testenv once per machine and caches the binary; prints its path as the last line.
#
#   key   = sha256 of the Go version, go.mod, go.sum and the non-test *.go files
#   cache = ${XDG_CACHE_HOME:-$HOME/.cache}/tally/kube-testenv/<key>/kube-testenv
#
# A build happens only when no binary exists for the key. Progress goes to stderr, so stdout's
# last line is always the path. GOTOOLCHAIN, GOFLAGS, GOPROXY... are honoured as go honours them.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

if ! command -v go >/dev/null 2>&1; then
  echo "build.sh: go is not on the PATH (Go 1.26.7 or newer is needed)" >&2
  exit 3
fi

goversion="$(go env GOVERSION)"
sources=()
while IFS= read -r f; do sources+=("$f"); done < <(ls -1 ./*.go | grep -v '_test\.go$' | LC_ALL=C sort)
key="$(
  {
    echo "$goversion"
    for f in go.mod go.sum "${sources[@]}"; do
      echo "== $f"
      cat "$f"
    done
  } | sha256sum | cut -c1-64
)"

cache="${XDG_CACHE_HOME:-$HOME/.cache}/tally/kube-testenv/$key"
binary="$cache/kube-testenv"

if [[ ! -x "$binary" ]]; then
  mkdir -p "$cache"
  # One build at a time per key; whoever waited finds the binary made.
  exec 9>"$cache/.lock"
  if command -v flock >/dev/null 2>&1; then flock 9; fi
  if [[ ! -x "$binary" ]]; then
    echo "build.sh: building kube-testenv ($goversion) into $cache; a cold build takes minutes" >&2
    start=$SECONDS
    tmp="$cache/kube-testenv.tmp.$$"
    trap 'rm -f "$tmp"' EXIT
    go build -trimpath -ldflags='-s -w' -o "$tmp" . >&2
    mv -f "$tmp" "$binary"
    echo "build.sh: built in $((SECONDS - start))s" >&2
  fi
fi

echo "$binary"
