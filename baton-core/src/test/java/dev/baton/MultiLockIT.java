package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.Deployment;
import dev.baton.support.OnEveryTopology;
import dev.baton.support.Topology;
import dev.baton.support.TopologyExtension;
import io.lettuce.core.cluster.SlotHash;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * {@code Baton.multiLock(names...)} against real Redis: all or nothing, no deadlock between overlapping sets asked for
 * in different orders, one script for the locks of one hash slot, the same locks as {@code lock(name)}. The protocol
 * tests run on every topology; on a Cluster the names are spread over slots, with some sharing one.
 */
class MultiLockIT {
    @RegisterExtension
    static final TopologyExtension redis = new TopologyExtension();

    private Deployment deployment;
    private Baton baton;
    private Baton other;
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeEach
    void connect() {
        deployment = redis.deployment();
        baton = patient();
        other = patient();
    }

    @AfterEach
    void close() {
        threads.shutdownNow();
        baton.close();
        other.close();
    }

    @OnEveryTopology
    void holdsEveryLockWhileHeldAndNoneAfter() {
        String[] slotmates = namesInOneSlot("slotmate", 2);
        String[] names = {"orders", "stock", slotmates[0], slotmates[1]};
        DistributedLock multi = baton.multiLock(names);
        assertThat(multi.name()).isEqualTo("orders,stock," + slotmates[0] + "," + slotmates[1]);

        multi.lock();
        assertThat(multi.isHeldByCurrentThread()).isTrue();
        assertThat(multi.isLocked()).isTrue();
        for (String name : names) {
            assertThat(other.lock(name).tryLock()).as("plain lock '%s' from another Baton", name).isFalse();
            assertThat(baton.inspect(name).holder().orElseThrow().batonInstance()).isEqualTo(baton.instanceId());
        }
        LockInfo info = multi.inspect();
        assertThat(info.holder().orElseThrow().fencingToken()).isEqualTo(multi.fencingToken());
        assertThat(info.holder().orElseThrow().holdCount()).isEqualTo(1);

        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(multi.isLocked()).isFalse();
        assertThat(heldLocks()).isEmpty();
        assertThat(multi.inspect().isLocked()).isFalse();
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("not held by the current thread");
    }

    @OnEveryTopology
    void aFailedAttemptLeavesNoLockBehind() throws Exception {
        String[] slotmates = namesInOneSlot("all-or-nothing", 3);
        // "y" comes after "b" and "z" and before "a" and "m" in the canonical order (by hash slot, whatever the
        // topology): an attempt that waits takes some locks before it finds "y" busy, and must give them back.
        String[] names = {"a", "b", "m", "y", "z", slotmates[0], slotmates[1], slotmates[2]};
        Lease blocker = other.lock("y").acquire(Duration.ZERO);
        Lease blocker2 = other.lock(slotmates[1]).acquire(Duration.ZERO);
        DistributedLock multi = baton.multiLock(names);

        assertThat(multi.tryLock()).isFalse();
        assertThat(heldLocks()).containsExactlyInAnyOrder(key("y"), key(slotmates[1]));
        assertThat(multi.tryLock(Duration.ofMillis(300))).isFalse();
        assertThat(heldLocks()).containsExactlyInAnyOrder(key("y"), key(slotmates[1]));
        assertThat(multi.tryAcquire(Duration.ofMillis(300), Duration.ofSeconds(30))).isEmpty();
        assertThat(heldLocks()).containsExactlyInAnyOrder(key("y"), key(slotmates[1]));
        assertThatThrownBy(() -> multi.acquireAsync(Duration.ofMillis(300)).get(30, TimeUnit.SECONDS))
                .hasCauseInstanceOf(LockTimeoutException.class);
        assertThat(heldLocks()).containsExactlyInAnyOrder(key("y"), key(slotmates[1]));

        // Interrupted while waiting: nothing taken stays.
        Future<?> waiter = threads.submit(() -> {
            multi.lockInterruptibly();
            return null;
        });
        await().atMost(Duration.ofSeconds(30)).until(() -> heldLocks().size() > 2); // it took some and waits
        waiter.cancel(true);
        await().atMost(Duration.ofSeconds(30)).until(() -> heldLocks().size() == 2);

        // Cancelled while waiting (async): the same.
        CompletableFuture<Lease> pending = multi.acquireAsync(Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(30)).until(() -> heldLocks().size() > 2);
        pending.cancel(false);
        await().atMost(Duration.ofSeconds(30)).until(() -> heldLocks().size() == 2);
        assertThat(heldLocks()).containsExactlyInAnyOrder(key("y"), key(slotmates[1]));

        // Once the blockers go, a waiter gets them all.
        CompletableFuture<Lease> next = multi.acquireAsync(Duration.ofSeconds(60));
        blocker.release();
        blocker2.release();
        try (Lease lease = next.get(60, TimeUnit.SECONDS)) {
            assertThat(lease.isValid()).isTrue();
            assertThat(heldLocks()).hasSize(names.length);
        }
        assertThat(heldLocks()).isEmpty();
    }

    @OnEveryTopology
    void overlappingSetsInOppositeOrdersNeverDeadlockAndExcludeEachOther() {
        String[] slotmates = namesInOneSlot("overlap", 2);
        String p = "p";
        String q = "q";
        String r = "r";
        String s = slotmates[0];
        String t = slotmates[1];
        List<String[]> sets = List.of(new String[] {p, q}, new String[] {q, p}, new String[] {r, q, p},
                new String[] {p, r}, new String[] {t, s, p}, new String[] {s, t}, new String[] {q, t},
                new String[] {p}, new String[] {t, r, q, p, s});
        Map<String, AtomicInteger> inside = new ConcurrentHashMap<>();
        Map<String, AtomicLong> entries = new ConcurrentHashMap<>();
        for (String name : List.of(p, q, r, s, t)) {
            inside.put(name, new AtomicInteger());
            entries.put(name, new AtomicLong());
        }
        AtomicInteger overlaps = new AtomicInteger();
        AtomicInteger done = new AtomicInteger();
        int workers = 8;
        int rounds = 25;
        List<Future<?>> running = new ArrayList<>();
        for (int w = 0; w < workers; w++) {
            int worker = w;
            Baton mine = w % 2 == 0 ? baton : other;
            running.add(threads.submit(() -> {
                for (int i = 0; i < rounds; i++) {
                    String[] set = sets.get((worker + i) % sets.size());
                    DistributedLock lock = set.length == 1 ? mine.lock(set[0]) : mine.multiLock(set);
                    lock.lock();
                    try {
                        for (String name : set) {
                            if (inside.get(name).incrementAndGet() != 1) {
                                overlaps.incrementAndGet();
                            }
                            entries.get(name).incrementAndGet();
                        }
                        Thread.yield();
                        for (String name : set) {
                            inside.get(name).decrementAndGet();
                        }
                    } finally {
                        lock.unlock();
                    }
                }
                done.incrementAndGet();
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(120)).until(() -> done.get() == workers
                || running.stream().anyMatch(f -> f.isDone() && failed(f)));
        running.forEach(MultiLockIT::rethrow);
        assertThat(overlaps.get()).as("holders of a lock at the same time").isZero();
        assertThat(heldLocks()).isEmpty();
    }

    @OnEveryTopology
    void locksOfOneHashSlotAreTakenInOneScript() throws Exception {
        String[] slotmates = namesInOneSlot("one-script", 3);
        DistributedLock multi = baton.multiLock(slotmates);
        multi.lock(); // loads the script, so that no NOSCRIPT round is counted below
        multi.unlock();

        long before = deployment.scriptsRun();
        assertThat(multi.tryLock()).isTrue();
        assertThat(deployment.scriptsRun() - before).as("scripts to take 3 locks of one slot").isEqualTo(1);
        multi.unlock();

        String[] spread = namesInDistinctSlots("spread", 3);
        DistributedLock spreadLock = baton.multiLock(spread);
        spreadLock.lock();
        spreadLock.unlock();
        before = deployment.scriptsRun();
        assertThat(spreadLock.tryLock(Duration.ZERO, Duration.ofSeconds(30))).isTrue();
        long expected = deployment.topology() == Topology.CLUSTER ? 3 : 1;
        assertThat(deployment.scriptsRun() - before).as("scripts to take 3 locks of 3 slots").isEqualTo(expected);
        spreadLock.unlock();
    }

    @OnEveryTopology
    void reentrantForTheThreadAndSharedWithThePlainLocks() throws Exception {
        DistributedLock multi = baton.multiLock("left", "right");
        DistributedLock left = baton.lock("left");
        left.lock();
        long leftToken = left.fencingToken();

        multi.lock();
        assertThat(left.fencingToken()).as("the thread's hold on 'left' was re-entered").isEqualTo(leftToken);
        assertThat(left.holdCount()).isEqualTo(2);
        assertThat(multi.holdCount()).isEqualTo(1);
        long token = multi.fencingToken();
        assertThat(token).isEqualTo(Math.max(leftToken, baton.lock("right").fencingToken()));
        assertThat(multi.tryLock()).isTrue();
        assertThat(multi.holdCount()).isEqualTo(2);
        assertThat(multi.fencingToken()).isEqualTo(token);
        assertThat(threads.submit(() -> baton.multiLock("right", "left").tryLock()).get())
                .as("another thread of the same Baton").isFalse();

        multi.unlock();
        multi.unlock();
        assertThat(multi.isHeldByCurrentThread()).isFalse();
        assertThat(left.holdCount()).as("the outer plain hold stays").isEqualTo(1);
        assertThat(heldLocks()).containsExactly(key("left"));
        left.unlock();
        assertThat(heldLocks()).isEmpty();

        multi.lock();
        assertThat(multi.fencingToken()).as("a new acquisition of the same set").isGreaterThan(token);
        multi.unlock();
    }

    @OnEveryTopology
    void aLeaseCoversEveryLockAndLearnsWhenOneIsLost() throws Exception {
        String[] slotmates = namesInOneSlot("leased", 2);
        DistributedLock multi = baton.multiLock("first", slotmates[0], slotmates[1], "last");
        Lease lease = multi.acquire(Duration.ofSeconds(5));
        assertThat(lease.lockName()).isEqualTo(multi.name());
        assertThat(lease.isValid()).isTrue();
        long token = lease.fencingToken();
        assertThat(token).isEqualTo(Arrays.stream(new String[] {"first", slotmates[0], slotmates[1], "last"})
                .mapToLong(n -> baton.inspect(n).holder().orElseThrow().fencingToken()).max().orElseThrow());
        assertThat(multi.isHeldByCurrentThread()).as("a lease is not a thread's hold").isFalse();

        // Released from another thread, all at once.
        threads.submit(lease::release).get();
        assertThat(heldLocks()).isEmpty();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class);

        Lease second = multi.acquire(Duration.ofSeconds(5));
        assertThat(second.fencingToken()).isGreaterThan(token);
        assertThat(other.lock(slotmates[1]).forceUnlock()).isTrue();
        second.lost().get(60, TimeUnit.SECONDS); // the next renewal finds it gone
        assertThat(second.isValid()).isFalse();
        assertThatThrownBy(second::release).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("'" + slotmates[1] + "' was lost");
        assertThat(heldLocks()).as("the locks not lost were released").isEmpty();
    }

    @OnEveryTopology
    void aFixedLeaseRunsOutForEveryLockAndUnlockSaysSo() {
        String[] slotmates = namesInOneSlot("fixed", 2);
        DistributedLock multi = baton.multiLock("fixed", slotmates[0], slotmates[1]);
        multi.lock(Duration.ofMillis(300));
        for (String name : List.of("fixed", slotmates[0], slotmates[1])) {
            assertThat(baton.inspect(name).holder().orElseThrow().remainingLease())
                    .isLessThanOrEqualTo(Duration.ofMillis(300));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> !multi.isLocked());
        assertThatThrownBy(multi::unlock).isInstanceOf(IllegalMonitorStateException.class)
                .hasMessageContaining("multi-lock").hasMessageContaining("was lost");
        assertThat(multi.holdCount()).isZero();
        assertThat(multi.tryLock()).isTrue();
        multi.unlock();
    }

    @Test
    void badNamesAreRejectedBeforeAnyRedisCall() {
        long before = commandsProcessed();
        assertThatThrownBy(() -> baton.multiLock()).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names");
        assertThatThrownBy(() -> baton.multiLock((String[]) null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("names");
        assertThatThrownBy(() -> baton.multiLock("a", null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("names[1]");
        assertThatThrownBy(() -> baton.multiLock("a", " ")).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names[1]").hasMessageContaining("blank");
        assertThatThrownBy(() -> baton.multiLock("x".repeat(1025))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names[0]").hasMessageContaining("1024 bytes");
        DistributedLock multi = baton.multiLock("b", "a", "b");
        assertThat(multi.name()).as("duplicates count once").isEqualTo("b,a");
        assertThatThrownBy(() -> multi.lock(Duration.ZERO)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> multi.tryLock(Duration.ofSeconds(-1))).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("wait");
        assertThatThrownBy(() -> multi.tryAcquire(Duration.ZERO, null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("lease");
        assertThatThrownBy(() -> multi.acquireAsync(null)).isInstanceOf(NullPointerException.class)
                .hasMessageContaining("wait");
        // the INFO that reads the counter counts itself once
        assertThat(commandsProcessed()).as("commands sent to Redis").isEqualTo(before + 1);

        assertThat(multi.tryLock()).isTrue();
        assertThat(baton.lock("a").holdCount()).isEqualTo(1);
        assertThat(baton.lock("b").holdCount()).isEqualTo(1);
        multi.unlock();
    }

    // ---- helpers ----

    /**
     * A Baton whose command timeout and lease a loaded machine's slow moments cannot reach: these tests are about what
     * is held when, and a release that timed out would leave its lock until the lease ran out.
     */
    private Baton patient() {
        return Baton.connect(deployment.builder().commandTimeout(Duration.ofSeconds(5))
                .watchdogLease(Duration.ofSeconds(30)).build());
    }

    /** Plain lock keys present in Redis (held locks), over every master. */
    private List<String> heldLocks() {
        return deployment.keys("baton:lock:*").stream().filter(k -> !k.endsWith(":token")).toList();
    }

    private static String key(String name) {
        return "baton:lock:{" + name + "}";
    }

    /** {@code count} lock names whose keys share one Cluster hash slot. */
    static String[] namesInOneSlot(String prefix, int count) {
        List<String> names = new ArrayList<>(List.of(prefix + "-0"));
        int slot = SlotHash.getSlot(key(names.get(0)));
        for (int i = 1; names.size() < count; i++) {
            if (SlotHash.getSlot(key(prefix + "-" + i)) == slot) {
                names.add(prefix + "-" + i);
            }
        }
        return names.toArray(String[]::new);
    }

    /** {@code count} lock names whose keys are in distinct Cluster hash slots. */
    static String[] namesInDistinctSlots(String prefix, int count) {
        List<String> names = new ArrayList<>();
        List<Integer> slots = new ArrayList<>();
        for (int i = 0; names.size() < count; i++) {
            int slot = SlotHash.getSlot(key(prefix + "-" + i));
            if (!slots.contains(slot)) {
                slots.add(slot);
                names.add(prefix + "-" + i);
            }
        }
        return names.toArray(String[]::new);
    }

    private long commandsProcessed() {
        for (String line : deployment.masters().get(0).command("INFO", "stats").split("\r?\n")) {
            if (line.startsWith("total_commands_processed:")) {
                return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
            }
        }
        throw new AssertionError("INFO stats has no total_commands_processed");
    }

    private static boolean failed(Future<?> f) {
        try {
            f.get();
            return false;
        } catch (InterruptedException | ExecutionException e) {
            return true;
        }
    }

    private static void rethrow(Future<?> f) {
        if (!f.isDone()) {
            throw new AssertionError("a worker did not finish (deadlock?)");
        }
        try {
            f.get();
        } catch (InterruptedException | ExecutionException e) {
            throw new AssertionError("a worker failed", e);
        }
    }
}
