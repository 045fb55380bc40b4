package dev.baton.internal.redlock;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * Proposed Redlock fencing tokens on a hand-moved monotonic clock: nothing before a master was heard, then the fastest
 * master's clock (in microseconds) carried forward by the local clock, above every counter a master refused with, and
 * strictly increasing whatever the clock does.
 */
class TokenProposalsTest {
    /** A master's TIME in microseconds, about 2023. */
    private static final long T = 1_700_000_000_000_000L;

    /** The ticker may start anywhere, negative included: only differences count. */
    private final AtomicLong nanos = new AtomicLong(-5_000_000_123L);
    private final TokenProposals proposals = new TokenProposals(nanos::get);

    @Test
    void nothingIsProposedBeforeAnyMasterWasHeard() {
        assertThat(proposals.next()).isZero();
        advanceMicros(1_000_000);
        assertThat(proposals.next()).as("still 0: masters answer it with their clock and counter").isZero();
        assertThat(proposals.next()).isZero();
    }

    @Test
    void proposalsFollowTheMasterClockInMicrosecondsOnTheLocalMonotonicClock() {
        proposals.clock(T);
        assertThat(proposals.next()).isEqualTo(T);
        advanceMicros(2_500);
        assertThat(proposals.next()).isEqualTo(T + 2_500);
        nanos.addAndGet(999); // less than a microsecond: the next proposal is one above the last all the same
        assertThat(proposals.next()).isEqualTo(T + 2_501);
    }

    @Test
    void proposalsStrictlyIncreaseEvenWithAFrozenTicker() {
        proposals.clock(T);
        long previous = proposals.next();
        for (int i = 0; i < 10_000; i++) {
            long next = proposals.next();
            assertThat(next).isGreaterThan(previous);
            previous = next;
        }
        assertThat(previous).as("one above the last each time, no more").isEqualTo(T + 10_000);
    }

    @Test
    void proposalsStayUniqueAcrossThreads() throws Exception {
        proposals.clock(T);
        int threads = 4;
        int each = 20_000;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Callable<List<Long>>> tasks = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                tasks.add(() -> {
                    List<Long> mine = new ArrayList<>(each);
                    for (int i = 0; i < each; i++) {
                        mine.add(proposals.next());
                        if (i % 100 == 0) {
                            nanos.addAndGet(1_000); // the clock moves meanwhile, now and then
                        }
                    }
                    return mine;
                });
            }
            Set<Long> all = new HashSet<>();
            for (Future<List<Long>> f : pool.invokeAll(tasks)) {
                List<Long> mine = f.get();
                for (int i = 1; i < mine.size(); i++) {
                    assertThat(mine.get(i)).as("increasing within each thread").isGreaterThan(mine.get(i - 1));
                }
                all.addAll(mine);
            }
            assertThat(all).as("no proposal made twice").hasSize(threads * each);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void proposalsTrackTheLargestMasterClockSeen() {
        proposals.clock(T);
        proposals.clock(T + 5_000_000); // a master 5 s ahead
        assertThat(proposals.next()).isEqualTo(T + 5_000_000);
        proposals.clock(T); // the slower master answers again: no step back
        advanceMicros(1_000);
        assertThat(proposals.next()).isEqualTo(T + 5_001_000);

        advanceMicros(1_000);
        proposals.clock(T + 8_000_000); // a master further ahead still, heard 1 ms later
        advanceMicros(1_000);
        assertThat(proposals.next()).isEqualTo(T + 8_001_000);
    }

    @Test
    void aCounterMakesTheNextProposalExceedIt() {
        proposals.clock(T);
        long counter = T + 60_000_000; // a master granted a token a minute ahead of its clock
        proposals.above(counter);
        assertThat(proposals.next()).isEqualTo(counter + 1);
        advanceMicros(10);
        assertThat(proposals.next()).as("and goes on from there with the clock").isEqualTo(counter + 11);

        proposals.above(T); // a counter below what is proposed already changes nothing
        advanceMicros(10);
        assertThat(proposals.next()).isEqualTo(counter + 21);
    }

    @Test
    void aCounterIsAboveTheProposalEvenIfItIsTheFirstThingHeard() {
        proposals.above(T);
        assertThat(proposals.next()).isGreaterThan(T);
    }

    @Test
    void offsetsNeverDecreaseWhateverOrderTheRepliesComeIn() {
        proposals.clock(T + 3_000_000);
        proposals.above(T + 2_000_000);
        long first = proposals.next();
        assertThat(first).isEqualTo(T + 3_000_000);
        long previous = first;
        long elapsed = 0;
        for (int i = 1; i <= 100; i++) {
            // Slower clocks and lower counters, as the other masters (or stale replies) report them.
            proposals.clock(T - i);
            proposals.above(T + i);
            advanceMicros(7);
            elapsed += 7;
            long next = proposals.next();
            assertThat(next).as("never below the fastest clock carried forward").isEqualTo(T + 3_000_000 + elapsed);
            assertThat(next).isGreaterThan(previous);
            previous = next;
        }
    }

    /**
     * A monotonic reading may wrap from {@code Long.MAX_VALUE} to negative: proposals still follow the masters' clock,
     * because the local microseconds are a difference of readings, divided after subtracting. (Found by the Redlock
     * driver's unit tests: dividing each reading first made the proposal after the wrap fall back to the last one + 1,
     * off the masters' clock scale that docs/redlock.md relies on for a master that restarted empty.)
     */
    @Test
    void proposalsFollowTheMasterClockAcrossTheWrapOfTheLocalReading() {
        nanos.set(Long.MAX_VALUE - 1_000_000_000L); // 1 s before the reading wraps
        proposals.clock(T);
        assertThat(proposals.next()).isEqualTo(T);

        advanceMicros(2_000_000); // 2 s on: the reading wrapped 1 s ago

        assertThat(proposals.next()).as("the masters' clock, 2 s on").isEqualTo(T + 2_000_000);
    }

    private void advanceMicros(long micros) {
        nanos.addAndGet(micros * 1_000);
    }
}
