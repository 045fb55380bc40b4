package dev.baton.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.Lock;

/**
 * Scenario (c): 4 clients of one contender (4 {@code Baton}s, or 4 {@code RedissonClient}s), 2 threads each, all
 * hammering one lock with lock(); unlock(). It measures acquisitions per second and the handoff latency: from the
 * moment one holder's {@code unlock()} returned to the moment the next holder's {@code lock()} returned.
 *
 * <p>Every acquisition takes a sequence number while it holds the lock, so holder {@code i+1} is exactly the one
 * that followed holder {@code i}; each records when its lock() and unlock() returned, and the gaps are computed
 * after the threads have stopped. (A single shared "last unlock" timestamp would be racy: the next holder may get
 * the lock before the previous unlock() call has returned.) A gap counts as a <em>handoff</em> when the next holder
 * is another thread; a thread taking the lock straight back is counted separately. A negative gap (the next
 * lock() returned before the previous unlock() did) is counted as an overlap and taken as zero. The counter that
 * every holder raises and lowers inside the lock also checks mutual exclusion on the way.
 */
final class HandoffScenario {
    static final int CLIENTS = 4;
    static final int THREADS_PER_CLIENT = 2;
    private static final int CAPACITY = 1 << 22;

    /** What one measured round saw. */
    static final class Round {
        final String contender;
        /** Acquisitions completed within the timed window. */
        long acquisitions;
        /** Acquisitions completed until every thread stopped: the span the command statistics cover. */
        long acquisitionsForCommands;
        double seconds;
        long handoffs;
        long sameThread;
        long overlaps;
        long exclusionViolations;
        long errorCount;
        final List<String> errors = new ArrayList<>();
        final List<String> stuckThreads = new ArrayList<>();
        long[] handoffNanos = new long[0];
        /** The same handoffs measured from the moment unlock() was called: an upper bound that includes it. */
        long[] handoffFromCallNanos = new long[0];
        long[] gapNanos = new long[0];
        /** Handoffs whose next holder belongs to another client (another Baton or RedissonClient instance). */
        long[] otherClientNanos = new long[0];
        /**
         * PING round trips timed on a connection of their own while the measured round ran ({@link PingProbe#during}),
         * in ns; empty unless asked for.
         */
        long[] pingUnderLoadNanos = new long[0];
        /** How long each unlock() call took (the release round trip), in ns. */
        long[] unlockNanos = new long[0];
        CommandStats stats = CommandStats.empty();
        /** CPU of this JVM over the measured span, in ns. */
        long clientCpuNanos;
        /** CPU of the Redis processes over the measured span, in ns, or -1 if not measured. */
        long redisCpuNanos = -1;

        Round(String contender) {
            this.contender = contender;
        }

        double perSecond() {
            return acquisitions / seconds;
        }
    }

    private HandoffScenario() {
    }

    /**
     * Opens the contender's clients, warms up for {@code warmup}, measures for {@code measure} between a
     * {@code CONFIG RESETSTAT} and an {@code INFO commandstats}, and closes the clients.
     */
    static Round run(String kind, String uri, RedisAdmin admin, Duration warmup, Duration measure) {
        List<Contender> clients = new ArrayList<>();
        try {
            for (int c = 0; c < CLIENTS; c++) {
                clients.add(Contender.open(kind, uri));
            }
            String name = "bench:c:" + kind;
            List<Lock> locks = new ArrayList<>();
            for (int t = 0; t < CLIENTS * THREADS_PER_CLIENT; t++) {
                locks.add(clients.get(t / THREADS_PER_CLIENT).lock(name));
            }
            return measure(kind, locks, warmup, measure, admin, List.of());
        } finally {
            for (Contender client : clients) {
                try {
                    client.close();
                } catch (RuntimeException e) {
                    // closing is best effort; a client stuck in close must not cost the remaining rounds
                }
            }
        }
    }

    /**
     * Warms up for {@code warmup}, then measures for {@code measure}: one thread per lock of {@code locks}, all of
     * them objects of the same distributed lock, thread {@code t} belonging to client
     * {@code t / }{@value #THREADS_PER_CLIENT}. The caller opens and closes the clients.
     *
     * @param redisPids the processes whose CPU counts as Redis's (empty: not measured)
     */
    static Round measure(String contender, List<Lock> locks, Duration warmup, Duration measure, RedisAdmin admin,
                         List<Long> redisPids) {
        return measure(contender, locks, warmup, measure, admin, redisPids, null);
    }

    /**
     * As above; with {@code pingUri}, PINGs to that server are timed throughout the measured span, on a connection and
     * thread of their own ({@link Round#pingUnderLoadNanos}): the round trip under the same contention.
     */
    static Round measure(String contender, List<Lock> locks, Duration warmup, Duration measure, RedisAdmin admin,
                         List<Long> redisPids, String pingUri) {
        Round warm = once(contender, locks, warmup, null, List.of());
        if (!warm.stuckThreads.isEmpty()) {
            return warm; // no point in measuring a run that already hung
        }
        long[] pingUnderLoad;
        PingProbe.During ping = pingUri == null ? null : PingProbe.during(pingUri);
        Round measured;
        try {
            measured = once(contender, locks, measure, admin, redisPids);
        } finally {
            long[] samples = ping == null ? new long[0] : ping.stop();
            pingUnderLoad = samples;
        }
        measured.pingUnderLoadNanos = pingUnderLoad;
        measured.errors.addAll(0, warm.errors);
        measured.errorCount += warm.errorCount;
        return measured;
    }

    private static Round once(String contender, List<Lock> locks, Duration duration, RedisAdmin admin,
                              List<Long> redisPids) {
        Round round = new Round(contender);
        long[] acquiredAt = new long[CAPACITY];
        long[] releasedAt = new long[CAPACITY];
        long[] releaseCalledAt = new long[CAPACITY];
        int[] holder = new int[CAPACITY];
        AtomicLong sequence = new AtomicLong();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();

        Map<String, TimedThreads.Operation> threads = new LinkedHashMap<>();
        for (int t = 0; t < locks.size(); t++) {
            int id = t;
            Lock lock = locks.get(t);
            threads.put("handoff-" + contender + "-c" + (t / THREADS_PER_CLIENT) + "-t" + t, () -> {
                lock.lock();
                long acquired = System.nanoTime();
                if (inside.incrementAndGet() != 1) {
                    violations.incrementAndGet();
                }
                long i = sequence.getAndIncrement();
                inside.decrementAndGet();
                long releasing = System.nanoTime();
                lock.unlock();
                long released = System.nanoTime();
                if (i < CAPACITY) {
                    acquiredAt[(int) i] = acquired;
                    releaseCalledAt[(int) i] = releasing;
                    releasedAt[(int) i] = released;
                    holder[(int) i] = id;
                }
            });
        }
        TimedThreads.Outcome outcome = TimedThreads.run(threads, sequence::get, duration, admin, redisPids);
        round.seconds = outcome.seconds;
        round.acquisitions = outcome.opsAtStop;
        round.stats = outcome.stats;
        round.clientCpuNanos = outcome.clientCpuNanos;
        round.redisCpuNanos = outcome.redisCpuNanos;
        round.stuckThreads.addAll(outcome.stuckThreads);
        round.errorCount = outcome.errorCount;
        round.errors.addAll(outcome.errors);
        round.exclusionViolations = violations.get();

        long total = Math.min(outcome.opsAtEnd, CAPACITY);
        long[] handoffs = new long[(int) Math.max(0, total - 1)];
        long[] handoffsFromCall = new long[handoffs.length];
        long[] otherClient = new long[handoffs.length];
        long[] unlocks = new long[(int) total];
        int oc = 0;
        long[] gaps = new long[(int) Math.max(0, total - 1)];
        int h = 0;
        for (int i = 0; i < total; i++) {
            unlocks[i] = releasedAt[i] - releaseCalledAt[i];
        }
        for (int i = 1; i < total; i++) {
            long gap = acquiredAt[i] - releasedAt[i - 1];
            if (gap < 0) {
                round.overlaps++;
                gap = 0;
            }
            gaps[i - 1] = gap;
            if (holder[i] != holder[i - 1]) {
                handoffsFromCall[h] = Math.max(0, acquiredAt[i] - releaseCalledAt[i - 1]);
                if (holder[i] / THREADS_PER_CLIENT != holder[i - 1] / THREADS_PER_CLIENT) {
                    otherClient[oc++] = gap;
                }
                handoffs[h++] = gap;
            } else {
                round.sameThread++;
            }
        }
        round.handoffs = h;
        round.handoffNanos = Arrays.copyOf(handoffs, h);
        round.handoffFromCallNanos = Arrays.copyOf(handoffsFromCall, h);
        round.otherClientNanos = Arrays.copyOf(otherClient, oc);
        round.gapNanos = gaps;
        round.unlockNanos = unlocks;
        // Commands are counted until every thread stopped: divide by every acquisition made in that span.
        round.acquisitionsForCommands = outcome.opsAtEnd;
        return round;
    }

    static String stackTrace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        String text = out.toString();
        return text.length() > 4_000 ? text.substring(0, 4_000) + "\n\t..." : text;
    }
}
