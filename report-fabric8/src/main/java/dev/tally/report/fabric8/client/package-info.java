/**
 * What every Tally component that makes requests is configured with: the client and its
 * serialization ({@link dev.tally.report.fabric8.client.ApiServerJson}), one API budget ({@link
 * dev.tally.report.fabric8.client.ApiBudget}), how failed requests are retried ({@link
 * dev.tally.report.fabric8.client.RetryPolicy}), how waits wait, the builders' base ({@link
 * dev.tally.report.fabric8.client.ApiClientBuilder}), the exceptions of a request, and how a
 * component makes its requests within them ({@link dev.tally.report.fabric8.client.Requests}).
 */
@NullMarked
package dev.tally.report.fabric8.client;

import org.jspecify.annotations.NullMarked;
