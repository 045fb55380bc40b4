package dev.baton.bench;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.locks.Lock;

/**
 * Workload (f): one fair lock, 8 threads over 4 clients (2 each), lock(); unlock(); again and again: the shape of
 * scenario (c), with its handoff accounting ({@link HandoffScenario}).
 *
 * <p>The handoff latency of the fair lock is measured from the moment the holder <em>calls</em> {@code unlock()}
 * to the moment the next holder's {@code lock()} returns, both read with {@link System#nanoTime()} in this one JVM
 * (every client is in it), counted whenever the next holder is another thread. It includes the release round trip
 * and the wake-up of the next holder, and it cannot be negative. (From {@code unlock()} <em>returning</em> instead,
 * as scenario (c) reports first, is shown too: with a handoff made by the release script the next holder often
 * returns from {@code lock()} before the previous one returns from {@code unlock()}.)
 */
final class FairLockScenario {
    static final int CLIENTS = HandoffScenario.CLIENTS;

    private FairLockScenario() {
    }

    /**
     * @param pingUri the server, whose PING round trip is timed throughout the measured span on a connection of its
     *                own: the yardstick "one PING under the same contention" ({@link PingProbe#during})
     */
    static FamilyRound run(FamilyRound round, List<FamilyContender> clients, String name, Duration warmup,
                           Duration measure, RedisAdmin admin, List<Long> redisPids, String pingUri) {
        List<Lock> locks = new ArrayList<>();
        for (int t = 0; t < CLIENTS * HandoffScenario.THREADS_PER_CLIENT; t++) {
            locks.add(clients.get(t / HandoffScenario.THREADS_PER_CLIENT).fairLock(name));
        }
        HandoffScenario.Round h = HandoffScenario.measure(round.contender, locks, warmup, measure, admin, redisPids,
                pingUri);
        round.handoff = h;
        round.seconds = h.seconds;
        round.ops = h.acquisitions;
        round.opsForCommands = h.acquisitionsForCommands;
        round.stats = h.stats;
        round.clientCpuNanos = h.clientCpuNanos;
        round.redisCpuNanos = h.redisCpuNanos;
        round.exclusionViolations = h.exclusionViolations;
        round.errorCount = h.errorCount;
        round.errors.addAll(h.errors);
        round.stuckThreads.addAll(h.stuckThreads);
        return round;
    }
}
