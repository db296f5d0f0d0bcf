package dev.tally.examples.imagepolicy;

/**
 * The rule this example enforces: a container image is pinned when it names a digest ({@code
 * @sha256:...}), or a tag other than {@code latest}. An image without a digest whose tag is {@code
 * latest} or missing (which means {@code latest}) fails: what it runs changes whenever someone
 * pushes, and two nodes may run different code under one name.
 */
final class ImageRule {
  private ImageRule() {}

  /** Why {@code image} is not pinned, or {@code null} when it is. */
  static String violation(String image) {
    if (image.contains("@sha256:")) {
      return null;
    }
    // the tag is after the last ':' of the last path segment (a registry may have a port)
    String lastSegment = image.substring(image.lastIndexOf('/') + 1);
    int colon = lastSegment.lastIndexOf(':');
    if (colon < 0) {
      return "image '" + image + "' has no tag and no digest: it runs whatever 'latest' is";
    }
    if (lastSegment.substring(colon + 1).equals("latest")) {
      return "image '" + image + "' uses the tag 'latest' without a digest";
    }
    return null;
  }
}
