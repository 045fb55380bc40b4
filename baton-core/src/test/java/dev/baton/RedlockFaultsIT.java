package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.baton.support.ChildJvm;
import dev.baton.support.FencedResource;
import dev.baton.support.LockWorker;
import dev.baton.test.RedisServer;
import dev.baton.test.RedisServers;
import dev.baton.test.TcpProxy;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A Redlock under the faults it exists for: masters that die, freeze, lose their data or are cut off, and a holder
 * that freezes. Mutual exclusion, the holder being told, and fencing tokens are checked in each.
 */
class RedlockFaultsIT {
    private static final String ADMITTED = "baton:redlock:admitted";

    private final List<AutoCloseable> closeAfter = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (int i = closeAfter.size() - 1; i >= 0; i--) {
            closeAfter.get(i).close();
        }
    }

    private <T extends AutoCloseable> T closeLater(T resource) {
        closeAfter.add(resource);
        return resource;
    }

    private RedisServers masters(int n) {
        return closeLater(RedisServers.start(n));
    }

    private Baton baton(List<String> uris) {
        return closeLater(Baton.connect(RedlockIT.config(uris)));
    }

    @Test
    void mastersFrozenPastTheLeaseTellTheHolderAndFreeTheLockWhenTheyThaw() throws Exception {
        RedisServers masters = masters(5);
        Baton holder = baton(masters.uris());
        Baton other = baton(masters.uris());
        Lease lease = holder.lock("frozen-masters").acquire(Duration.ofSeconds(5));
        long started = System.nanoTime();
        for (int i = 0; i < 3; i++) {
            masters.get(i).pause(); // a majority answers nothing: no renewal can reach a quorum
        }
        lease.lost().get(10, TimeUnit.SECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started))
                .as("told within the lease and a renewal period").isLessThan(RedlockIT.LEASE.toMillis() + 3_000);
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class);
        for (int i = 0; i < 3; i++) {
            masters.get(i).resume();
        }
        try (Lease next = other.lock("frozen-masters").acquire(Duration.ofSeconds(10))) {
            assertThat(next.fencingToken()).isGreaterThan(lease.fencingToken());
        }
    }

    @Test
    void aHolderFrozenPastItsValidityIsToldItLostTheLockAndItsWritesAreRejected() throws Exception {
        RedisServers masters = masters(5);
        RedisServer checker = closeLater(RedisServer.start());
        String target = "redlock:" + String.join(",", masters.uris());
        ChildJvm child = closeLater(ChildJvm.start(LockWorker.class, "hold", target, "frozen-holder", "2000",
                checker.uri()));
        long frozenToken = Long.parseLong(child.awaitLine("TOKEN", 60).substring(6));
        RedisClient client = RedisClient.create(checker.uri());
        closeLater(client::shutdown);
        StatefulRedisConnection<String, String> connection = closeLater(client.connect());
        FencedResource resource = new FencedResource(connection.sync(), "frozen-holder");
        assertThat(resource.write(frozenToken, "child, before the pause")).isTrue();

        child.signal("STOP"); // a GC pause, a VM migration: the holder's watchdog stops with it
        Baton baton = baton(masters.uris());
        Lease mine = baton.lock("frozen-holder").acquire(Duration.ofSeconds(15));
        assertThat(mine.fencingToken()).isGreaterThan(frozenToken);
        assertThat(resource.write(mine.fencingToken(), "parent")).isTrue();

        child.signal("CONT");
        child.send("AWAIT-LOST");
        assertThat(child.awaitLine("LOST", 30)).isEqualTo("LOST valid=false");
        child.send("WRITE");
        assertThat(child.awaitLine("WRITE", 30)).isEqualTo("WRITE REJECTED");
        assertThat(resource.value()).isEqualTo("parent");
        mine.release();
    }

    /**
     * The delayed-restart rule: a master that restarts without its data would grant a lock that a majority of the
     * others no longer has; here it would hand a second owner its majority while the first still holds. It sits out
     * one longest lease instead. (The test fails with the rule switched off: B gets masters 0, 3 and 4.)
     */
    @Test
    void aMasterThatComesBackEmptySitsOutTheLongestLease() throws Exception {
        RedisServers masters = masters(5);
        Duration maxLease = Duration.ofSeconds(6);
        Baton a = closeLater(Baton.connect(RedlockIT.config(masters.uris(), maxLease)));
        Baton b = closeLater(Baton.connect(RedlockIT.config(masters.uris(), maxLease)));
        a.lock("warm-up").lock(); // every master admitted while all are there
        a.lock("warm-up").unlock();
        masters.get(3).pause();
        masters.get(4).pause();
        // On masters 0, 1 and 2, for the longest lease: nobody may take it from a while it lasts.
        Lease held = a.lock("restart").tryAcquire(Duration.ofSeconds(5), maxLease).orElseThrow();
        masters.get(3).resume();
        masters.get(4).resume();

        masters.get(0).restart(); // back without the lock, and without its admission marker
        // b tries until its connection to master 0 is back and a try found the marker missing (and set it).
        await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50)).until(() -> {
            assertThat(b.lock("restart").tryLock()).as("master 0 must not help b to a second majority").isFalse();
            return masters.get(0).command("GET", ADMITTED) != null;
        });
        assertThat(held.isValid()).isTrue();
        long sitOut = Long.parseLong(masters.get(0).command("GET", ADMITTED)) - redisMillis(masters.get(0));
        assertThat(sitOut).isPositive().isLessThanOrEqualTo(maxLease.toMillis());

        try (Lease next = b.lock("restart").acquire(Duration.ofSeconds(15))) {
            assertThat(next.fencingToken()).isGreaterThan(held.fencingToken());
            assertThat(held.isValid()).as("b got it only after a's validity").isFalse();
        }

        // Once its sit-out is over, master 0 counts again: with two others gone it makes the majority.
        masters.get(3).kill();
        masters.get(4).kill();
        await().atMost(Duration.ofSeconds(20)).pollInSameThread().until(() -> {
            try {
                return b.lock("restart").tryLock(Duration.ofMillis(500));
            } catch (BatonUnavailableException e) {
                return false;
            }
        });
        b.lock("restart").unlock();
    }

    /**
     * Three masters: a token is issued by {0, 1}, then master 1, the only one that both {0, 1} and {1, 2} contain,
     * restarts empty and master 0 dies. The next majority, {1, 2}, has no master that saw the first token; it may
     * grant only after master 1 sat out the longest lease, and its token is still higher (docs/redlock.md).
     */
    @Test
    void tokensKeepIncreasingWhenTheMasterTwoMajoritiesShareRestartsEmpty() throws Exception {
        RedisServers masters = masters(3);
        Baton baton = baton(masters.uris());
        baton.lock("shared").lock(); // admits every master
        baton.lock("shared").unlock();
        masters.get(2).pause();
        long first;
        try (Lease lease = baton.lock("shared").acquire(Duration.ofSeconds(5))) {
            first = lease.fencingToken();
        }
        masters.get(2).resume();
        masters.get(1).restart();
        long restarted = System.nanoTime();
        masters.get(0).kill();
        // Until the connection to master 1 is back, only one master answers, and a lock call fails at once.
        await().atMost(Duration.ofSeconds(10)).until(() -> baton.health().isUp());

        try (Lease lease = baton.lock("shared").acquire(Duration.ofSeconds(15))) {
            assertThat(lease.fencingToken()).isGreaterThan(first);
            assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - restarted))
                    .as("master 1 sat out first").isGreaterThanOrEqualTo(RedlockIT.MAX_LEASE.toMillis() - 500);
        }
        // And a Baton that starts now, with nothing learned, proposes above it too.
        Baton fresh = baton(masters.uris());
        try (Lease lease = fresh.lock("shared").acquire(Duration.ofSeconds(5))) {
            assertThat(lease.fencingToken()).isGreaterThan(first);
        }
    }

    /**
     * A partition: the holder still reaches two masters of five, everybody else reaches all. The holder cannot renew
     * on a majority, is told it lost the lock, and its write after that is rejected; the other side takes the lock on
     * the majority once the holder's lease ran out there.
     */
    @Test
    void aHolderThatSeesOnlyAMinorityIsToldAndFencedOff() throws Exception {
        RedisServers masters = masters(5);
        RedisServer checker = closeLater(RedisServer.start());
        List<TcpProxy> links = new ArrayList<>();
        for (RedisServer m : masters.servers()) {
            links.add(closeLater(TcpProxy.to(m)));
        }
        Baton cutOff = baton(links.stream().map(TcpProxy::uri).toList());
        Baton majority = baton(masters.uris());
        RedisClient client = RedisClient.create(checker.uri());
        closeLater(client::shutdown);
        StatefulRedisConnection<String, String> connection = closeLater(client.connect());
        FencedResource resource = new FencedResource(connection.sync(), "partition");

        Lease held = cutOff.lock("partition").acquire(Duration.ofSeconds(5));
        assertThat(resource.write(held.fencingToken(), "cut-off side")).isTrue();
        for (int i = 0; i < 3; i++) {
            links.get(i).cut();
        }
        Lease taken = majority.lock("partition").acquire(Duration.ofSeconds(15));
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        assertThat(resource.write(taken.fencingToken(), "majority side")).isTrue();

        held.lost().get(10, TimeUnit.SECONDS);
        assertThat(held.isValid()).isFalse();
        assertThat(resource.write(held.fencingToken(), "cut-off side, late")).isFalse();
        // The cut-off side hears two masters of five: not "busy" but unavailable, naming how many answered.
        assertThatThrownBy(() -> cutOff.lock("partition").tryLock()).as("the cut-off side cannot get a majority")
                .isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("only 2 of 5 masters answered (3 needed)");

        links.forEach(TcpProxy::heal);
        taken.release();
        assertThat(cutOff.lock("partition").tryLock(Duration.ofSeconds(10))).isTrue();
        cutOff.lock("partition").unlock();
    }

    /**
     * Two of three masters answer only after the lease's validity has passed (their link is cut and healed): the
     * majority's grant comes too late to be of use, so the try is refused rather than returning a lock that may
     * already be someone else's, and every grant is released.
     */
    @Test
    void aGrantThatArrivesAfterItsValidityIsNeverReturned() throws Exception {
        RedisServers masters = masters(3);
        List<TcpProxy> links = new ArrayList<>();
        for (RedisServer m : masters.servers()) {
            links.add(closeLater(TcpProxy.to(m)));
        }
        BatonConfig config = BatonConfig.builder().redlock(links.stream().map(TcpProxy::uri).toArray(String[]::new))
                .commandTimeout(Duration.ofSeconds(5)).redlockMaxLease(Duration.ofMinutes(1)).build();
        Baton baton = closeLater(Baton.connect(config));
        baton.lock("late").lock(); // admitted and calibrated while every link is up
        baton.lock("late").unlock();

        links.get(1).cut();
        links.get(2).cut();
        var attempt = java.util.concurrent.CompletableFuture.supplyAsync(() -> {
            try {
                return baton.lock("late").tryAcquire(Duration.ZERO, Duration.ofMillis(500));
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> masters.get(0).command("EXISTS", "baton:lock:{late}")
                .equals("1")); // master 0 granted at once
        await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(5)).until(() -> !attempt.isDone());
        links.get(1).heal();
        links.get(2).heal();
        assertThat(attempt.get(10, TimeUnit.SECONDS)).as("granted by a majority only after 800 ms of 490").isEmpty();
        for (RedisServer m : masters.servers()) {
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(m.command("EXISTS", "baton:lock:{late}")).isEqualTo("0"));
        }
    }

    /**
     * A re-entry that reaches no majority (three of five masters frozen) is undone on the masters that granted it,
     * once each: the outer hold stays as it was. The frozen masters run the re-entry when they thaw, after its caller
     * was told it failed; the holder's last unlock still ends the hold everywhere, so the lock is free at once.
     */
    @Test
    void aReentryWithoutAMajorityLeavesTheOuterHoldAsItWas() throws Exception {
        RedisServers masters = masters(5);
        BatonConfig config = BatonConfig.builder().redlock(masters.uris().toArray(String[]::new))
                .watchdogLease(Duration.ofSeconds(30)).commandTimeout(Duration.ofMillis(1000)).build();
        Baton a = closeLater(Baton.connect(config));
        Baton b = closeLater(Baton.connect(config));
        DistributedLock lock = a.lock("reentry");
        lock.lock();
        String token = Long.toString(lock.fencingToken());
        for (RedisServer m : masters.servers()) {
            await().atMost(Duration.ofSeconds(5)).until(() -> token.equals(m.command("HGET", "baton:lock:{reentry}",
                    "token")));
        }
        for (int i = 2; i < 5; i++) {
            masters.get(i).pause();
        }
        assertThatThrownBy(lock::tryLock).isInstanceOf(BatonUnavailableException.class)
                .hasMessageContaining("only 2 of 5 masters answered");
        for (int i = 0; i < 2; i++) {
            RedisServer m = masters.get(i);
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThat(m.command("HGET", "baton:lock:{reentry}", "count")).isEqualTo("1"));
        }
        for (int i = 2; i < 5; i++) {
            // Their re-entries run now, after the caller was told they timed out: a count nobody asked for.
            masters.get(i).resume();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> "2".equals(masters.get(4).command("HGET",
                "baton:lock:{reentry}", "count")));
        assertThat(b.lock("reentry").tryLock()).isFalse();
        assertThat(lock.holdCount()).isEqualTo(1);
        lock.unlock(); // the last release ends the hold on every master, whatever count a master shows
        assertThat(lock.isHeldByCurrentThread()).isFalse();
        assertThat(b.lock("reentry").tryLock(Duration.ofSeconds(5))).isTrue();
        b.lock("reentry").unlock();
    }

    /**
     * A majority that does not answer is an outage, not a busy lock, for waiting calls too. The lock is held, so the
     * two masters that still answer say "busy"; master 0 is down (its calls fail at once) and masters 1 and 2 are
     * frozen. Before the fix, a try was decided "busy" as soon as no majority could grant, with two masters still to
     * answer: a waiter slept and tried again until its wait ran out (or, for {@code lock()}, until the masters came
     * back). Now every kind of call is told which masters answered within the command timeout of its next try.
     */
    @Test
    void waitingCallsAreToldWhenFewerThanAMajorityAnswers() throws Exception {
        RedisServers masters = masters(5);
        Baton holder = baton(masters.uris());
        Baton a = baton(masters.uris());
        Baton sleeper = baton(masters.uris());
        holder.lock("outage").lock();
        CompletableFuture<Object> asleep = outcome(() -> sleeper.lock("outage").acquire(Duration.ofSeconds(60)));
        // Asleep on the held lock before the outage: subscribed on every master.
        for (RedisServer m : masters.servers()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> m.command("PUBSUB", "NUMSUB",
                    "baton:lock:{outage}:released").endsWith("\n1"));
        }

        masters.get(0).kill();
        masters.get(1).pause();
        masters.get(2).pause();
        long lost = System.nanoTime();
        CompletableFuture<Object> locking = outcome(() -> {
            a.lock("outage").lock();
            return "locked";
        });
        CompletableFuture<Object> acquiring = outcome(() -> a.lock("outage").acquire(Duration.ofSeconds(60)));
        CompletableFuture<Object> async = a.lock("outage").acquireAsync(Duration.ofSeconds(60))
                .<Object>thenApply(l -> l).exceptionally(e -> e instanceof CompletionException ? e.getCause() : e);
        // And on the sleeper's Baton, whose connections were all up: queued behind its own sleeping waiter.
        CompletableFuture<Object> queued = outcome(() -> {
            sleeper.lock("outage").lock();
            return "locked";
        });
        Map<String, CompletableFuture<Object>> calls = Map.of("lock()", locking, "acquire(60 s)", acquiring,
                "acquireAsync(60 s)", async, "asleep before the outage", asleep, "lock() queued locally", queued);
        for (Map.Entry<String, CompletableFuture<Object>> call : calls.entrySet()) {
            // Well before any of the waits could run out, and while the masters are still frozen.
            assertThat(call.getValue().get(15, TimeUnit.SECONDS)).as(call.getKey())
                    .isInstanceOfSatisfying(BatonUnavailableException.class, e -> assertThat(e).as(call.getKey())
                            .hasMessageContaining("only 2 of 5 masters answered (3 needed)"));
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - lost)).as("not the waits of 60 s")
                .isLessThan(15_000);
    }

    /**
     * Tries sent to frozen masters run when they thaw, after their callers were told the call failed. Before the
     * fix, those late grants held the lock for their whole lease with nobody to release it (the first acquisition
     * after the masters came back took 1.5 s in the issue, here it would take the 8 s lease). Now each is undone
     * on its master right behind the try, so every master is free within the command timeout and a second of the
     * masters thawing.
     */
    @Test
    void triesThatAMajorityFrozePastTheTimeoutLeaveNothingBehind() throws Exception {
        RedisServers masters = masters(5);
        Baton a = closeLater(Baton.connect(RedlockIT.config(masters.uris(), Duration.ofSeconds(10))));
        Baton b = closeLater(Baton.connect(RedlockIT.config(masters.uris(), Duration.ofSeconds(10))));
        a.lock("orphan").lock(); // admitted and calibrated while every master is up
        a.lock("orphan").unlock();
        for (int i = 0; i < 3; i++) {
            masters.get(i).pause();
        }
        assertThatThrownBy(() -> a.lock("orphan").tryAcquire(Duration.ofSeconds(60), Duration.ofSeconds(8)))
                .isInstanceOf(BatonUnavailableException.class).hasMessageContaining("only 2 of 5 masters answered");
        assertThatThrownBy(() -> a.lock("orphan").tryLock(Duration.ofSeconds(60)))
                .isInstanceOf(BatonUnavailableException.class).hasMessageContaining("only 2 of 5 masters answered");
        for (int i = 0; i < 3; i++) {
            masters.get(i).resume();
        }
        assertEveryMasterFreeWithinTheBound(masters, "orphan");
        assertThat(b.lock("orphan").tryLock()).as("the first try after the masters are back").isTrue();
        b.lock("orphan").unlock();
    }

    /**
     * Two masters of five frozen past the command timeout while the others grant: the holder gets the lock and
     * releases it, and a rival's single try is told the lock is busy. The frozen masters run all of that when they
     * thaw, the rival's try possibly first (it is on another connection): its grant is undone behind it, and every
     * master is free within the command timeout and a second.
     */
    @Test
    void aMinorityFrozenPastTheTimeoutIsFreeAgainWhenItThaws() throws Exception {
        RedisServers masters = masters(5);
        Baton holder = closeLater(Baton.connect(RedlockIT.config(masters.uris(), Duration.ofSeconds(10))));
        Baton rival = closeLater(Baton.connect(RedlockIT.config(masters.uris(), Duration.ofSeconds(10))));
        for (Baton baton : List.of(holder, rival)) {
            baton.lock("minority").lock(); // admitted and calibrated while every master is up
            baton.lock("minority").unlock();
        }
        masters.get(3).pause();
        masters.get(4).pause();
        Lease lease = holder.lock("minority").tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(8)).orElseThrow();
        assertThat(rival.lock("minority").tryAcquire(Duration.ZERO, Duration.ofSeconds(8))).isEmpty();
        lease.release();
        // inspect waits for every master: once it returns, the frozen masters' calls above have timed out.
        assertThat(holder.inspect("minority").holder()).isEmpty();
        masters.get(3).resume();
        masters.get(4).resume();
        assertEveryMasterFreeWithinTheBound(masters, "minority");
    }

    /**
     * A connection lost after a try was sent: the try reached a frozen master, the link then went down, so its reply
     * can never come. The master runs the try when it thaws and grants the lock, which the caller was told was busy.
     * The undo, refused while the link is down, is sent again until the master takes it: the lock is free within the
     * command timeout and a second of the master answering again. (b reaches master 2 through a link of its own, cut
     * and dropped with b's calls on it, so that master 2 is free when a's try runs there.)
     */
    @Test
    void aTryWhoseConnectionWasLostAfterItWasSentIsUndoneOnceTheMasterIsBack() throws Exception {
        RedisServers masters = masters(3);
        TcpProxy linkA = closeLater(TcpProxy.to(masters.get(2)));
        TcpProxy linkB = closeLater(TcpProxy.to(masters.get(2)));
        Baton a = closeLater(Baton.connect(RedlockIT.config(List.of(masters.get(0).uri(), masters.get(1).uri(),
                linkA.uri()), Duration.ofSeconds(10))));
        Baton b = closeLater(Baton.connect(RedlockIT.config(List.of(masters.get(0).uri(), masters.get(1).uri(),
                linkB.uri()), Duration.ofSeconds(10))));
        Baton observer = baton(masters.uris());
        for (Baton baton : List.of(a, b)) {
            baton.lock("cut").lock(); // admitted and calibrated while every master is up
            baton.lock("cut").unlock();
        }
        awaitFreeOnEveryMaster(masters, "cut"); // the warm-up's releases are through, not held up by the cut below
        linkB.cut();
        masters.get(2).pause();
        Lease held = b.lock("cut").tryAcquire(Duration.ofSeconds(10), Duration.ofSeconds(8)).orElseThrow();
        assertThat(a.lock("cut").tryAcquire(Duration.ZERO, Duration.ofSeconds(8))).as("busy on masters 0 and 1")
                .isEmpty();
        held.release();
        linkB.dropConnections(); // b's calls to master 2 never arrive
        linkA.dropConnections(); // a's try is in master 2's socket; its reply has nowhere to go
        // inspect waits for every master: once it returns, a's try to master 2 has timed out too.
        assertThat(observer.inspect("cut").holder()).isEmpty();
        masters.get(2).resume();
        linkB.heal();
        assertEveryMasterFreeWithinTheBound(masters, "cut");
    }

    /**
     * What losing a minority costs a holder whose hold lives on a bare majority (as under contention): the hold is on
     * masters 0, 1 and 2 only (its try never reached 3 and 4), and master 0 dies. No second owner gets in, but the
     * holder can no longer renew on a majority: it is told it lost the lock when its validity runs out, as
     * docs/redlock.md says ("What losing a minority costs a holder").
     */
    @Test
    void aHoldOnABareMajorityIsLostWithOneOfItsMasters() throws Exception {
        RedisServers masters = masters(5);
        TcpProxy link3 = closeLater(TcpProxy.to(masters.get(3)));
        TcpProxy link4 = closeLater(TcpProxy.to(masters.get(4)));
        List<String> uris = List.of(masters.get(0).uri(), masters.get(1).uri(), masters.get(2).uri(), link3.uri(),
                link4.uri());
        Baton holder = baton(uris);
        Baton rival = baton(masters.uris());
        holder.lock("bare").lock(); // admitted and calibrated while every master is up
        holder.lock("bare").unlock();
        // An unlock returns once a majority released: the release to a master that answers last may still be on its
        // way, and the cut and drop below would discard it, leaving the warm-up's hold there until its lease ends.
        awaitFreeOnEveryMaster(masters, "bare");
        link3.cut();
        link4.cut();
        Lease lease = holder.lock("bare").acquire(Duration.ofSeconds(10));
        // inspect waits for every master: once it returns, the try to masters 3 and 4 has timed out, so it is not
        // sent again after the reconnect; dropping the links discards it, so it never arrives.
        holder.inspect("bare");
        link3.dropConnections();
        link4.dropConnections();
        link3.heal();
        link4.heal();
        for (int i = 0; i < 5; i++) {
            assertThat(masters.get(i).command("EXISTS", "baton:lock:{bare}")).as("master " + i)
                    .isEqualTo(i < 3 ? "1" : "0");
        }
        masters.get(0).kill();
        assertThat(rival.lock("bare").tryLock()).as("no second owner").isFalse();
        lease.lost().get(RedlockIT.LEASE.toMillis() + 10_000, TimeUnit.MILLISECONDS);
        assertThat(lease.isValid()).isFalse();
        assertThatThrownBy(lease::release).isInstanceOf(IllegalMonitorStateException.class);
    }

    private static void awaitFreeOnEveryMaster(RedisServers masters, String name) {
        for (RedisServer m : masters.servers()) {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
                    assertThat(m.command("EXISTS", "baton:lock:{" + name + "}")).as(m.toString()).isEqualTo("0"));
        }
    }

    /** The bound: free on every master within the command timeout and a second of Redis answering again. */
    private static void assertEveryMasterFreeWithinTheBound(RedisServers masters, String name) {
        long thawed = System.nanoTime();
        for (RedisServer m : masters.servers()) {
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).untilAsserted(() ->
                    assertThat(m.command("EXISTS", "baton:lock:{" + name + "}")).as(m.toString()).isEqualTo("0"));
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - thawed)).as("free after thawing")
                .isLessThan(RedlockIT.config(masters.uris()).commandTimeout().toMillis() + 1_000);
    }

    /** A blocking call run on a thread of its own: its result, or the exception it threw. */
    private static CompletableFuture<Object> outcome(Callable<Object> call) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return call.call();
            } catch (Exception e) {
                return e;
            }
        });
    }

    private static long redisMillis(RedisServer server) {
        String[] time = server.command("TIME").split("\n");
        return Long.parseLong(time[0].trim()) * 1000 + Long.parseLong(time[1].trim()) / 1000;
    }
}
