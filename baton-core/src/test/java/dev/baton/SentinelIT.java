package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.AcquisitionStream;
import dev.baton.support.FencedResource;
import dev.baton.support.Measure;
import dev.baton.support.TestBatons;
import dev.baton.test.RedisSentinelGroup;
import dev.baton.test.RedisServer;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Baton behind Sentinel: it finds the master through the sentinels ({@code redis-sentinel://...#master}), and the same
 * {@code Baton} follows a failover to the promoted replica: acquisitions go on (or fail as unavailable while there is
 * no master), waiters are still woken, holds are still renewed, a hold whose write the promoted replica never got is
 * reported lost, and fencing tokens keep increasing, so a resource that checks them stays safe throughout.
 */
class SentinelIT {
    /** Generous for a loaded machine: a failover here takes a few seconds, but may take many more under load. */
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);
    private static final Logger log = LoggerFactory.getLogger(SentinelIT.class);
    private static RedisSentinelGroup group;

    /** The application's own database, apart from the Redis that Baton uses: what the fencing tokens protect. */
    private RedisServer database;
    private RedisClient databaseClient;
    private StatefulRedisConnection<String, String> databaseConnection;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startGroup() {
        group = RedisSentinelGroup.start();
    }

    @AfterAll
    static void stopGroup() {
        group.close();
    }

    @BeforeEach
    void startDatabase() {
        group.awaitMaster(SETTLE).command("FLUSHALL");
        database = RedisServer.start();
        databaseClient = RedisClient.create(database.uri());
        databaseConnection = databaseClient.connect();
    }

    @AfterEach
    void stopDatabase() {
        threads.shutdownNow();
        databaseConnection.close();
        databaseClient.shutdown();
        database.close();
    }

    private static Baton connect() {
        return connect(Duration.ofSeconds(6), TestBatons.RECHECK);
    }

    private static Baton connect(Duration lease, Duration recheck) {
        return Baton.connect(BatonConfig.builder().uri(group.sentinelUri()).commandTimeout(COMMAND_TIMEOUT)
                .watchdogLease(lease).recheckInterval(recheck).build());
    }

    /** A Baton whose waiters never claim precedence, so that they send nothing between their re-checks. */
    private static Baton connectWithoutPrecedence(Duration lease, Duration recheck) {
        return Baton.connect(BatonConfig.builder().uri(group.sentinelUri()).commandTimeout(COMMAND_TIMEOUT)
                .watchdogLease(lease).recheckInterval(recheck).fairnessThreshold(Duration.ZERO).build());
    }

    private FencedResource resource(String name) {
        return new FencedResource(databaseConnection.sync(), name);
    }

    /** Waits until the Baton's command connection writes to the current master again (after a failover). */
    private static void awaitReconnected(Baton baton) {
        await().atMost(SETTLE).ignoreExceptions().until(() -> {
            DistributedLock probe = baton.lock("probe-" + baton.instanceId());
            if (!probe.tryLock()) {
                return false;
            }
            probe.unlock();
            return true;
        });
    }

    @Test
    void replicaAcknowledgedLocksAreOnBothReplicasAndFollowAFailover() {
        try (Baton baton = Baton.connect(BatonConfig.builder().uri(group.sentinelUri())
                .commandTimeout(Duration.ofSeconds(2)).watchdogLease(Duration.ofSeconds(6))
                .recheckInterval(TestBatons.RECHECK).replicaAcknowledged(2, Duration.ofSeconds(5)).build())) {
            assertAcknowledgedByEveryReplica(baton, "acked-before");

            group.failover();

            // The dedicated connections of the WAITs reach the new master too, once the sentinels name it.
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .untilAsserted(() -> assertAcknowledgedByEveryReplica(baton, "acked-after"));
        }
    }

    private static void assertAcknowledgedByEveryReplica(Baton baton, String name) {
        DistributedLock lock = baton.lock(name);
        lock.lock();
        try {
            String token = Long.toString(lock.fencingToken());
            for (RedisServer replica : group.replicas()) {
                assertThat(replica.command("HGET", "baton:lock:{" + name + "}", "token")).as("on " + replica)
                        .isEqualTo(token);
            }
        } finally {
            lock.unlock();
        }
    }

    @Test
    void findsTheMasterThroughTheSentinelsAndFollowsAFailover() {
        try (Baton baton = connect()) {
            RedisServer master = group.master();
            DistributedLock lock = baton.lock("sentinel");
            lock.lock();
            long before = lock.fencingToken();
            lock.unlock();
            assertThat(master.command("EXISTS", "baton:lock:{sentinel}:token")).as("written to the master")
                    .isEqualTo("1");
            RateLimiter limiter = baton.rateLimiter("sentinel", RateLimit.of(100, Duration.ofHours(1)));
            assertThat(limiter.tryAcquire().allowed()).isTrue();

            RedisServer promoted = group.failover();
            assertThat(promoted.port()).isNotEqualTo(master.port());

            // The same Baton reaches the new master once it has reconnected; nothing else is needed.
            AtomicLong after = new AtomicLong();
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
                DistributedLock again = baton.lock("sentinel");
                if (!again.tryLock()) {
                    return false;
                }
                after.set(again.fencingToken());
                again.unlock();
                return true;
            });
            assertThat(after.get()).as("tokens keep increasing across the failover").isGreaterThan(before);
            assertThat(promoted.command("EXISTS", "baton:lock:{sentinel}:token")).isEqualTo("1");
            await().atMost(Duration.ofSeconds(30)).ignoreExceptions()
                    .until(() -> limiter.tryAcquire().allowed());
        }
    }

    @Test
    void acquisitionsDuringAFailoverGoOnOrFailAsUnavailableAndTheSameBatonGoesOnOnTheNewMaster() throws Exception {
        try (Baton baton = connect()) {
            AcquisitionStream stream = AcquisitionStream.start(baton.lock("stream"), resource("stream"));
            try {
                await().atMost(SETTLE).until(() -> stream.grants().size() >= 20);
                RedisServer promoted = group.failover();
                long failedOver = System.nanoTime();
                await().atMost(SETTLE).until(() -> stream.grantedSince(failedOver) >= 20);
                assertThat(promoted.command("EXISTS", "baton:lock:{stream}:token")).isEqualTo("1");
            } finally {
                stream.close();
            }
            log.info("acquisitions across a Sentinel failover: {}", stream);
            assertThat(stream.unexpected()).as("%s", stream).isEmpty();
            assertThat(stream.refused()).as("nobody else takes the lock: %s", stream).isZero();
            assertThat(stream.tokens()).as("fencing tokens, in acquisition order").isSorted()
                    .doesNotHaveDuplicates();
            assertThat(stream.rejectedWrites()).as("writes the resource refused").isZero();
            // Each call ends within its bound (twice the command timeout), with a margin for a loaded machine.
            assertThat(stream.slowestCall()).as("%s", stream).isLessThan(COMMAND_TIMEOUT.multipliedBy(2)
                    .plusSeconds(2));
        }
    }

    @Test
    void aWaiterIsWokenOnTheNewMasterAndAHoldIsStillRenewedThere() throws Exception {
        // The waiter re-checks only every minute, and the lock it waits for has a minute of lease: it sends
        // nothing while the failover runs, and only the release message can wake it in time. (Precedence is off for
        // it: past the fairness threshold a waiter renews its claim every second, and a try that reaches the demoted
        // master fails the wait.)
        Duration minute = Duration.ofMinutes(1);
        // Writes that reach the old master after the promotion, until the client follows it (about 3 s here), are
        // lost, renewals included: a hold survives if a third of its lease outlasts that window (docs/topologies.md).
        Duration lease = Duration.ofSeconds(15);
        try (Baton holder = connect(minute, minute); Baton waiting = connectWithoutPrecedence(minute, minute);
             Baton renewed = connect(lease, TestBatons.RECHECK)) {
            DistributedLock held = holder.lock("held");
            held.lock();
            long heldToken = held.fencingToken();
            long scripts = Measure.scriptsRun(group.master());
            Future<Long> waiter = threads.submit(() -> {
                DistributedLock lock = waiting.lock("held");
                if (!lock.tryLock(Duration.ofMinutes(2))) {
                    return -1L;
                }
                long token = lock.fencingToken();
                lock.unlock();
                return token;
            });
            // Subscribed, and both of its tries (before and after subscribing) have run: it sleeps now.
            await().atMost(SETTLE).until(() -> subscribers("baton:lock:{held}:released") == 1
                    && Measure.scriptsRun(group.master()) - scripts >= 2);
            DistributedLock watched = renewed.lock("renewed");
            watched.lock();

            RedisServer promoted = group.failover();

            // Renewals land on the new master: the lock's remaining lease there goes up again, and it is never found
            // gone meanwhile.
            long[] lastPttl = {Long.MAX_VALUE};
            await().atMost(lease.plus(SETTLE)).until(() -> {
                long pttl = Long.parseLong(promoted.command("PTTL", "baton:lock:{renewed}"));
                assertThat(pttl).as("the renewed lock's PTTL on the new master").isPositive();
                boolean wentUp = pttl > lastPttl[0];
                lastPttl[0] = pttl;
                return wentUp;
            });
            assertThat(watched.isHeldByCurrentThread()).isTrue();
            watched.unlock();
            assertThat(promoted.command("EXISTS", "baton:lock:{renewed}")).isEqualTo("0");

            awaitReconnected(holder);
            long released = System.nanoTime();
            held.unlock();
            assertThat(waiter.get(SETTLE.toSeconds(), TimeUnit.SECONDS)).as("the waiter's token")
                    .isGreaterThan(heldToken);
            assertThat(Measure.millisSince(released)).as("woken by the release message, not its minute re-check")
                    .isLessThan(minute.toMillis() / 2);
        }
    }

    @Test
    void aWaiterAcrossAFailoverAcquiresOnceTheHoldersLeaseRunsOutOnTheNewMaster() throws Exception {
        Duration lease = Duration.ofSeconds(6);
        Baton holder = connect(lease, TestBatons.RECHECK);
        try (Baton waiting = connect()) {
            DistributedLock held = holder.lock("expiring");
            held.lock();
            long heldToken = held.fencingToken();
            // An application's waiter: a failover may cut one of its tries short; it is then told that Redis is
            // unavailable (lock-protocol.md, failure model), and waits again.
            AtomicLong unavailable = new AtomicLong();
            Future<Long> waiter = threads.submit(() -> {
                DistributedLock lock = waiting.lock("expiring");
                while (true) {
                    try {
                        if (lock.tryLock(Duration.ofMinutes(2))) {
                            long token = lock.fencingToken();
                            lock.unlock();
                            return token;
                        }
                        return -1L;
                    } catch (BatonUnavailableException e) {
                        unavailable.incrementAndGet();
                    }
                }
            });
            await().atMost(SETTLE).until(() -> subscribers("baton:lock:{expiring}:released") == 1);

            RedisServer promoted = group.failover();
            awaitReconnected(holder);

            // The holder dies: nothing renews its lock, which runs out within one lease. (Or it ran out already, if
            // renewals were lost with the old master: see the lease in the test above.)
            holder.close();
            long died = System.nanoTime();
            assertThat(waiter.get(SETTLE.toSeconds(), TimeUnit.SECONDS)).as("the waiter's token (%d unavailable "
                    + "tries)", unavailable.get()).isGreaterThan(heldToken);
            assertThat(Measure.millisSince(died)).as("at most one lease and a re-check after the holder died")
                    .isLessThan(lease.plus(TestBatons.RECHECK).plusSeconds(5).toMillis());
            assertThat(promoted.command("EXISTS", "baton:lock:{expiring}")).isEqualTo("0");
        } finally {
            holder.close();
        }
    }

    @Test
    void aHoldWhoseWriteTheNewMasterNeverGotIsReportedLostAndItsTokenIsFencedOff() throws Exception {
        try (Baton stale = connect(); Baton next = connect()) {
            RedisServer old = group.awaitMaster(SETTLE);
            // The replicas stop and the master drops their links: the acquisition below reaches the master only.
            // (Replication is asynchronous, so a master that dies just after a write can take it with it; this makes
            // that happen every time.)
            for (RedisServer replica : group.replicas()) {
                replica.pause();
            }
            Lease lease;
            try {
                old.command("CLIENT", "KILL", "TYPE", "replica");
                lease = stale.lock("unreplicated").acquire(Duration.ZERO);
                assertThat(resource("unreplicated").write(lease.fencingToken(), "stale")).isTrue();
                old.kill();
            } finally {
                for (RedisServer replica : group.dataNodes()) {
                    if (replica.isPaused()) {
                        replica.resume();
                    }
                }
            }
            RedisServer promoted = group.awaitMaster(SETTLE);
            assertThat(promoted.command("EXISTS", "baton:lock:{unreplicated}")).as("the write was lost")
                    .isEqualTo("0");

            // The stale holder's next renewal finds the lock gone: its holder is told.
            lease.lost().get(SETTLE.toSeconds(), TimeUnit.SECONDS);
            assertThat(lease.isValid()).isFalse();
            assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class)
                    .hasMessageContaining("lost");

            // Someone else gets the lock on the new master, with a larger token (from the server clock, as the
            // counter was lost too), so the resource refuses the stale holder's late write.
            Lease mine = await().atMost(SETTLE).ignoreExceptions()
                    .until(() -> next.lock("unreplicated").acquire(Duration.ZERO), l -> true);
            assertThat(mine.fencingToken()).isGreaterThan(lease.fencingToken());
            FencedResource resource = resource("unreplicated");
            assertThat(resource.write(mine.fencingToken(), "next")).isTrue();
            assertThat(resource.write(lease.fencingToken(), "stale, late")).isFalse();
            assertThat(resource.value()).isEqualTo("next");
            mine.release();
        } finally {
            restartAsReplica();
        }
    }

    /** Brings a killed data node back as a replica of the current master, so that later tests have a full group. */
    private static void restartAsReplica() {
        RedisServer master = group.awaitMaster(SETTLE);
        for (RedisServer node : group.dataNodes()) {
            if (!node.isRunning()) {
                node.restart();
                node.command("REPLICAOF", master.host(), Integer.toString(master.port()));
            }
        }
        await().atMost(SETTLE).until(() -> group.dataNodes().stream().filter(n -> !n.equals(master))
                .allMatch(n -> n.command("INFO", "replication").contains("master_link_status:up")));
    }

    /** Subscribers of a channel over all data nodes (Baton's pub/sub connection may be on any of them). */
    private static long subscribers(String channel) {
        return group.dataNodes().stream().filter(n -> n.isRunning() && !n.isPaused())
                .mapToLong(n -> Measure.subscribers(n, channel)).sum();
    }
}
