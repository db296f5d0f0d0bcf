package dev.tally.report.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Parameter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * {@code null} anywhere in the public API of the model is an {@link InvalidReportException} naming
 * the field, never a bare {@code NullPointerException}: every public constructor, static factory,
 * builder method and instance method of the model's types is called with a null in each reference
 * parameter that is not declared {@link Nullable}, and with a null element in each collection.
 */
class NullArgumentsTest {
  private static final Subject POD = Subject.of("v1", "Pod", "shop", "web-0", "uid-1");
  private static final CoverageKey KEY = CoverageKey.of("kyverno", "require-labels");
  private static final Result RESULT =
      Result.builder().source("kyverno").policy("require-labels").status(ResultStatus.PASS).build();
  private static final ReportRef REF = new ReportRef(ReportKind.POLICY_REPORT, "shop", "r");
  private static final AggregateReport AGGREGATE =
      new AggregateReport(
          REF,
          Map.of(),
          Optional.empty(),
          Optional.empty(),
          Optional.empty(),
          List.of(),
          Summary.EMPTY,
          "");

  /** The types of the public model whose every entry point is checked. */
  private static final List<Class<?>> TYPES =
      List.of(
          AggregateReport.class,
          AggregatorConfig.class,
          Change.Create.class,
          Change.Update.class,
          Change.Delete.class,
          ChangeSet.class,
          CoverageKey.class,
          Grouping.class,
          InputCaps.class,
          LabelSelector.class,
          LabelSelector.Requirement.class,
          Liveness.class,
          Liveness.RuleRef.class,
          PartialReport.class,
          PartialReport.Builder.class,
          ReportAggregator.Builder.class,
          ReportConfiguration.class,
          ReportLimits.class,
          ReportRef.class,
          Result.class,
          Result.Builder.class,
          ResultStatus.class,
          Severity.class,
          Subject.class,
          Summary.class,
          Timestamp.class);

  /** A valid, non-null value of each parameter type the entry points take. */
  private static Object sample(Class<?> type) {
    Map<Class<?>, Object> samples = new HashMap<>();
    samples.put(String.class, "x");
    samples.put(Subject.class, POD);
    samples.put(CoverageKey.class, KEY);
    samples.put(Result.class, RESULT);
    samples.put(ResultStatus.class, ResultStatus.PASS);
    samples.put(Severity.class, Severity.HIGH);
    samples.put(Timestamp.class, Timestamp.ofSeconds(1));
    samples.put(ReportRef.class, REF);
    samples.put(ReportKind.class, ReportKind.POLICY_REPORT);
    samples.put(ReportFormat.class, ReportFormat.WGPOLICY);
    samples.put(ReportLayout.class, ReportLayout.TALLY);
    samples.put(ReportLimits.class, ReportLimits.defaults());
    samples.put(InputCaps.class, InputCaps.defaults());
    samples.put(Grouping.class, Grouping.perNamespace());
    samples.put(Liveness.class, Liveness.all());
    samples.put(Summary.class, Summary.EMPTY);
    samples.put(AggregateReport.class, AGGREGATE);
    samples.put(LabelSelector.class, LabelSelector.matching(Map.of("app", "web")));
    samples.put(Duration.class, Duration.ofSeconds(1));
    samples.put(Optional.class, Optional.empty());
    samples.put(List.class, List.of());
    samples.put(Set.class, Set.of());
    samples.put(Collection.class, List.of());
    samples.put(Map.class, Map.of());
    samples.put(BiFunction.class, (BiFunction<Subject, CoverageKey, String>) (s, k) -> "g");
    samples.put(int.class, 1);
    samples.put(long.class, 1L);
    samples.put(boolean.class, false);
    Object v = samples.get(type);
    if (v == null) {
      throw new AssertionError("no sample value for parameter type " + type.getName());
    }
    return v;
  }

  /** Arguments that make each entry point succeed, where the plain samples do not. */
  private static Object[] validArguments(Executable e) {
    Object[] args = Arrays.stream(e.getParameterTypes()).map(NullArgumentsTest::sample).toArray();
    String name = e.getDeclaringClass().getSimpleName() + "." + e.getName();
    if (e instanceof Constructor<?> && e.getDeclaringClass() == LabelSelector.class) {
      args[0] = Map.of("app", "web");
    }
    if (e instanceof Constructor<?> && e.getDeclaringClass() == LabelSelector.Requirement.class) {
      args[1] = "Exists";
    }
    if (e instanceof Constructor<?> && e.getDeclaringClass() == ReportLimits.class) {
      args[1] = ReportLimits.DEFAULT_MAX_BYTES;
    }
    if (e instanceof Constructor<?> && e.getDeclaringClass() == PartialReport.class) {
      args[3] = Set.of(KEY); // coverage: a partial without results must declare some
    }
    if (name.equals("Grouping.custom") || name.endsWith("Builder.producer")) {
      args[0] = "g";
    }
    if (name.equals("LabelSelector.matching")) {
      args[0] = Map.of("app", "web");
    }
    if (name.equals("Builder.coverage") && e.getDeclaringClass() == PartialReport.Builder.class) {
      args[0] = Set.of(KEY);
    }
    if (name.equals("ResultStatus.fromWire")) {
      args[1] = "pass";
    }
    if (name.equals("Severity.fromWire")) {
      args[1] = "high";
    }
    return args;
  }

  /** An instance to call instance methods on, and to build after a builder method. */
  private static @Nullable Object receiver(Class<?> type) {
    if (type == PartialReport.Builder.class) {
      return PartialReport.builder().producer("p").subject(POD).coverage(Set.of(KEY));
    }
    if (type == Result.Builder.class) {
      return Result.builder().policy("p").status(ResultStatus.PASS);
    }
    if (type == ReportAggregator.Builder.class) {
      return ReportAggregator.builder();
    }
    if (type == Liveness.class) {
      return Liveness.all();
    }
    if (type == AggregateReport.class) {
      return AGGREGATE;
    }
    if (type == Subject.class) {
      return POD;
    }
    if (type == ReportLimits.class) {
      return ReportLimits.defaults();
    }
    if (type == InputCaps.class) {
      return InputCaps.defaults();
    }
    if (type == Timestamp.class) {
      return Timestamp.ofSeconds(1);
    }
    if (type == Result.class) {
      return RESULT;
    }
    return null;
  }

  /** What completes the call: {@code build()} after a builder method, nothing otherwise. */
  private static void complete(@Nullable Object made) {
    if (made instanceof PartialReport.Builder b) {
      b.build();
    } else if (made instanceof Result.Builder b) {
      b.build();
    } else if (made instanceof ReportAggregator.Builder b) {
      b.config();
    }
  }

  private static List<Executable> entryPoints(Class<?> type) {
    List<Executable> out = new ArrayList<>();
    for (Constructor<?> c : type.getConstructors()) {
      out.add(c);
    }
    for (Method m : type.getDeclaredMethods()) {
      boolean skip =
          !Modifier.isPublic(m.getModifiers())
              || m.isSynthetic()
              || m.getName().equals("equals")
              || m.getName().equals("compareTo")
              || m.getName().equals("valueOf")
              || m.getParameterCount() == 0;
      if (!skip && (Modifier.isStatic(m.getModifiers()) || receiver(type) != null)) {
        out.add(m);
      }
    }
    return out;
  }

  private static @Nullable Object call(Executable e, Object[] args) throws Throwable {
    try {
      if (e instanceof Constructor<?> c) {
        return c.newInstance(args);
      }
      Method m = (Method) e;
      Object target = Modifier.isStatic(m.getModifiers()) ? null : receiver(m.getDeclaringClass());
      return m.invoke(target, args);
    } catch (InvocationTargetException ex) {
      throw ex.getCause();
    }
  }

  private static boolean nullable(Parameter p) {
    return p.getAnnotatedType().isAnnotationPresent(Nullable.class);
  }

  @TestFactory
  Stream<DynamicTest> everyNullArgumentIsRefusedNamingItsField() {
    List<DynamicTest> tests = new ArrayList<>();
    for (Class<?> type : TYPES) {
      for (Executable e : entryPoints(type)) {
        Parameter[] params = e.getParameters();
        for (int i = 0; i < params.length; i++) {
          if (params[i].getType().isPrimitive() || nullable(params[i])) {
            continue;
          }
          int index = i;
          String name = type.getSimpleName() + "." + e.getName() + " argument " + i;
          tests.add(
              DynamicTest.dynamicTest(
                  name,
                  () -> {
                    Object[] valid = validArguments(e);
                    complete(call(e, valid)); // the valid call succeeds
                    Object[] args = valid.clone();
                    args[index] = null;
                    try {
                      complete(call(e, args));
                    } catch (InvalidReportException ex) {
                      assertThat(ex.field()).as(name).isNotBlank();
                      return;
                    } catch (Throwable t) {
                      fail(name + ": expected an InvalidReportException, got " + t, t);
                    }
                    fail(name + ": a null was accepted");
                  }));
        }
      }
    }
    assertThat(tests).hasSizeGreaterThan(60);
    return tests.stream();
  }

  @Test
  void aNullElementOfACollectionIsRefusedWithItsPath() {
    List<Result> results = new ArrayList<>();
    results.add(RESULT);
    results.add(null);
    assertField(
        () -> PartialReport.builder().producer("p").subject(POD).results(results).build(),
        "results[1]");

    Set<CoverageKey> coverage = new HashSet<>();
    coverage.add(null);
    assertField(
        () -> PartialReport.builder().producer("p").subject(POD).coverage(coverage).build(),
        "coverage[0]");

    Map<String, String> properties = new HashMap<>();
    properties.put("controls", null);
    assertField(
        () -> Result.builder().policy("p").status(ResultStatus.FAIL).properties(properties).build(),
        "properties[controls]");
    Map<String, String> nullKey = new HashMap<>();
    nullKey.put(null, "v");
    assertField(
        () -> Result.builder().policy("p").status(ResultStatus.FAIL).properties(nullKey).build(),
        "properties key");

    List<Subject> resources = new ArrayList<>();
    resources.add(null);
    assertField(
        () -> Result.builder().policy("p").status(ResultStatus.FAIL).resources(resources).build(),
        "resources[0]");

    List<String> values = new ArrayList<>();
    values.add(null);
    assertField(() -> new LabelSelector.Requirement("k", "In", values), "values[0]");

    Set<ResultStatus> statuses = new HashSet<>();
    statuses.add(null);
    assertField(() -> ReportLimits.defaults().withStatusFilter(statuses), "limits.statusFilter");

    Set<CoverageKey> live = new HashSet<>();
    live.add(null);
    assertField(() -> Liveness.only(live), "livePolicies");
    assertField(() -> Liveness.onlyAmong(Set.of("kyverno"), live), "livePolicies");
    Set<String> sources = new HashSet<>();
    sources.add(null);
    assertField(() -> Liveness.onlyAmong(sources, Set.of()), "governedSources");

    List<Change> changes = new ArrayList<>();
    changes.add(null);
    assertField(() -> new ChangeSet(changes), "changes[0]");
  }

  @Test
  void aTimestampErrorNamesWhichTimestamp() {
    assertField(
        () -> Result.builder().policy("p").status(ResultStatus.PASS).timestamp(1, -1).build(),
        "timestamp.nanos");
    assertField(() -> PartialReport.builder().observedAt(-5, 0), "observedAt.seconds");
    assertField(() -> PartialReport.builder().observedAt(1, 1_000_000_000), "observedAt.nanos");
  }

  private static void assertField(ThrowingRunnable call, String field) {
    try {
      call.run();
    } catch (InvalidReportException e) {
      assertThat(e.field()).isEqualTo(field);
      return;
    } catch (Throwable t) {
      fail("expected an InvalidReportException naming " + field + ", got " + t, t);
    }
    fail("expected an InvalidReportException naming " + field + ", nothing was thrown");
  }

  @FunctionalInterface
  private interface ThrowingRunnable {
    void run() throws Throwable;
  }
}
