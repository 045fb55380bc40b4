package dev.baton.bench;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
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
    private static final Duration JOIN_TIMEOUT = Duration.ofSeconds(30);

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
        CommandStats stats = CommandStats.empty();

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
            Round warm = once(kind, clients, name, warmup, null);
            if (!warm.stuckThreads.isEmpty()) {
                return warm; // no point in measuring a run that already hung
            }
            Round measured = once(kind, clients, name, measure, admin);
            measured.errors.addAll(0, warm.errors);
            measured.errorCount += warm.errorCount;
            return measured;
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

    private static Round once(String kind, List<Contender> clients, String name, Duration duration,
                              RedisAdmin admin) {
        Round round = new Round(kind);
        long[] acquiredAt = new long[CAPACITY];
        long[] releasedAt = new long[CAPACITY];
        long[] releaseCalledAt = new long[CAPACITY];
        int[] holder = new int[CAPACITY];
        AtomicLong sequence = new AtomicLong();
        AtomicInteger inside = new AtomicInteger();
        AtomicLong violations = new AtomicLong();
        AtomicLong errorCount = new AtomicLong();
        List<String> errors = Collections.synchronizedList(new ArrayList<>());
        CountDownLatch start = new CountDownLatch(1);
        Stopper stopper = new Stopper();

        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < CLIENTS * THREADS_PER_CLIENT; t++) {
            int id = t;
            Lock lock = clients.get(t / THREADS_PER_CLIENT).lock(name);
            Thread thread = new Thread(() -> {
                awaitQuietly(start);
                while (!stopper.stop) {
                    boolean held = false;
                    try {
                        lock.lock();
                        held = true;
                        long acquired = System.nanoTime();
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        long i = sequence.getAndIncrement();
                        inside.decrementAndGet();
                        held = false;
                        long releasing = System.nanoTime();
                        lock.unlock();
                        long released = System.nanoTime();
                        if (i < CAPACITY) {
                            acquiredAt[(int) i] = acquired;
                            releaseCalledAt[(int) i] = releasing;
                            releasedAt[(int) i] = released;
                            holder[(int) i] = id;
                        }
                    } catch (RuntimeException e) {
                        if (errorCount.incrementAndGet() <= 3) {
                            errors.add((held ? "while holding: " : "") + stackTrace(e));
                        }
                        sleepQuietly(1);
                    }
                }
            }, "handoff-" + kind + "-c" + (t / THREADS_PER_CLIENT) + "-t" + t);
            thread.setDaemon(true);
            threads.add(thread);
            thread.start();
        }

        if (admin != null) {
            admin.resetStats();
        }
        long begin = System.nanoTime();
        start.countDown();
        sleepQuietly(duration.toMillis());
        stopper.stop = true;
        long acquisitionsAtStop = sequence.get();
        round.seconds = (System.nanoTime() - begin) / 1e9;

        long deadline = System.nanoTime() + JOIN_TIMEOUT.toNanos();
        for (Thread thread : threads) {
            try {
                thread.join(Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime())));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            if (thread.isAlive()) {
                round.stuckThreads.add(thread.getName() + " did not stop within " + JOIN_TIMEOUT + ":\n"
                        + frames(thread.getStackTrace()));
            }
        }
        if (admin != null && round.stuckThreads.isEmpty()) {
            round.stats = admin.commandStats();
        }

        long total = Math.min(sequence.get(), CAPACITY);
        round.acquisitions = acquisitionsAtStop;
        round.exclusionViolations = violations.get();
        round.errorCount = errorCount.get();
        round.errors.addAll(errors);
        long[] handoffs = new long[(int) Math.max(0, total - 1)];
        long[] handoffsFromCall = new long[handoffs.length];
        long[] otherClient = new long[handoffs.length];
        int oc = 0;
        long[] gaps = new long[(int) Math.max(0, total - 1)];
        int h = 0;
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
        // Commands are counted until every thread stopped: divide by every acquisition made in that span.
        round.acquisitionsForCommands = sequence.get();
        return round;
    }

    private static final class Stopper {
        volatile boolean stop;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static String stackTrace(Throwable e) {
        StringWriter out = new StringWriter();
        e.printStackTrace(new PrintWriter(out));
        String text = out.toString();
        return text.length() > 4_000 ? text.substring(0, 4_000) + "\n\t..." : text;
    }

    private static String frames(StackTraceElement[] frames) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < Math.min(frames.length, 25); i++) {
            out.append("\tat ").append(frames[i]).append('\n');
        }
        return out.toString();
    }
}
