/** Runnable demonstrations of Tally. */
@NullMarked
package dev.tally.report.demo;

import org.jspecify.annotations.NullMarked;
