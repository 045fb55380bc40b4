package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import dev.baton.LockInfo;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The run without the lock, on made-up outcomes: what is lost, what overlapped, and every column explained. */
class UnlockedSummaryTest {

    private static final DemoOptions TWO_BY_THREE = new DemoOptions(2, 3, Optional.empty(), Duration.ofMinutes(1),
            false);

    @Test
    void lostIncrementsAndOverlapsAreCountedAndNamed() {
        UnlockedSummary summary = new UnlockedSummary(TWO_BY_THREE, List.of(finished(1, 1), finished(2, 3)),
                OptionalLong.of(4), Duration.ofMillis(200));

        String text = print(summary);

        assertThat(summary.completed()).isTrue();
        assertThat(summary.violations()).isEqualTo(4);
        assertThat(text).contains("final counter:  4, expected 6 (2 workers x 3 increments): 2 increments lost: two "
                        + "workers read the same value and both wrote it plus one",
                "violations:     4 (increments that found another worker already inside its GET/SET)");
        assertThat(text.lines().filter(line -> line.matches("\\s+[12]\\s+3\\s+[13]"))).hasSize(2);
        assertThat(text.lines()).noneMatch(line -> line.endsWith(" "));
    }

    @Test
    void aRaceThatLostNothingIsNotPassedOffAsSafe() {
        UnlockedSummary summary = new UnlockedSummary(TWO_BY_THREE, List.of(finished(1, 0), finished(2, 0)),
                OptionalLong.of(6), Duration.ofMillis(200));

        assertThat(print(summary)).contains("(2 workers x 3 increments): nothing lost this time (the race is a "
                + "matter of timing");
    }

    @Test
    void aWorkerThatDidNotFinishIsReportedAndTheRunIsIncomplete() {
        UnlockedSummary.Outcome killed = new UnlockedSummary.Outcome(2, Optional.empty(), 1, OptionalInt.empty(),
                List.of("some warning"));
        UnlockedSummary summary = new UnlockedSummary(TWO_BY_THREE, List.of(finished(1, 0), killed),
                OptionalLong.of(4), Duration.ZERO);

        assertThat(summary.completed()).isFalse();
        assertThat(print(summary)).contains("the run did not complete", "worker 2 was still running and was killed; "
                + "last output:\n    some warning\n");
    }

    @Test
    void everyColumnOfBothRunsIsExplainedInTheLegend() {
        String unlocked = print(new UnlockedSummary(TWO_BY_THREE, List.of(finished(1, 0), finished(2, 0)),
                OptionalLong.of(6), Duration.ofMillis(200)));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        RunSummary.WorkerOutcome one = new RunSummary.WorkerOutcome(1, Optional.of(new WorkerReport(3, 1, 3, 0)), 3,
                OptionalInt.of(0), List.of());
        RunSummary.WorkerOutcome two = new RunSummary.WorkerOutcome(2, Optional.of(new WorkerReport(3, 4, 6, 0)), 3,
                OptionalInt.of(0), List.of());
        new RunSummary(TWO_BY_THREE, List.of(one, two), OptionalLong.of(6), List.of(1L, 2L, 3L, 4L, 5L, 6L),
                Duration.ofMillis(300), Optional.of(new LockInfo("counter", Optional.empty(), 6)))
                .print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        String locked = bytes.toString(StandardCharsets.UTF_8);

        List<String> headers = Pattern.compile("(?m)^worker .*$").matcher(unlocked + locked).results()
                .map(m -> m.group()).toList();
        assertThat(headers).hasSize(2);
        // Headers are separated by two blanks or more; a name such as "first token" has one.
        List<String> columns = headers.stream().flatMap(h -> Arrays.stream(h.strip().split(" {2,}"))).toList();
        assertThat(columns).contains("increments", "acquisitions", "first token", "last token", "violations", "exit");
        for (String column : columns) {
            assertThat(locked).as(column).containsPattern("(?m)^  " + Pattern.quote(column) + "  ");
        }
        assertThat(locked).containsPattern("(?m)^  final counter ");
        assertThat(locked.indexOf("what the columns mean:")).isLessThan(locked.indexOf("result:"));
    }

    private static UnlockedSummary.Outcome finished(int id, int violations) {
        return new UnlockedSummary.Outcome(id, Optional.of(new UnlockedReport(3, violations)), 3,
                OptionalInt.empty(), List.of());
    }

    private static String print(UnlockedSummary summary) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        summary.print(new PrintStream(bytes, true, StandardCharsets.UTF_8));
        return bytes.toString(StandardCharsets.UTF_8);
    }
}
