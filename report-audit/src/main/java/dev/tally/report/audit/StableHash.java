package dev.tally.report.audit;

import java.nio.charset.StandardCharsets;

/**
 * A 64-bit hash of strings that is the same on every JVM, every run and every member: FNV-1a over
 * the UTF-8 bytes (parts separated by a zero byte, so {@code ("ab","c")} and {@code ("a","bc")}
 * differ), then the SplitMix64 finalizer so that nearby inputs spread over all 64 bits. Rendezvous
 * hashing and plan digests depend on this being stable; never replace it with {@code hashCode}.
 */
public final class StableHash {
  private static final long FNV_OFFSET = 0xcbf29ce484222325L;
  private static final long FNV_PRIME = 0x100000001b3L;

  private StableHash() {}

  /** The hash of the parts, in order. */
  public static long of(String... parts) {
    long h = FNV_OFFSET;
    for (int p = 0; p < parts.length; p++) {
      if (p > 0) {
        h = fnvByte(h, 0);
      }
      h = fnv(h, parts[p]);
    }
    return mix(h);
  }

  /** Continues an FNV-1a state with the UTF-8 bytes of {@code s}; finish with {@link #mix}. */
  static long fnv(long state, String s) {
    long h = state;
    for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
      h = fnvByte(h, b);
    }
    return h;
  }

  static long fnvByte(long state, int b) {
    return (state ^ (b & 0xff)) * FNV_PRIME;
  }

  /** The FNV-1a starting state. */
  static long start() {
    return FNV_OFFSET;
  }

  /** The SplitMix64 finalizer: a bijection on 64 bits with good avalanche. */
  public static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  /** Sixteen lower-case hex digits, a DNS-label-safe rendering of a hash. */
  public static String hex(long hash) {
    String s = Long.toHexString(hash);
    return "0".repeat(16 - s.length()) + s;
  }
}
