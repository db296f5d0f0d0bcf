package dev.tally.aggregator.log;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Marker;
import org.slf4j.event.Level;
import org.slf4j.event.LoggingEvent;
import org.slf4j.helpers.LegacyAbstractLogger;
import org.slf4j.helpers.MessageFormatter;
import org.slf4j.spi.LoggingEventAware;

/**
 * A logger of the aggregator's process: it formats the message as SLF4J does and hands the record
 * to {@link Logging}, with the key-value pairs of SLF4J's fluent API ({@code
 * LOG.atWarn().addKeyValue("namespace", ns)}) as the record's fields.
 */
final class TallyLogger extends LegacyAbstractLogger implements LoggingEventAware {
  private static final long serialVersionUID = 1L;

  TallyLogger(String name) {
    this.name = name;
  }

  @Override
  public boolean isTraceEnabled() {
    return Logging.enabled(name, Level.TRACE);
  }

  @Override
  public boolean isDebugEnabled() {
    return Logging.enabled(name, Level.DEBUG);
  }

  @Override
  public boolean isInfoEnabled() {
    return Logging.enabled(name, Level.INFO);
  }

  @Override
  public boolean isWarnEnabled() {
    return Logging.enabled(name, Level.WARN);
  }

  @Override
  public boolean isErrorEnabled() {
    return Logging.enabled(name, Level.ERROR);
  }

  @Override
  protected String getFullyQualifiedCallerName() {
    return null;
  }

  @Override
  protected void handleNormalizedLoggingCall(
      Level level,
      Marker marker,
      String messagePattern,
      Object @Nullable [] arguments,
      @Nullable Throwable throwable) {
    Logging.write(
        level,
        name,
        MessageFormatter.basicArrayFormat(messagePattern, arguments),
        List.of(),
        throwable);
  }

  @Override
  public void log(LoggingEvent event) {
    if (!Logging.enabled(name, event.getLevel())) {
      return;
    }
    List<Map.Entry<String, @Nullable Object>> fields = new ArrayList<>();
    if (event.getKeyValuePairs() != null) {
      for (var pair : event.getKeyValuePairs()) {
        fields.add(new java.util.AbstractMap.SimpleImmutableEntry<>(pair.key, pair.value));
      }
    }
    Object[] arguments = event.getArgumentArray();
    Throwable throwable = event.getThrowable();
    // as SLF4J's classic calls: a last argument that is a Throwable and no placeholder is the error
    if (throwable == null && arguments != null && arguments.length > 0) {
      throwable = MessageFormatter.getThrowableCandidate(arguments);
      if (throwable != null) {
        arguments = MessageFormatter.trimmedCopy(arguments);
      }
    }
    Logging.write(
        event.getLevel(),
        name,
        MessageFormatter.basicArrayFormat(event.getMessage(), arguments),
        fields,
        throwable);
  }
}
