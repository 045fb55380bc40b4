package dev.baton.support;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Collects what Baton logs (logger {@code dev.baton} and below) while it is open, so that tests can assert that an
 * event was reported, at which level, and that no line carries a secret. Thread-safe; close it to stop collecting.
 */
public final class LogCapture implements AutoCloseable {
    private final Logger logger = (Logger) LoggerFactory.getLogger("dev.baton");
    private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

    private LogCapture() {
    }

    public static LogCapture start() {
        LogCapture capture = new LogCapture();
        capture.appender.start();
        capture.logger.addAppender(capture.appender);
        return capture;
    }

    /** Every line so far, as {@code LEVEL message} (arguments filled in, throwables as their toString). */
    public List<String> lines() {
        synchronized (appender) { // AppenderBase appends under the appender's own monitor
            return appender.list.stream().map(e -> e.getLevel() + " " + e.getFormattedMessage()
                    + (e.getThrowableProxy() == null ? "" : " " + e.getThrowableProxy().getClassName() + ": "
                    + e.getThrowableProxy().getMessage())).toList();
        }
    }

    /** The lines logged at {@code level} that contain {@code text}. */
    public List<String> lines(Level level, String text) {
        return lines().stream().filter(l -> l.startsWith(level + " ") && l.contains(text)).toList();
    }

    @Override
    public void close() {
        logger.detachAppender(appender);
        appender.stop();
    }
}
