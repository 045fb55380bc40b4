package dev.baton.support;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.DistributedLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The other process in tests of waits under contention: {@code URI LOCK THREADS SECONDS HOLD_MS THRESHOLD_MS
 * WARMUP_SECONDS}. One Baton (with that fairness threshold; 0 turns precedence off), THREADS threads that each, until
 * SECONDS have passed, {@code lock()}, hold for HOLD_MS, {@code unlock()} and go straight back. The wait of every
 * {@code lock()} called after the warm-up (JVM start-up, the other processes starting) is recorded;
 * at the end it prints {@code WAITS <count> <max ms> <p99 ms> <over threshold>} and {@code DONE}. Waits are measured
 * in this process with {@link System#nanoTime()}, from calling {@code lock()} to its return.
 */
public final class ContentionWorker {
    private ContentionWorker() {
    }

    public static void main(String[] args) throws Exception {
        String uri = args[0];
        String lockName = args[1];
        int threads = Integer.parseInt(args[2]);
        long seconds = Long.parseLong(args[3]);
        long holdMillis = Long.parseLong(args[4]);
        Duration threshold = Duration.ofMillis(Long.parseLong(args[5]));
        long warmupNanos = TimeUnit.SECONDS.toNanos(Long.parseLong(args[6]));
        // A long command timeout: on a loaded machine a slow answer must show as a long wait, not end the run.
        BatonConfig config = BatonConfig.builder().uri(uri).fairnessThreshold(threshold)
                .commandTimeout(Duration.ofSeconds(30)).build();
        try (Baton baton = Baton.connect(config)) {
            DistributedLock lock = baton.lock(lockName);
            long start = System.nanoTime();
            long end = start + TimeUnit.SECONDS.toNanos(seconds);
            long measureFrom = start + warmupNanos;
            List<long[]> waits = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                long[] mine = new long[1 << 16];
                waits.add(mine);
                Thread worker = new Thread(() -> run(lock, measureFrom, end, holdMillis, mine), "contender-" + t);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            long[] all = waits.stream().flatMapToLong(w -> Arrays.stream(w, 1, (int) w[0] + 1)).sorted().toArray();
            long over = Arrays.stream(all).filter(w -> threshold.isZero() || w > threshold.toNanos()).count();
            System.out.println("WAITS " + all.length + " " + millis(all.length == 0 ? 0 : all[all.length - 1]) + " "
                    + millis(all.length == 0 ? 0 : all[(int) Math.min(all.length - 1, Math.ceil(all.length * 0.99) - 1)])
                    + " " + (threshold.isZero() ? -1 : over));
            System.out.println("OVER1S " + Arrays.stream(all).filter(w -> w > 1_000_000_000L).count() + " OVER2S "
                    + Arrays.stream(all).filter(w -> w > 2_000_000_000L).count());
            System.out.println("DONE");
        }
    }

    /** waits[0] counts the waits recorded in waits[1..]. */
    private static void run(DistributedLock lock, long measureFrom, long end, long holdMillis, long[] waits) {
        while (System.nanoTime() - end < 0) {
            long asked = System.nanoTime();
            lock.lock();
            try {
                long waited = System.nanoTime() - asked;
                if (asked - measureFrom >= 0 && waits[0] < waits.length - 1) {
                    waits[(int) ++waits[0]] = waited;
                }
                Thread.sleep(holdMillis); // work done under the lock (the contention is the scenario), not a wait
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } finally {
                lock.unlock();
            }
        }
    }

    private static long millis(long nanos) {
        return TimeUnit.NANOSECONDS.toMillis(nanos);
    }
}
