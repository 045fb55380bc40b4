package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/** The verdict and its wording, on made-up outcomes: the failures a healthy run never shows. */
class RunSummaryTest {

    private static final DemoOptions TWO_BY_THREE = new DemoOptions(2, 3, Optional.empty(), Duration.ofMinutes(1),
            false);

    @Test
    void aCleanRunPasses() {
        RunSummary summary = summary(List.of(completed(1, 10, 30), completed(2, 20, 60)), 6,
                List.of(10L, 20L, 30L, 40L, 50L, 60L));

        assertThat(summary.passed()).isTrue();
        assertThat(print(summary)).contains("final counter:  6, expected 6 (2 workers x 3 acquisitions): OK",
                "strictly increasing in acquisition order: yes", "result:         PASS");
    }

    @Test
    void theSummarySaysInOneLineWhyTokensAreLarge() {
        RunSummary summary = summary(List.of(completed(1, 10, 30), completed(2, 20, 60)), 6,
                List.of(10L, 20L, 30L, 40L, 50L, 60L));

        // The reason in lock-acquire.lua: the Redis clock in the token is what lets the counter key expire.
        assertThat(print(summary).lines().filter(line -> line.startsWith("why so large:"))).singleElement()
                .isEqualTo("why so large:   a token is max(last token + 1, the Redis clock in microseconds), so a"
                        + " lock's counter may expire after a day unused and tokens still keep increasing");
    }

    @Test
    void warningsOfAWorkerThatCompletedAreShown() {
        RunSummary.WorkerOutcome warned = new RunSummary.WorkerOutcome(2,
                Optional.of(new WorkerReport(3, 20, 60, 0)), 3, OptionalInt.of(0),
                List.of("12:00:01.250 WARN dev.baton.internal.engine.Watchdog - renewal failed"));
        RunSummary summary = summary(List.of(completed(1, 10, 30), warned), 6, List.of(10L, 20L, 30L, 40L, 50L, 60L));

        String text = print(summary);

        assertThat(summary.passed()).isTrue();
        assertThat(text).contains("worker 2 completed; last output:\n"
                + "    12:00:01.250 WARN dev.baton.internal.engine.Watchdog - renewal failed\n").doesNotContain("worker 1 ");
    }

    @Test
    void aLostIncrementFailsTheRun() {
        RunSummary summary = summary(List.of(completed(1, 10, 30), completed(2, 20, 60)), 5,
                List.of(10L, 20L, 30L, 40L, 50L, 60L));

        assertThat(summary.passed()).isFalse();
        assertThat(print(summary)).contains("final counter:  5, expected 6", "MISMATCH", "result:         FAIL");
    }

    @Test
    void aTokenThatGoesBackIsPointedOut() {
        RunSummary summary = summary(List.of(completed(1, 10, 30), completed(2, 20, 60)), 6,
                List.of(10L, 20L, 40L, 30L, 50L, 60L));

        assertThat(summary.passed()).isFalse();
        assertThat(print(summary)).contains("strictly increasing in acquisition order: NO (position 3: 30 after 40)");
    }

    @Test
    void aDeadWorkerIsReportedWithItsLastOutput() {
        RunSummary.WorkerOutcome dead = new RunSummary.WorkerOutcome(2, Optional.empty(), 1, OptionalInt.of(1),
                List.of("Exception in thread \"main\" dev.baton.BatonUnavailableException: boom",
                        "\tat x.y(Z.java:1)"));
        RunSummary summary = summary(List.of(completed(1, 10, 30), dead), 4, List.of(10L, 15L, 20L, 30L));

        String text = print(summary);

        assertThat(summary.passed()).isFalse();
        assertThat(text).contains("worker 2 died with exit code 1; last output:",
                "    Exception in thread \"main\" dev.baton.BatonUnavailableException: boom", "result:         FAIL");
        assertThat(text.lines()).noneMatch(line -> line.endsWith(" "));
    }

    private static RunSummary.WorkerOutcome completed(int id, long first, long last) {
        return new RunSummary.WorkerOutcome(id, Optional.of(new WorkerReport(3, first, last, 0)), 3,
                OptionalInt.of(0), List.of());
    }

    private static RunSummary summary(List<RunSummary.WorkerOutcome> workers, long counter, List<Long> tokens) {
        long last = tokens.stream().mapToLong(Long::longValue).max().orElse(0);
        return new RunSummary(TWO_BY_THREE, workers, OptionalLong.of(counter), tokens, Duration.ofMillis(300),
                Optional.of(new LockInfo("counter", Optional.empty(), last)));
    }

    private static String print(RunSummary summary) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8)) {
            summary.print(out);
        }
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
