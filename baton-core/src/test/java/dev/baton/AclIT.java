package dev.baton;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.baton.RateLimit.Algorithm;
import dev.baton.support.Measure;
import dev.baton.test.RedisServer;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Baton logged in as a Redis ACL user with exactly the rule of docs/acl.md: every feature works and nothing is
 * refused, each command of the rule is needed, and a user that lacks a permission gets a {@link BatonException}
 * that says so, points to docs/acl.md and shows no password.
 *
 * <p>The server's default user has a password that only the test kit knows, so a connection of Baton's that did not
 * log in as its ACL user could not quietly run as the all-powerful default user: it would be refused.
 *
 * <p>Runs on PATH's redis-server and, in the embedded-redis execution, on Redis 6.2.
 */
class AclIT {
    /** The rule of docs/acl.md after {@code <user> on >password}: keys, channels, commands. */
    static final String RULE = "~baton:* resetchannels &baton:* -@all +evalsha +eval +exists +subscribe"
            + " +unsubscribe +time +hmget +hset +hincrby +get +set +del +pttl +pexpire +publish +zadd +zrange"
            + " +zrangebyscore +zrem +zremrangebyscore +hdel";

    private static final String ADMIN_PASSWORD = "kit-admin-pw";
    /** Every 4 characters of it hold a letter that is no hex digit, so a piece of it cannot hide in a script SHA. */
    private static final String PASSWORD = "Xq9v-Tz4k-Wm2j";
    private static final Duration HOUR = Duration.ofHours(1);
    private static final long HOUR_MICROS = HOUR.toNanos() / 1000;
    /** Longer than any wait in these tests: a waiter that gets the lock in time was woken by a notification. */
    private static final Duration LONG = Duration.ofMinutes(2);
    /**
     * Generous, as nothing here is about timeouts: on a loaded machine a JVM's first connection alone can take
     * seconds. The watchdog lease is kept above it, as in production (30 s against 3 s by default).
     */
    private static final Duration TIMEOUT = Duration.ofSeconds(5);
    private static final Duration WATCHDOG_LEASE = Duration.ofSeconds(6);
    private static final Duration PATIENCE = Duration.ofSeconds(30);

    private static RedisServer redis;

    private final List<Baton> batons = new ArrayList<>();
    private final ExecutorService threads = Executors.newCachedThreadPool();

    @BeforeAll
    static void startRedis() {
        // The user comes from a --user option, which is the users.acl / redis.conf form of the rule.
        List<String> args = new ArrayList<>(List.of("--requirepass", ADMIN_PASSWORD,
                "--user", "baton", "on", ">" + PASSWORD));
        args.addAll(List.of(RULE.split(" ")));
        redis = RedisServer.start(args);
    }

    @AfterAll
    static void stopRedis() {
        if (redis != null) {
            redis.close();
        }
    }

    @BeforeEach
    void cleanSlate() {
        redis.command("FLUSHALL");
        redis.command("SCRIPT", "FLUSH");
        redis.command("ACL", "LOG", "RESET");
    }

    @AfterEach
    void closeBatons() {
        threads.shutdownNow();
        batons.forEach(Baton::close);
    }

    @Test
    void theRuleTestedHereIsTheOneDocsAclMdGives() throws IOException {
        String doc = Files.readString(Path.of("..", "docs", "acl.md"));
        assertThat(doc).contains("ACL SETUSER baton reset on >CHANGE-ME " + RULE + "\n")
                .contains("user baton on >CHANGE-ME " + RULE + "\n");
    }

    @Test
    void theRuleGrantsNoOtherKeyOrChannel() {
        createUser("from-setuser", RULE);
        for (String user : List.of("baton", "from-setuser")) {
            // Without resetchannels, Redis 6.2 would add every channel ("*") here, even after "reset".
            assertThat(patterns(user, "keys")).as("%s keys", user).containsExactly("baton:*");
            assertThat(patterns(user, "channels")).as("%s channels", user).containsExactly("baton:*");
        }
    }

    @Test
    void threadOwnedLocksReentryAndInspection() {
        Baton baton = connect("baton");
        DistributedLock lock = baton.lock("orders:42");

        assertThat(lock.tryLock()).isTrue();
        long token = lock.fencingToken();
        lock.lock();
        assertThat(lock.holdCount()).isEqualTo(2);
        assertThat(lock.isLocked()).isTrue();
        assertThat(baton.inspect("orders:42").holder()).hasValueSatisfying(h -> {
            assertThat(h.batonInstance()).isEqualTo(baton.instanceId());
            assertThat(h.holdCount()).isEqualTo(2);
            assertThat(h.fencingToken()).isEqualTo(token);
        });
        lock.unlock();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();

        assertThat(lock.isLocked()).isFalse();
        assertThat(baton.inspect("orders:42").lastFencingToken()).isEqualTo(token);
        assertNoSecretIn(baton.toString());
        assertNoSecretIn(baton.config().toString());
        assertNothingRefused();
    }

    @Test
    void aWaiterIsWokenByTheReleaseNotificationAndUnsubscribesAfterwards() throws Exception {
        Baton holder = connect("baton");
        Baton waiter = connect("baton");
        DistributedLock held = holder.lock("report");
        held.lock(LONG); // no watchdog, a lease longer than the wait: only the notification can let the waiter in
        Future<Boolean> acquired = threads.submit(() -> {
            DistributedLock lock = waiter.lock("report");
            if (!lock.tryLock(Duration.ofSeconds(30))) {
                return false;
            }
            lock.unlock();
            return true;
        });
        String channel = "baton:lock:{report}:released";
        awaitAsleep("report");
        assertThat(redis.command("CLIENT", "LIST").lines())
                .as("the pub/sub connection logged in as the URI's user too")
                .anyMatch(l -> l.contains(" sub=1 ") && l.contains(" user=baton "));

        held.unlock();

        assertThat(acquired.get(60, TimeUnit.SECONDS)).as("woken long before any recheck").isTrue();
        // The subscription lingers about a second after its last waiter left, then UNSUBSCRIBE drops it.
        await().atMost(PATIENCE).until(() -> Measure.subscribers(redis, channel) == 0);
        assertNothingRefused();
    }

    @Test
    void aThreadHandsTheLockToAWaitingThreadOfTheSameBaton() throws Exception {
        Baton baton = connect("baton");
        // A handoff is one script that gives the lock a new owner: unlike a release, it never deletes the lock. Only
        // a waiter that is asleep can take it, and that moment cannot be observed from outside, so a round in which
        // the unlock came too early (a plain release) is tried again on another name.
        boolean handedOver = false;
        for (int round = 0; round < 5 && !handedOver; round++) {
            String name = "batch-" + round;
            DistributedLock lock = baton.lock(name);
            lock.lock();
            long token = lock.fencingToken();
            CompletableFuture<Long> taken = new CompletableFuture<>();
            CountDownLatch done = new CountDownLatch(1);
            Future<?> next = threads.submit(() -> {
                DistributedLock mine = baton.lock(name);
                mine.lock();
                taken.complete(mine.fencingToken());
                done.await();
                mine.unlock();
                return null;
            });
            await().atMost(PATIENCE)
                    .until(() -> Measure.subscribers(redis, "baton:lock:{" + name + "}:released") == 1);
            long deletes = commandCalls("del");

            lock.unlock();

            assertThat(taken.get(60, TimeUnit.SECONDS)).isGreaterThan(token);
            handedOver = commandCalls("del") == deletes;
            done.countDown();
            next.get(30, TimeUnit.SECONDS);
        }
        assertThat(handedOver).as("one of 5 rounds handed the lock over").isTrue();
        assertNothingRefused();
    }

    @Test
    void theWatchdogKeepsRenewingALease() throws Exception {
        Baton baton = connect("baton");
        Lease lease = baton.lock("long-job").acquire(Duration.ofSeconds(10));
        // A renewal every third of the lease shows as the remaining lease going up again; two show it repeats.
        AtomicLong lastPttl = new AtomicLong(Long.MAX_VALUE);
        AtomicInteger renewals = new AtomicInteger();
        await().atMost(PATIENCE).pollInterval(Duration.ofMillis(50)).until(() -> {
            long pttl = Long.parseLong(redis.command("PTTL", "baton:lock:{long-job}"));
            if (pttl > lastPttl.getAndSet(pttl)) {
                renewals.incrementAndGet();
            }
            return renewals.get() >= 2;
        });

        assertThat(lease.isValid()).isTrue();
        assertThat(lease.lost()).isNotDone();
        assertThat(baton.inspect("long-job").holder()).hasValueSatisfying(h -> {
            assertThat(h.leaseOwned()).isTrue();
            assertThat(h.fencingToken()).isEqualTo(lease.fencingToken());
        });
        lease.release();
        assertThat(baton.lock("long-job").isLocked()).isFalse();
        assertNothingRefused();
    }

    @Test
    void leasesAndForceUnlock() throws Exception {
        Baton owner = connect("baton");
        Baton operator = connect("baton");
        DistributedLock lock = owner.lock("nightly");

        Lease fixed = lock.tryAcquire(Duration.ZERO, Duration.ofSeconds(30)).orElseThrow();
        assertThat(operator.lock("nightly").tryAcquire(Duration.ZERO, Duration.ofSeconds(30))).isEmpty();
        fixed.release();
        Lease watched = lock.acquireAsync(Duration.ofSeconds(5)).get(30, TimeUnit.SECONDS);
        assertThat(watched.fencingToken()).isGreaterThan(fixed.fencingToken());

        assertThat(operator.lock("nightly").forceUnlock()).isTrue();

        watched.lost().get(30, TimeUnit.SECONDS); // the watchdog's next renewal finds the lock gone
        assertThat(watched.isValid()).isFalse();
        assertThat(lock.isLocked()).isFalse();
        assertThat(operator.lock("nightly").forceUnlock()).isFalse();
        assertNothingRefused();
    }

    @Test
    void semaphoresUnderTheRule() throws Exception {
        Baton baton = connect("baton");
        Baton other = connect("baton");
        DistributedSemaphore semaphore = baton.semaphore("pool", 2);
        Lease two = semaphore.acquire(2, Duration.ZERO);
        CompletableFuture<Lease> waiting = other.semaphore("pool", 2).acquireAsync(1, Duration.ofSeconds(30));
        await().atMost(PATIENCE).until(() -> semaphore.inspect().waiting() == 1);
        assertThat(semaphore.availablePermits()).isZero();
        two.release(); // wakes the waiter by name
        Lease one = waiting.get(30, TimeUnit.SECONDS);
        semaphore.setPermits(3);
        assertThat(semaphore.inspect().holders()).singleElement()
                .satisfies(h -> assertThat(h.fencingToken()).isEqualTo(one.fencingToken()));
        assertThat(semaphore.tryAcquire(3, Duration.ofMillis(100), Duration.ofSeconds(30))).isEmpty();
        one.release();
        // The tryAcquire above may have had a try in flight at its deadline that Redis granted after all: such a grant
        // is released within a round trip (docs/lock-protocol.md, "Acquisitions whose reply was lost"), not before
        // tryAcquire returns.
        await().atMost(PATIENCE).until(() -> semaphore.availablePermits() == 3);
        assertNothingRefused();
    }

    @Test
    void latchesUnderTheRule() throws Exception {
        Baton baton = connect("baton");
        Baton other = connect("baton");
        DistributedCountDownLatch latch = baton.countDownLatch("gate");
        assertThat(latch.trySetCount(2, HOUR)).isTrue();
        assertThat(other.countDownLatch("gate").trySetCount(2)).isFalse();
        Future<Boolean> waiter = threads.submit(() -> other.countDownLatch("gate").await(LONG));
        await().atMost(PATIENCE).until(() -> Measure.subscribers(redis, "baton:latch:{gate}:released") == 1);
        latch.countDown();
        assertThat(baton.inspect("gate").otherKinds()).singleElement()
                .satisfies(l -> assertThat(l.permits()).isEqualTo(1));
        latch.countDown(); // releases it: DEL and PUBLISH
        assertThat(waiter.get(30, TimeUnit.SECONDS)).isTrue();
        assertThat(latch.count()).isZero();
        assertNothingRefused();
    }

    @Test
    void rateLimitersOfEveryAlgorithm() {
        Baton baton = connect("baton");

        RateLimiter gcra = baton.rateLimiter("api", RateLimit.of(2, HOUR));
        assertThat(gcra.peek().remaining()).as("left after the peeked request").isEqualTo(1);
        assertThat(gcra.tryAcquire().allowed()).isTrue();
        assertThat(gcra.tryAcquire().allowed()).isTrue();
        assertThat(gcra.tryAcquire().allowed()).isFalse();
        assertThat(gcra.peek().allowed()).isFalse();

        RateLimiter fixed = baton.rateLimiter("uploads", fixedWindow(2));
        assertThat(fixed.tryAcquire(2).allowed()).isTrue();
        assertThat(fixed.peek().allowed()).isFalse();

        RateLimiter log = baton.rateLimiter("logins", slidingLog(2));
        assertThat(log.tryAcquire().remaining()).isEqualTo(1);
        assertThat(log.tryAcquire().allowed()).isTrue();
        assertThat(log.tryAcquire().allowed()).isFalse();
        assertThat(log.peek().allowed()).isFalse();

        RateLimiter all = baton.rateLimiter("exports", RateLimit.of(5, HOUR), slidingLog(4), fixedWindow(3));
        for (int i = 0; i < 3; i++) {
            assertThat(all.tryAcquire().allowed()).isTrue();
        }
        RateLimitDecision refused = all.tryAcquire();
        assertThat(refused.allowed()).isFalse();
        assertThat(refused.limit()).isEqualTo(fixedWindow(3));
        assertThat(all.peek().allowed()).isFalse();
        assertNothingRefused();
    }

    @Test
    void slidingLogsAreTrimmedRebuiltAndClearedUnderTheRule() {
        Baton baton = connect("baton");

        String log = logWithAnExpiredEntry("search");
        RateLimiter limiter = baton.rateLimiter("search", slidingLog(3));
        RateLimitDecision trimmed = limiter.tryAcquire();
        assertThat(trimmed.allowed()).isTrue();
        assertThat(trimmed.remaining()).as("the expired entry no longer counts").isEqualTo(1);
        assertThat(redis.command("ZCARD", log)).isEqualTo("2");

        redis.command("DEL", log + ":totals"); // as if evicted: the script rebuilds the totals from the log
        RateLimitDecision rebuilt = limiter.tryAcquire();
        assertThat(rebuilt.allowed()).isTrue();
        assertThat(rebuilt.remaining()).isZero();
        assertThat(redis.command("HGET", log + ":totals", "sum")).isEqualTo("3");

        expiredLog("idle");
        assertThat(baton.rateLimiter("idle", slidingLog(3)).tryAcquire().remaining())
                .as("a log with nothing live starts afresh").isEqualTo(2);
        assertNothingRefused();
    }

    @Test
    void scriptsFlushedFromRedisAreSentAgainWithEval() {
        Baton baton = connect("baton");
        DistributedLock lock = baton.lock("flushed");
        RateLimiter limiter = baton.rateLimiter("flushed", RateLimit.of(10, HOUR));
        lock.lock();
        lock.unlock();
        limiter.tryAcquire();
        long evals = commandCalls("eval");

        redis.command("SCRIPT", "FLUSH");

        lock.lock();
        lock.unlock();
        assertThat(limiter.tryAcquire().remaining()).isEqualTo(8);
        assertThat(commandCalls("eval") - evals).as("acquire, release and rate-decide sent by EVAL")
                .isGreaterThanOrEqualTo(3);
        assertNothingRefused();
    }

    @Test
    void aUserWithoutEvalshaGetsAClearError() {
        createUser("no-evalsha", ruleWithout("+evalsha"));
        Baton baton = connect("no-evalsha");

        Throwable lockFailure = failureOf(() -> baton.lock("x").tryLock());
        Throwable limiterFailure = failureOf(() -> baton.rateLimiter("x", RateLimit.of(1, HOUR)).tryAcquire());

        assertThat(refusals()).contains(new Refusal("command", "toplevel", "evalsha"));
        assertPermissionError(lockFailure, "NOPERM", "evalsha");
        assertPermissionError(limiterFailure, "NOPERM", "evalsha");
    }

    @Test
    void theKeyPatternsFollowTheNamespace() {
        Baton billingAsBaton = connect(uri("baton"), "billing");
        Throwable lockFailure = failureOf(() -> billingAsBaton.lock("x").tryLock());
        Throwable limiterFailure = failureOf(() -> billingAsBaton.rateLimiter("x", RateLimit.of(1, HOUR)).tryAcquire());
        assertThat(refusals()).extracting(Refusal::reason).contains("key");

        createUser("billing-svc", RULE.replace("baton:*", "billing:*"));
        Baton billing = connect(uri("billing-svc"), "billing");
        DistributedLock lock = billing.lock("x");
        assertThat(lock.tryLock()).isTrue();
        assertThat(lock.isLocked()).isTrue();
        lock.unlock();
        assertThat(billing.rateLimiter("x", RateLimit.of(1, HOUR)).tryAcquire().allowed()).isTrue();
        assertThat(redis.command("EXISTS", "billing:lock:{x}:token", "billing:rate:{x}:0g")).isEqualTo("2");
        Baton intruder = connect(uri("billing-svc"), "baton");
        Throwable intruderFailure = failureOf(() -> intruder.lock("x").forceUnlock());

        // Redis: "... one of the keys ...", Valkey 8: "... a key".
        assertPermissionError(lockFailure, "NOPERM", "key");
        assertPermissionError(limiterFailure, "NOPERM", "key");
        assertPermissionError(intruderFailure, "NOPERM", "key");
    }

    @Test
    void withoutTheChannelsAUserCanNeitherWaitNorNotify() throws Exception {
        createUser("no-channels", ruleWithout("&baton:*"));
        Baton full = connect("baton");
        Baton restricted = connect("no-channels");

        // Waiting needs the subscription to the release channel.
        DistributedLock held = full.lock("a");
        held.lock(LONG);
        Throwable waitFailure = failureOf(() -> restricted.lock("a").tryLock(Duration.ofSeconds(20)));
        held.unlock();

        // A release must publish when someone waits; the script's PUBLISH is refused.
        DistributedLock restrictedLock = restricted.lock("b");
        restrictedLock.lock(LONG);
        threads.submit(() -> full.lock("b").tryLock(Duration.ofSeconds(30)));
        awaitAsleep("b");
        Throwable releaseFailure = failureOf(restrictedLock::unlock);

        assertPermissionError(waitFailure, "NOPERM", "channel"); // Redis: "channels", Valkey 8: "a channel"
        assertPermissionErrorMatching(releaseFailure, "can't publish to the channel|No permissions to access a channel");
    }

    @Test
    void aCommandMissingInsideAScriptGetsAClearErrorAndAclLogNamesIt() {
        // TIME is the one most easily forgotten: Baton never sends it, its scripts do.
        createUser("no-time", ruleWithout("+time"));
        Baton baton = connect("no-time");

        Throwable lockFailure = failureOf(() -> baton.lock("x").tryLock());
        Throwable limiterFailure = failureOf(() -> baton.rateLimiter("x", RateLimit.of(1, HOUR)).tryAcquire());

        assertThat(refusals()).contains(new Refusal("command", "lua", "time"));
        // Redis: "can't run this command or subcommand", Valkey 8: "User no-time has no permissions to run the 'time' ..."
        assertPermissionErrorMatching(lockFailure, "can't run this command|no permissions to run the 'time' command");
        assertPermissionErrorMatching(limiterFailure, "can't run this command|no permissions to run the 'time' command");
    }

    @Test
    void aDatabaseOtherThanZeroNeedsSelect() {
        createUser("baton-db", RULE + " +select");
        Baton inDatabase2 = connect(uri("baton-db") + "/2", "baton");
        assertThat(inDatabase2.lock("x").tryLock()).isTrue();
        assertThat(redis.command("INFO", "keyspace")).contains("db2:keys=");

        Throwable refused = failureOf(() -> connect(uri("baton") + "/2", "baton"));

        assertThat(refusals()).contains(new Refusal("command", "toplevel", "select"));
        assertPermissionError(refused, "NOPERM", "select");
    }

    /** What to do, as a user without the command, so that Baton needs it; {@code helper} has the whole rule. */
    private interface Probe {
        void run(Baton restricted, Baton helper) throws Exception;
    }

    private final Map<String, Probe> probes = Map.ofEntries(
            Map.entry("evalsha", (b, h) -> b.lock("p").tryLock()),
            Map.entry("eval", (b, h) -> b.lock("p").tryLock()), // scripts were flushed: NOSCRIPT, then EVAL
            Map.entry("exists", (b, h) -> b.lock("p").isLocked()),
            Map.entry("subscribe", (b, h) -> {
                h.lock("p").lock(LONG);
                b.lock("p").tryLock(Duration.ofSeconds(10));
            }),
            Map.entry("unsubscribe", (b, h) -> {
                DistributedLock held = h.lock("p");
                held.lock(LONG);
                Future<?> waiter = threads.submit(() -> {
                    DistributedLock lock = b.lock("p");
                    if (lock.tryLock(Duration.ofSeconds(30))) {
                        lock.unlock(); // and a second later, the subscription is dropped
                    }
                    return null;
                });
                awaitAsleep("p");
                held.unlock();
                waiter.get(60, TimeUnit.SECONDS);
            }),
            Map.entry("time", (b, h) -> b.lock("p").tryLock()),
            Map.entry("hmget", (b, h) -> b.lock("p").tryLock()),
            Map.entry("hset", (b, h) -> b.lock("p").tryLock()),
            Map.entry("hincrby", (b, h) -> {
                b.lock("p").tryLock();
                b.lock("p").tryLock(); // re-entry
            }),
            Map.entry("get", (b, h) -> b.inspect("p")),
            Map.entry("set", (b, h) -> b.lock("p").tryLock()),
            Map.entry("del", (b, h) -> {
                b.lock("p").tryLock();
                b.lock("p").unlock();
            }),
            Map.entry("pttl", (b, h) -> b.inspect("p")),
            Map.entry("pexpire", (b, h) -> b.lock("p").tryLock()),
            Map.entry("publish", (b, h) -> {
                b.lock("p").tryLock();
                b.lock("p").forceUnlock();
            }),
            Map.entry("zadd", (b, h) -> b.rateLimiter("p", slidingLog(2)).tryAcquire()),
            Map.entry("zrange", (b, h) -> b.rateLimiter("p", slidingLog(2)).tryAcquire()),
            Map.entry("zrangebyscore", (b, h) -> {
                RateLimiter limiter = b.rateLimiter("p", slidingLog(2));
                limiter.tryAcquire();
                limiter.tryAcquire(); // a live log: expired entries are looked for
            }),
            Map.entry("zrem", (b, h) -> {
                logWithAnExpiredEntry("p");
                b.rateLimiter("p", slidingLog(3)).tryAcquire();
            }),
            Map.entry("hdel", (b, h) -> b.semaphore("p", 1).acquire(1, Duration.ZERO).release()),
            Map.entry("zremrangebyscore", (b, h) -> {
                String log = logWithAnExpiredEntry("p");
                redis.command("DEL", log + ":totals");
                b.rateLimiter("p", slidingLog(3)).tryAcquire();
            }));

    static Stream<String> commandsOfTheRule() {
        return Stream.of(RULE.split(" ")).filter(p -> p.startsWith("+")).map(p -> p.substring(1));
    }

    @ParameterizedTest
    @MethodSource("commandsOfTheRule")
    void everyCommandOfTheRuleIsNeeded(String command) throws Exception {
        assertThat(probes).containsKey(command);
        String user = "without-" + command;
        createUser(user, ruleWithout("+" + command));
        Baton restricted = connect(user);
        Baton helper = connect("baton");

        failureOf(() -> probes.get(command).run(restricted, helper)); // failing or not: ACL LOG tells

        await().atMost(PATIENCE)
                .until(() -> refusals().stream().anyMatch(r -> r.object().equals(command)));
    }

    // ---------------------------------------------------------------------------------------------------------------

    private static String uri(String user) {
        return "redis://" + user + ":" + PASSWORD + "@" + redis.host() + ":" + redis.port();
    }

    private Baton connect(String user) {
        return connect(uri(user), "baton");
    }

    /** A recheck interval longer than any test, so that waits end by notification. */
    private Baton connect(String uri, String namespace) {
        Baton baton = Baton.connect(BatonConfig.builder().uri(uri).namespace(namespace)
                .watchdogLease(WATCHDOG_LEASE).commandTimeout(TIMEOUT).recheckInterval(LONG).build());
        batons.add(baton);
        return baton;
    }

    private static void createUser(String name, String rule) {
        List<String> args = new ArrayList<>(List.of("ACL", "SETUSER", name, "reset", "on", ">" + PASSWORD));
        args.addAll(List.of(rule.split(" ")));
        redis.command(args.toArray(String[]::new));
    }

    private static String ruleWithout(String part) {
        List<String> parts = new ArrayList<>(List.of(RULE.split(" ")));
        assertThat(parts.remove(part)).as("the rule has %s", part).isTrue();
        return String.join(" ", parts);
    }

    /**
     * The key or channel patterns of a user, as ACL GETUSER shows them (flat: field name, then value), without the
     * "~" or "&" that Redis 7 puts before each and 6.2 does not.
     */
    private static List<String> patterns(String user, String field) {
        List<String> lines = List.of(redis.command("ACL", "GETUSER", user).split("\n"));
        String value = lines.get(lines.indexOf(field) + 1);
        return Stream.of(value.split(" ")).map(p -> p.replaceFirst("^[~&]", "")).toList();
    }

    /** Waits until a waiter for the lock listens on its channel and has marked the lock, so a release notifies. */
    private static void awaitAsleep(String name) {
        await().atMost(PATIENCE).until(() ->
                Measure.subscribers(redis, "baton:lock:{" + name + "}:released") == 1
                        && "1".equals(redis.command("HGET", "baton:lock:{" + name + "}", "waiters")));
    }

    private static RateLimit slidingLog(long permits) {
        return RateLimit.builder(permits, HOUR).algorithm(Algorithm.SLIDING_WINDOW_LOG).build();
    }

    private static RateLimit fixedWindow(long permits) {
        return RateLimit.builder(permits, HOUR).algorithm(Algorithm.FIXED_WINDOW).build();
    }

    /**
     * Writes the sliding log of limiter {@code name} (its first limit, one hour) as Baton would have left it, with one
     * entry older than the window and one inside it (layout: docs/key-layout.md); returns the log's key.
     */
    private static String logWithAnExpiredEntry(String name) {
        String log = "baton:rate:{" + name + "}:0s";
        long now = redisMicros();
        redis.command("ZADD", log, Long.toString(now - 2 * HOUR_MICROS), "1:1", Long.toString(now - 60_000_000L), "2:1");
        redis.command("HSET", log + ":totals", "sum", "2", "seq", "2", "period", Long.toString(HOUR_MICROS));
        return log;
    }

    /** A sliding log whose only entry has left the window. */
    private static void expiredLog(String name) {
        String log = "baton:rate:{" + name + "}:0s";
        redis.command("ZADD", log, Long.toString(redisMicros() - 2 * HOUR_MICROS), "1:1");
        redis.command("HSET", log + ":totals", "sum", "1", "seq", "1", "period", Long.toString(HOUR_MICROS));
    }

    private static long redisMicros() {
        String[] time = redis.command("TIME").split("\n");
        return Long.parseLong(time[0]) * 1_000_000 + Long.parseLong(time[1]);
    }

    /** Calls of a command since the server started, scripts' calls included (INFO commandstats). */
    private static long commandCalls(String command) {
        String prefix = "cmdstat_" + command + ":calls=";
        return redis.command("INFO", "commandstats").lines().filter(l -> l.startsWith(prefix))
                .mapToLong(l -> Long.parseLong(l.substring(prefix.length(), l.indexOf(',')))).sum();
    }

    /** One ACL LOG entry: why ("command", "key", "channel", "auth"), where ("toplevel", "lua", ...), and what. */
    private record Refusal(String reason, String context, String object) {
    }

    /** ACL LOG, newest first. The kit renders it flat: the fields of every entry, one per line, name then value. */
    private static List<Refusal> refusals() {
        List<String> lines = List.of(redis.command("ACL", "LOG").split("\n"));
        List<Refusal> refusals = new ArrayList<>();
        String reason = null;
        String context = null;
        for (int i = 0; i + 1 < lines.size(); i++) {
            switch (lines.get(i)) {
                case "reason" -> reason = lines.get(++i);
                case "context" -> context = lines.get(++i);
                case "object" -> refusals.add(new Refusal(reason, context, lines.get(++i)));
                default -> {
                    // count, username, age and client info: not needed
                }
            }
        }
        return refusals;
    }

    /**
     * Nothing Baton did was refused, not even quietly (an UNSUBSCRIBE, whose failure nobody waits for). The one
     * exception is Lettuce's CLIENT SETINFO after logging in, which Redis 6.2 and Valkey 8 refuse and Lettuce ignores
     * (docs/acl.md).
     */
    private static void assertNothingRefused() {
        assertThat(refusals()).filteredOn(r -> !ClusterAclIT.lettucesClientSetinfo(r.object())).isEmpty();
    }

    /**
     * A refused permission: a BatonException but not a BatonUnavailableException (retrying cannot help), with
     * Redis's words and a pointer to docs/acl.md, and no trace of the password anywhere in the chain.
     */
    private static void assertPermissionError(Throwable failure, String... redisWords) {
        assertThat(failure).as("the call failed").isNotNull();
        assertNoSecretIn(fullText(failure));
        assertThat(failure).isExactlyInstanceOf(BatonException.class);
        assertThat(failure.getMessage()).contains(redisWords).contains("docs/acl.md");
    }

    /** As {@link #assertPermissionError}, where Redis and Valkey word the refusal differently: one of the pattern's. */
    private static void assertPermissionErrorMatching(Throwable failure, String redisWordsPattern) {
        assertPermissionError(failure, "docs/acl.md");
        assertThat(failure.getMessage()).containsPattern(redisWordsPattern);
    }

    /** Neither the password nor any 4 consecutive characters of it. */
    private static void assertNoSecretIn(String text) {
        for (int i = 0; i + 4 <= PASSWORD.length(); i++) {
            assertThat(text).doesNotContain(PASSWORD.substring(i, i + 4));
        }
    }

    private static String fullText(Throwable t) {
        StringBuilder text = new StringBuilder();
        for (Throwable e = t; e != null; e = e.getCause()) {
            text.append(e).append('\n');
            for (Throwable s : e.getSuppressed()) {
                text.append(fullText(s));
            }
        }
        return text.toString();
    }

    private interface Action {
        void run() throws Exception;
    }

    private static Throwable failureOf(Action action) {
        try {
            action.run();
            return null;
        } catch (Throwable t) {
            return t;
        }
    }
}
