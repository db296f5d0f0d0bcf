#!/usr/bin/env bash
# The root file system of the aggregator's image, assembled from this machine alone (no registry,
# no daemon, no download): a Java runtime made by jlink from the JDK that runs the build, with only
# the modules the aggregator uses; the C libraries that runtime links, copied from this machine
# (ldd); the aggregator's jar; /etc/passwd and /etc/group naming the non-root user 65532. No shell,
# no package manager, no build tool. Jib (pom.xml) packs it as an OCI image on top of nothing
# (scratch).
#
#   image/build-rootfs.sh OUT JAR
set -euo pipefail
out=$1
jar=$2
java_home=${JAVA_HOME:-$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")}
# The modules the aggregator uses. `jdeps --print-module-deps --ignore-missing-deps` on the shaded
# jar lists java.base, java.compiler, java.desktop, java.naming, java.sql, jdk.jfr,
# jdk.management and jdk.unsupported; java.compiler, java.desktop (java.beans) and jdk.jfr are
# reached only by optional paths of its libraries, which check for them, and are left out (with
# java.desktop's native libraries). Added: jdk.crypto.ec (TLS with the API server's EC
# certificates), and, small and not shown unnecessary, java.logging, java.management,
# java.net.http and java.xml. ImageIT runs the aggregator from the image against a real API server.
modules=java.base,java.logging,java.management,java.naming,java.net.http,java.sql,java.xml,jdk.crypto.ec,jdk.management,jdk.unsupported

rm -rf "$out"
mkdir -p "$out/app" "$out/etc" "$out/tmp" "$out/opt"
"$java_home/bin/jlink" --add-modules "$modules" --strip-debug --no-header-files --no-man-pages \
  --compress=2 --output "$out/opt/java"
# tools that come with any runtime but have no use in the image
rm -f "$out/opt/java/bin/keytool" "$out/opt/java/bin/jrunscript"
cp "$jar" "$out/app/tally-aggregator.jar"

# the shared libraries of every executable and library of the runtime, from this machine
find "$out/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' -o -name jspawnhelper \) -print0 |
  xargs -0 -n1 ldd 2> /dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}' |
  sort -u |
  while read -r lib; do
    case $lib in "$out"/*) continue ;; esac
    mkdir -p "$out$(dirname "$lib")"
    cp -L "$lib" "$out$lib"
  done

cat > "$out/etc/passwd" << 'PASSWD'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/tmp:/sbin/nologin
PASSWD
cat > "$out/etc/group" << 'GROUP'
root:x:0:
nonroot:x:65532:
GROUP
echo 'hosts: files dns' > "$out/etc/nsswitch.conf"
echo "image root: $(du -sh "$out" | cut -f1) in $out" >&2
