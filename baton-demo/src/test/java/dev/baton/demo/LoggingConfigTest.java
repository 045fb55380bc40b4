package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The demo's logging (slf4j-simple with its simplelogger.properties): Baton's warnings out, libraries' chatter not. */
class LoggingConfigTest {

    @Test
    void theDemoShipsAProviderSoSlf4jNeitherWarnsNorDropsEverything() {
        assertThat(LoggerFactory.getILoggerFactory().getClass().getName()).startsWith("org.slf4j.simple.");
    }

    @Test
    void batonsWarningsAreLoggedButNotItsDebugLines() {
        Logger baton = LoggerFactory.getLogger("dev.baton.internal.engine.Watchdog");

        assertThat(baton.isWarnEnabled()).isTrue();
        assertThat(baton.isDebugEnabled()).isFalse();
    }

    @Test
    void lettuceAndNettyKeepTheirInfoAndDebugLinesToThemselves() {
        for (String name : new String[] {"io.lettuce.core.RedisClient", "io.netty.util.internal.PlatformDependent"}) {
            Logger library = LoggerFactory.getLogger(name);

            assertThat(library.isInfoEnabled()).as(name).isFalse();
            assertThat(library.isDebugEnabled()).as(name).isFalse();
        }
    }

    @Test
    void aWarningGoesToStderrNeverToStdoutWhichCarriesAWorkersMessages() {
        Logger baton = LoggerFactory.getLogger("dev.baton.internal.engine.Watchdog");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        try {
            System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
            baton.warn("lease of lock counter lost");
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }

        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
        assertThat(err.toString(StandardCharsets.UTF_8)).matches(
                "\\d\\d:\\d\\d:\\d\\d\\.\\d{3} WARN dev\\.baton\\.internal\\.engine\\.Watchdog - lease of lock counter lost\\R");
    }
}
