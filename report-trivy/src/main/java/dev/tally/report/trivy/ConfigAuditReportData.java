package dev.tally.report.trivy;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.ArrayList;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The part of a ConfigAuditReport's {@code report} that Tally reads: when the scan was made and its
 * checks. The rest ({@code scanner}, {@code summary}, a check's {@code description} and {@code
 * remediation}, any field trivy-operator adds) is skipped while the object is parsed.
 *
 * <p>The types are those of trivy-operator's CRD, which the API server enforces: a report whose
 * {@code success} is not a boolean, say, is refused by the server, so every report it stores binds
 * (trivy-operator's CRD has typed these fields since 0.1.4, July 2022; the ones before had no
 * schema). The lists hold at most their bound as they are read ({@link Bounded}): past it, the
 * elements read are counted and dropped, and {@link TrivyCodec} refuses the report.
 *
 * @param updateTimestamp when the scan was made, RFC 3339
 * @param checks the checks trivy-operator recorded, by default the failed ones only
 */
@JsonIgnoreProperties(ignoreUnknown = true)
@JsonInclude(JsonInclude.Include.NON_NULL)
public record ConfigAuditReportData(@Nullable String updateTimestamp, @Nullable Checks checks) {

  /**
   * One check of the scan.
   *
   * @param checkID trivy's id of the check, {@code KSV001}
   * @param messages what the check found, one message a finding
   * @param scope the part of the resource it is about, {@code Container/nginx}
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Check(
      @Nullable String checkID,
      @Nullable String title,
      @Nullable String severity,
      @Nullable Boolean success,
      @Nullable String category,
      @Nullable Messages messages,
      @Nullable Scope scope) {}

  /** The part of the resource a check is about: a type ({@code Container}) and its value. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  @JsonInclude(JsonInclude.Include.NON_NULL)
  public record Scope(@Nullable String type, @Nullable String value) {}

  /**
   * A list that holds at most {@code max} elements and counts every one added: Jackson adds each
   * element it reads, so a list past its bound costs no more than the bound while the report is
   * parsed and held, and the count says by how much it was past.
   *
   * @param <T> the elements
   */
  public abstract static class Bounded<T> extends ArrayList<@Nullable T> {
    private static final long serialVersionUID = 1L;

    private final int max;
    private int added;

    Bounded(int max) {
      this.max = max;
    }

    /** Holds {@code element} if the list is below its bound; counts it in any case. */
    @Override
    public boolean add(@Nullable T element) {
      added++;
      return added <= max && super.add(element);
    }

    /** How many elements were added, held or not. */
    public int added() {
      return added;
    }

    /** At most this many are held. */
    public int max() {
      return max;
    }
  }

  /** The checks of a report, at most 5,000 held (the bound {@link TrivyCodec} refuses past). */
  public static final class Checks extends Bounded<Check> {
    private static final long serialVersionUID = 1L;

    public Checks() {
      super(TrivyCodec.MAX_CHECKS);
    }

    /** {@code checks}, added one by one. */
    public static Checks of(List<? extends @Nullable Check> checks) {
      Checks list = new Checks();
      checks.forEach(list::add);
      return list;
    }
  }

  /** The messages of a check, at most 100 held (the bound {@link TrivyCodec} refuses past). */
  public static final class Messages extends Bounded<String> {
    private static final long serialVersionUID = 1L;

    public Messages() {
      super(TrivyCodec.MAX_MESSAGES);
    }

    /** {@code messages}, added one by one. */
    public static Messages of(List<? extends @Nullable String> messages) {
      Messages list = new Messages();
      messages.forEach(list::add);
      return list;
    }
  }
}
