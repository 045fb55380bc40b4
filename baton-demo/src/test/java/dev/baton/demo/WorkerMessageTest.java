package dev.baton.demo;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The worker-to-parent line format: what a worker prints, the parent reads back; anything else is ignored. */
class WorkerMessageTest {

    @Test
    void everyMessageSurvivesTheRoundTrip() {
        WorkerMessage[] messages = {
            new WorkerMessage.Ready(),
            new WorkerMessage.Progress(40, 1_795_335_233_268_317L),
            new UnlockedReport(250, 187),
            new WorkerReport(250, 1_795_335_233_268_317L, 1_795_335_234_105_412L, 2),
        };
        for (WorkerMessage message : messages) {
            assertThat(WorkerMessage.parse(message.toLine())).contains(message);
        }
    }

    @Test
    void otherLinesAreNotMessages() {
        assertThat(WorkerMessage.parse("SLF4J: Defaulting to no-operation (NOP) logger implementation")).isEmpty();
        assertThat(WorkerMessage.parse("baton-demo progress acquired=ten token=1")).isEmpty();
        assertThat(WorkerMessage.parse("baton-demo done acquisitions=3")).isEmpty();
        assertThat(WorkerMessage.parse("baton-demo unlocked-done increments=3")).isEmpty();
        assertThat(WorkerMessage.parse("baton-demo hello")).isEmpty();
        assertThat(WorkerMessage.parse("baton-demo ")).isEmpty();
    }
}
