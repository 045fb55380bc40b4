package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.baton.support.LogCapture;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisServer;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A semaphore asked for with another total than the one Redis keeps keeps the stored one (docs/semaphore.md), and
 * says so once per Baton and name, at WARN, so that the mismatch is not found only through fewer permits than planned.
 */
class SemaphoreTotalWarningIT {
    private RedisServer server;
    private LogCapture log;
    private Baton first;
    private Baton second;

    @BeforeEach
    void start() {
        server = RedisServer.start();
        log = LogCapture.start();
        first = Baton.connect(TestBatons.patientConfig(server.uri()));
        second = Baton.connect(TestBatons.patientConfig(server.uri()));
    }

    @AfterEach
    void stop() {
        try {
            second.close();
            first.close();
        } finally {
            log.close();
            server.close();
        }
    }

    @Test
    void anotherSizeThanTheStoredOneIsWarnedAboutOncePerBatonAndName() throws Exception {
        first.semaphore("s", 4).acquire(1, Duration.ZERO).release(); // writes the total: 4
        assertThat(log.lines(Level.WARN, "semaphore 's'")).as("asked for what it has").isEmpty();

        DistributedSemaphore eight = second.semaphore("s", 8);
        eight.acquire(1, Duration.ZERO).release();
        assertThat(eight.permits()).as("the stored total is kept").isEqualTo(4);
        eight.acquire(2, Duration.ZERO).release();
        second.semaphore("s", 8).acquire(1, Duration.ZERO).release();
        assertThat(log.lines(Level.WARN, "semaphore 's'")).as("once, however often it is used").containsExactly(
                "WARN semaphore 's' has 4 permits in Redis; asked for 8, it keeps 4: use setPermits to change it");

        // Read through permits() alone (no acquisition), another name, another Baton: one warning each.
        assertThat(first.semaphore("s", 6).permits()).isEqualTo(4);
        second.semaphore("t", 2).acquire(1, Duration.ZERO).release();
        assertThat(first.semaphore("t", 3).availablePermits()).isEqualTo(2);
        assertThat(log.lines(Level.WARN, "has 4 permits in Redis; asked for 6")).hasSize(1);
        assertThat(log.lines(Level.WARN, "semaphore 't' has 2 permits in Redis; asked for 3")).hasSize(1);
        assertThat(log.lines(Level.WARN, "permits in Redis")).hasSize(3);
    }

    @Test
    void aTotalThisBatonSetItselfIsNoSurprise() throws Exception {
        DistributedSemaphore pool = first.semaphore("pool", 2);
        pool.acquire(1, Duration.ZERO).release();
        pool.setPermits(5);
        pool.acquire(1, Duration.ZERO).release();
        assertThat(pool.permits()).isEqualTo(5);
        assertThat(log.lines(Level.WARN, "permits in Redis")).isEmpty();
    }
}
