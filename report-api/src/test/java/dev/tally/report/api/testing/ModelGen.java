package dev.tally.report.api.testing;

import dev.tally.report.api.PartialReport;
import java.util.List;
import org.quicktheories.core.Gen;
import org.quicktheories.generators.Generate;

/**
 * QuickTheories generators for the model, shared by every module's property tests (through the
 * report-api test-jar). Values are built by {@link RandomModel} from a generated seed, so a failing
 * example is reproduced by its seed. For values spread over every field's whole range (encodings,
 * sizes), draw from {@link WideModel}.
 */
public final class ModelGen {
  private ModelGen() {}

  public static Gen<Long> seeds() {
    return Generate.longRange(Long.MIN_VALUE, Long.MAX_VALUE);
  }

  public static Gen<RandomModel> models() {
    return seeds().map((Long seed) -> new RandomModel(seed));
  }

  public static Gen<PartialReport> partials() {
    return models().map((RandomModel m) -> m.partial());
  }

  /** Streams of 1 to {@code max} events. */
  public static Gen<List<AggregatorEvent>> events(int max) {
    return seeds()
        .map(
            seed -> {
              RandomModel m = new RandomModel(seed);
              return m.events(1 + m.random().nextInt(max));
            });
  }
}
