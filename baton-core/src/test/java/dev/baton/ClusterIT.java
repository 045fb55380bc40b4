package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.AcquisitionStream;
import dev.baton.support.FencedResource;
import dev.baton.support.Measure;
import dev.baton.support.TestBatons;
import dev.baton.test.HashSlot;
import dev.baton.test.RedisCluster;
import dev.baton.test.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baton on a Redis Cluster (3 masters, 1 replica each): locks on every master, waiters woken, renewals that land
 * (one script per hash slot), rate limiters, and the same {@code Baton}s through a slot migration and a manual
 * failover while a lock is held and waited on and another lock of the same slot is taken again and again: the hold
 * outlives several leases across the change, the waiter gets the lock when it is released, and tokens keep
 * increasing.
 */
class ClusterIT {
    /** Long enough that a loaded machine's slow round is no lost lease; the holds below outlive it twice. */
    private static final Duration LEASE = Duration.ofSeconds(3);
    /** How long the kit and the changes may take on a loaded machine. */
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final Logger log = LoggerFactory.getLogger(ClusterIT.class);
    private static RedisCluster cluster;

    @BeforeAll
    static void startCluster() {
        cluster = RedisCluster.start();
    }

    @AfterAll
    static void stopCluster() {
        cluster.close();
    }

    private static Baton connect() {
        return Baton.connect(BatonConfig.builder().cluster(cluster.seedUris().toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(2)).watchdogLease(LEASE)
                .recheckInterval(TestBatons.RECHECK).build());
    }

    /** A lock name whose keys live on the given master. */
    private static String nameOn(RedisServer master, String prefix) {
        for (int i = 0; ; i++) {
            String name = prefix + i;
            if (cluster.masterForKey("baton:lock:{" + name + "}").port() == master.port()) {
                return name;
            }
        }
    }

    @Test
    void locksOnEveryMasterAreRenewedAndWaitersWoken() throws Exception {
        ExecutorService threads = Executors.newCachedThreadPool();
        try (Baton baton = connect(); Baton other = connect()) {
            List<DistributedLock> held = new ArrayList<>();
            for (RedisServer master : cluster.masters()) {
                DistributedLock lock = baton.lock(nameOn(master, "every-"));
                lock.lock();
                held.add(lock);
                assertThat(master.command("EXISTS", "baton:lock:{" + lock.name() + "}")).isEqualTo("1");
            }
            // Twice the watchdog lease: only renewals (one script per slot) keep them.
            long until = System.nanoTime() + LEASE.multipliedBy(2).toNanos();
            await().atMost(Duration.ofSeconds(10)).until(() -> System.nanoTime() - until > 0);
            for (DistributedLock lock : held) {
                assertThat(lock.isHeldByCurrentThread()).isTrue();
                assertThat(other.lock(lock.name()).isLocked()).isTrue();
            }

            // Another process waits on each; a release wakes it.
            List<Future<Long>> waiters = new ArrayList<>();
            for (DistributedLock lock : held) {
                waiters.add(threads.submit(() -> {
                    DistributedLock theirs = other.lock(lock.name());
                    theirs.lock();
                    long token = theirs.fencingToken();
                    theirs.unlock();
                    return token;
                }));
            }
            for (int i = 0; i < held.size(); i++) {
                long mine = held.get(i).fencingToken();
                held.get(i).unlock();
                assertThat(waiters.get(i).get(20, TimeUnit.SECONDS)).isGreaterThan(mine);
            }

            RateLimiter limiter = baton.rateLimiter("cluster-api", RateLimit.of(5, Duration.ofHours(1)),
                    RateLimit.builder(3, Duration.ofMinutes(1)).algorithm(RateLimit.Algorithm.SLIDING_WINDOW_LOG)
                            .build());
            assertThat(limiter.tryAcquire(3).allowed()).isTrue();
            assertThat(limiter.tryAcquire().allowed()).isFalse();
        } finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aLockHeldAndWaitedOnMovesWithItsSlotAndIsStillRenewedReleasedAndFenced() throws Exception {
        RedisServer source = cluster.masters().get(0);
        String name = nameOn(source, "moving-");
        int slot = HashSlot.of(name);
        RedisServer target = cluster.masters().stream().filter(m -> !m.equals(source)).findFirst().orElseThrow();
        try (Baton holder = connect(); Baton waiting = connect(); Baton streaming = connect()) {
            Change change = new Change(holder, waiting, streaming, name);
            change.before();
            cluster.migrateSlot(slot, target);
            assertThat(target.command("EXISTS", "baton:lock:{" + name + "}")).as("moved with its slot")
                    .isEqualTo("1");
            change.after(target, 0);
        }
    }

    @Test
    void replicaAcknowledgedLocksAreRefusedOnAClusterBeforeAnyRedisCall() {
        try (Baton baton = connect()) {
            assertThatThrownBy(() -> baton.lock("acked", LockOptions.replicaAcknowledged(1, Duration.ofSeconds(1))))
                    .isInstanceOf(UnsupportedOperationException.class)
                    .hasMessageContaining("not supported on a Redis Cluster");
            DistributedLock plain = baton.lock("acked", LockOptions.unacknowledged());
            assertThat(plain.tryLock()).isTrue();
            plain.unlock();
        }
    }

    @Test
    void aLockHeldAndWaitedOnSurvivesAFailoverOfItsMasterAndIsStillRenewedReleasedAndFenced() throws Exception {
        RedisServer old = cluster.masters().get(2);
        String name = nameOn(old, "failing-over-");
        RedisServer promoted = cluster.replicasOf(old).get(0);
        try (Baton holder = connect(); Baton waiting = connect(); Baton streaming = connect()) {
            Change change = new Change(holder, waiting, streaming, name);
            change.before();
            cluster.failover(promoted);
            assertThat(cluster.masterFor(HashSlot.of(name))).isEqualTo(promoted);
            // A manual failover loses no write, but calls may stall until the replica has taken over: they may time
            // out, and are then told that Redis is unavailable (lock-protocol.md, failure model).
            change.after(promoted, Integer.MAX_VALUE);
        }
    }

    /**
     * A topology change under load, for one lock name: its holder (watchdog lease), a waiter from another Baton, and
     * a stream of acquisitions of a second lock in the same hash slot, each token written to a fenced resource.
     */
    private final class Change {
        private final DistributedLock held;
        private final Baton waiting;
        private final String name;
        private final DistributedLock neighbour;
        private final RedisServer database = RedisServer.start();
        private final RedisClient databaseClient = RedisClient.create(database.uri());
        private final StatefulRedisConnection<String, String> databaseConnection = databaseClient.connect();
        private final ExecutorService threads = Executors.newCachedThreadPool();
        private final AtomicLong waiterUnavailable = new AtomicLong();
        private long heldToken;
        private Future<Long> waiter;
        private AcquisitionStream stream;

        Change(Baton holder, Baton waiting, Baton streaming, String name) {
            this.held = holder.lock(name);
            this.waiting = waiting;
            this.name = name;
            this.neighbour = streaming.lock(sameSlotAs(name));
        }

        void before() {
            held.lock();
            heldToken = held.fencingToken();
            waiter = threads.submit(() -> {
                DistributedLock lock = waiting.lock(name);
                while (true) {
                    try {
                        if (!lock.tryLock(Duration.ofMinutes(2))) {
                            return -1L;
                        }
                        long token = lock.fencingToken();
                        lock.unlock();
                        return token;
                    } catch (BatonUnavailableException e) {
                        waiterUnavailable.incrementAndGet();
                    }
                }
            });
            await().atMost(SETTLE).until(() -> subscribers("baton:lock:{" + name + "}:released") == 1);
            stream = AcquisitionStream.start(neighbour, new FencedResource(databaseConnection.sync(), "neighbour"));
            await().atMost(SETTLE).until(() -> stream.grants().size() >= 10);
        }

        /**
         * After the change: the hold outlives two leases on the new master (only renewals landing there keep it),
         * the waiter is still waiting, then gets the lock when it is released, with a larger token; the stream went
         * on, with increasing tokens that the resource all accepted.
         *
         * @param unavailableAllowed how many of the stream's and the waiter's calls may have found Redis unavailable
         */
        void after(RedisServer owner, int unavailableAllowed) throws Exception {
            try {
                long changed = System.nanoTime();
                String key = "baton:lock:{" + name + "}";
                await().pollInSameThread().during(LEASE.multipliedBy(2)).atMost(LEASE.multipliedBy(2).plus(SETTLE))
                        .until(() -> held.isHeldByCurrentThread() && "1".equals(owner.command("EXISTS", key))
                                && !waiter.isDone());
                await().atMost(SETTLE).until(() -> stream.grantedSince(changed) >= 10);
                long released = System.nanoTime();
                held.unlock();
                assertThat(waiter.get(SETTLE.toSeconds(), TimeUnit.SECONDS)).as("the waiter's token")
                        .isGreaterThan(heldToken);
                log.info("waiter acquired {} ms after the release ({} unavailable tries); acquisitions in the same "
                        + "slot: {}", Measure.millisSince(released), waiterUnavailable.get(), stream);
            } finally {
                stream.close();
                threads.shutdownNow();
                databaseConnection.close();
                databaseClient.shutdown();
                database.close();
            }
            assertThat(stream.unexpected()).as("%s", stream).isEmpty();
            assertThat(stream.refused()).as("nobody else takes the lock: %s", stream).isZero();
            assertThat(stream.lost()).as("a manual failover or a migration loses no write: %s", stream).isZero();
            assertThat(stream.unavailable() + waiterUnavailable.get()).as("calls that found Redis unavailable: %s",
                    stream).isLessThanOrEqualTo(unavailableAllowed);
            assertThat(stream.tokens()).as("fencing tokens, in acquisition order").isSorted()
                    .doesNotHaveDuplicates();
            assertThat(stream.rejectedWrites()).as("writes the resource refused").isZero();
        }
    }

    /** Another lock name whose keys share the hash slot of {@code name}'s. */
    private static String sameSlotAs(String name) {
        int slot = HashSlot.of(name);
        for (int i = 0; ; i++) {
            String candidate = name + "-neighbour-" + i;
            if (HashSlot.of(candidate) == slot) {
                return candidate;
            }
        }
    }

    /** Subscribers of a channel over all nodes: Baton's one subscription may sit on any of them. */
    private static long subscribers(String channel) {
        return cluster.nodes().stream().filter(n -> n.isRunning() && !n.isPaused())
                .mapToLong(n -> Measure.subscribers(n, channel)).sum();
    }

    @Test
    void aClusterUriAgainstAStandaloneServerAndTheReverseSayWhatIsWrong() {
        try (RedisServer standalone = RedisServer.start()) {
            assertThatThrownBy(() -> Baton.connect(BatonConfig.builder().cluster(standalone.uri())
                    .commandTimeout(Duration.ofSeconds(2)).build()))
                    .isExactlyInstanceOf(BatonException.class).hasMessageContaining("is not a cluster node");
        }
        try (Baton wrong = Baton.connect(BatonConfig.builder().uri(cluster.seedUris().get(0))
                .commandTimeout(Duration.ofSeconds(2)).build())) {
            // Some name lands on another master than the one connected to.
            RedisServer elsewhere = cluster.masters().stream()
                    .filter(m -> !cluster.seedUris().get(0).endsWith(":" + m.port())).findFirst().orElseThrow();
            String name = nameOn(elsewhere, "elsewhere-");
            assertThatThrownBy(() -> wrong.lock(name).tryLock()).isExactlyInstanceOf(BatonException.class)
                    .hasMessageContaining("is a node of a Redis Cluster").hasMessageContaining("cluster(");
        }
    }
}
