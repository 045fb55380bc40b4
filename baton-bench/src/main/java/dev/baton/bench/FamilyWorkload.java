package dev.baton.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.LongSupplier;

/**
 * The three workloads of the lock-family benchmarks, each run the same way for Baton and for Redisson: clients
 * opened fresh for the round, a warm-up window, then a measured window (see {@link TimedThreads}), clients closed.
 */
enum FamilyWorkload {
    /** {@link FairLockScenario}. */
    FAIR("(f) fair lock: 8 threads / 4 clients, one name", "acquisitions/s"),
    /** {@link ReadWriteScenario}. */
    READ_WRITE("(rw) read-write lock: 8 readers / 4 clients + 1 writer", "read acquisitions/s"),
    /** {@link SemaphoreScenario}. */
    SEMAPHORE("(s) semaphore, 4 permits: 8 threads / 4 clients", "acquisitions/s");

    final String label;
    /** What {@link FamilyRound#ops} per second means for this workload. */
    final String rate;

    FamilyWorkload(String label, String rate) {
        this.label = label;
        this.rate = rate;
    }

    /**
     * One round on fresh clients of {@code kind}: warm-up, then the measured window between
     * {@code admin.resetStats()} and {@code admin.commandStats()}.
     *
     * @param name   the name of the lock or semaphore, fresh for the round
     * @param target the server, and the processes whose CPU counts as Redis's
     */
    FamilyRound run(String kind, RedisTarget target, String name, Duration warmup, Duration measure,
                    RedisAdmin admin) {
        FamilyRound round = new FamilyRound(this, kind);
        List<FamilyContender> clients = new ArrayList<>();
        try {
            return switch (this) {
                case FAIR -> FairLockScenario.run(round, open(clients, kind, target, FairLockScenario.CLIENTS), name,
                        warmup, measure, admin, target.redisPids(), target.uri());
                case READ_WRITE -> ReadWriteScenario.run(round, open(clients, kind, target,
                        ReadWriteScenario.CLIENTS), name, warmup, measure, admin, target.redisPids());
                case SEMAPHORE -> SemaphoreScenario.run(round, open(clients, kind, target,
                        SemaphoreScenario.CLIENTS), name, warmup, measure, admin, target.redisPids());
            };
        } catch (UnsupportedOperationException e) {
            round.notBuilt = String.valueOf(e.getMessage());
            return round;
        } finally {
            for (FamilyContender client : clients) {
                try {
                    client.close();
                } catch (RuntimeException e) {
                    // closing is best effort; a client stuck in close must not cost the remaining rounds
                }
            }
        }
    }

    /**
     * Opens {@code count} clients at once (a Redisson client takes a second or more to start on a loaded machine, most
     * of it waiting for connections), adding each to {@code opened} so the caller closes them whatever happens.
     */
    private static List<FamilyContender> open(List<FamilyContender> opened, String kind, RedisTarget target,
                                              int count) {
        List<CompletableFuture<FamilyContender>> opening = new ArrayList<>();
        for (int c = 0; c < count; c++) {
            CompletableFuture<FamilyContender> client = new CompletableFuture<>();
            Thread thread = new Thread(() -> {
                try {
                    client.complete(FamilyContender.open(kind, target));
                } catch (RuntimeException | Error e) {
                    client.completeExceptionally(e);
                }
            }, "open-" + kind + "-" + c);
            thread.setDaemon(true);
            thread.start();
            opening.add(client);
        }
        RuntimeException failure = null;
        for (CompletableFuture<FamilyContender> client : opening) {
            try {
                opened.add(client.join());
            } catch (CompletionException e) {
                if (failure == null) {
                    failure = e.getCause() instanceof RuntimeException r ? r : e;
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
        return opened;
    }

    /**
     * Runs a warm-up window, then the measured one, and puts what the measured one saw into {@code round}; errors of
     * the warm-up are kept too. A warm-up that hung is reported instead of measuring.
     */
    static TimedThreads.Outcome warmThenMeasure(FamilyRound round, Map<String, TimedThreads.Operation> ops,
                                                LongSupplier count, Runnable resetCounters,
                                                Duration warmup, Duration measure, RedisAdmin admin,
                                                List<Long> redisPids) {
        TimedThreads.Outcome warm = TimedThreads.run(ops, count, warmup, null, List.of());
        round.errorCount += warm.errorCount;
        round.errors.addAll(warm.errors);
        if (!warm.stuckThreads.isEmpty()) {
            round.stuckThreads.addAll(warm.stuckThreads);
            return null;
        }
        resetCounters.run();
        TimedThreads.Outcome measured = TimedThreads.run(ops, count, measure, admin, redisPids);
        round.take(measured);
        return measured;
    }
}
