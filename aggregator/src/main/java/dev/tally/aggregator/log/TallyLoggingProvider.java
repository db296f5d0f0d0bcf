package dev.tally.aggregator.log;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.ILoggerFactory;
import org.slf4j.IMarkerFactory;
import org.slf4j.Logger;
import org.slf4j.helpers.BasicMarkerFactory;
import org.slf4j.helpers.NOPMDCAdapter;
import org.slf4j.spi.MDCAdapter;
import org.slf4j.spi.SLF4JServiceProvider;

/**
 * The aggregator process's SLF4J binding (META-INF/services): every library's logging goes through
 * {@link Logging}. The library modules bring no binding; this one is the program's.
 */
public final class TallyLoggingProvider implements SLF4JServiceProvider {
  private final ConcurrentMap<String, Logger> loggers = new ConcurrentHashMap<>();
  private final ILoggerFactory factory = name -> loggers.computeIfAbsent(name, TallyLogger::new);
  private final IMarkerFactory markers = new BasicMarkerFactory();
  private final MDCAdapter mdc = new NOPMDCAdapter();

  @Override
  public ILoggerFactory getLoggerFactory() {
    return factory;
  }

  @Override
  public IMarkerFactory getMarkerFactory() {
    return markers;
  }

  @Override
  public MDCAdapter getMDCAdapter() {
    return mdc;
  }

  @Override
  public String getRequestedApiVersion() {
    return "2.0.99";
  }

  @Override
  public void initialize() {}
}
