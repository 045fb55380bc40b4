package dev.baton.bench;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReadWriteLock;

/**
 * Workload (rw): one read-write lock, 8 reader threads over 4 clients (2 each) taking the read lock again and again,
 * and 1 writer thread on a fifth client taking the write lock, then pausing {@value #WRITER_PAUSE_MILLIS} ms before
 * the next write: a read-mostly lock with a steady trickle of writes, the case a read-write lock is for.
 *
 * <p>Measured: read acquisitions per second (the rate), the time each reader's {@code lock()} took, and the
 * writer's wait: from its {@code writeLock().lock()} call to the call returning. A library that lets new readers
 * in while a writer waits gives more reads per second and long writer waits; one that queues new readers behind a
 * waiting writer gives the reverse. A writer wait that ends after the window closed (so after the readers stopped)
 * is counted separately: it may have been cut short by the end of the round. Counters raised and lowered inside the
 * lock check on the way that no reader is inside with a writer and no two writers at once.
 */
final class ReadWriteScenario {
    static final int READER_CLIENTS = 4;
    static final int READERS_PER_CLIENT = 2;
    /** Reader clients plus the writer's. */
    static final int CLIENTS = READER_CLIENTS + 1;
    static final long WRITER_PAUSE_MILLIS = 10;
    static final String READ_LOCK = "reader's lock()";
    static final String WRITER_WAIT = "writer's wait";

    private ReadWriteScenario() {
    }

    static FamilyRound run(FamilyRound round, List<FamilyContender> clients, String name, Duration warmup,
                           Duration measure, RedisAdmin admin, List<Long> redisPids) {
        ReadWriteLock[] locks = new ReadWriteLock[CLIENTS];
        for (int c = 0; c < CLIENTS; c++) {
            locks[c] = clients.get(c).readWriteLock(name);
        }
        AtomicLong reads = new AtomicLong();
        AtomicLong writes = new AtomicLong();
        AtomicInteger readersInside = new AtomicInteger();
        AtomicInteger writersInside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        Samples readWaits = new Samples(1 << 21);
        Samples writeStarts = new Samples(1 << 16);
        Samples writeEnds = new Samples(1 << 16);

        Map<String, TimedThreads.Operation> threads = new LinkedHashMap<>();
        for (int t = 0; t < READER_CLIENTS * READERS_PER_CLIENT; t++) {
            Lock read = locks[t / READERS_PER_CLIENT].readLock();
            threads.put("rw-" + round.contender + "-c" + (t / READERS_PER_CLIENT) + "-reader" + t, () -> {
                long called = System.nanoTime();
                read.lock();
                long acquired = System.nanoTime();
                readersInside.incrementAndGet();
                if (writersInside.get() != 0) {
                    violations.incrementAndGet();
                }
                readersInside.decrementAndGet();
                read.unlock();
                readWaits.add(acquired - called);
                reads.incrementAndGet();
            });
        }
        Lock write = locks[READER_CLIENTS].writeLock();
        threads.put("rw-" + round.contender + "-c" + READER_CLIENTS + "-writer", () -> {
            long called = System.nanoTime();
            write.lock();
            long acquired = System.nanoTime();
            if (writersInside.incrementAndGet() != 1 || readersInside.get() != 0) {
                violations.incrementAndGet();
            }
            writersInside.decrementAndGet();
            write.unlock();
            writeStarts.add(called);
            writeEnds.add(acquired);
            writes.incrementAndGet();
            Thread.sleep(WRITER_PAUSE_MILLIS);
        });

        // The runner asks for the count first when the window closes, then once every thread stopped: the writes of
        // the first call are the writes within the window.
        AtomicLong writesAtStop = new AtomicLong(-1);
        TimedThreads.Outcome outcome = FamilyWorkload.warmThenMeasure(round, threads, () -> {
            long w = writes.get();
            writesAtStop.compareAndSet(-1, w);
            return reads.get() + w;
        }, () -> {
            writesAtStop.set(-1);
            reads.set(0);
            writes.set(0);
            violations.set(0);
            readWaits.reset();
            writeStarts.reset();
            writeEnds.reset();
        }, warmup, measure, admin, redisPids);
        round.exclusionViolations = violations.get();
        if (outcome == null) {
            return round;
        }
        round.writes = writesAtStop.get();
        round.ops = outcome.opsAtStop - round.writes;
        round.latencies.put(READ_LOCK, readWaits.toArray());
        long[] starts = writeStarts.toArray();
        long[] ends = writeEnds.toArray();
        int n = Math.min(starts.length, ends.length);
        long[] waits = new long[n];
        for (int i = 0; i < n; i++) {
            waits[i] = ends[i] - starts[i];
            if (ends[i] > outcome.stoppedAt) {
                round.lateWaits++;
            }
        }
        round.latencies.put(WRITER_WAIT, waits);
        return round;
    }
}
