package dev.baton.demo;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import java.time.Duration;
import java.util.List;

/**
 * The shared resource of the demo, kept in Redis under keys starting with {@value #KEY_PREFIX}:
 * <ul>
 *   <li>a counter that workers increment with a deliberately non-atomic GET, pause, SET, so that two workers inside
 *       the critical section at once would lose an increment;</li>
 *   <li>the fencing check a real storage system would make: it remembers the highest token it has seen and rejects an
 *       access whose token is not above it (which only a stale lock holder could present);</li>
 *   <li>a log of every token presented, in the order the resource saw them, for the parent to verify;</li>
 *   <li>an occupancy count: how many workers are inside their GET/SET right now, so that one that enters while
 *       another is still inside is caught in the act (a violation), with the lock or without it.</li>
 * </ul>
 * The check is itself a read-then-write; it is only sound because callers hold the lock, which is the point.
 */
final class FencedCounter implements AutoCloseable {

    /**
     * Prefix of every key the demo creates: these and, inside Baton's namespace, the lock's keys
     * ({@code baton-demo:lock:{counter}} and its fencing counter {@code baton-demo:lock:{counter}:token}).
     */
    static final String KEY_PREFIX = DemoWorker.NAMESPACE + ":";
    private static final String COUNTER = KEY_PREFIX + "counter";
    private static final String HIGHEST_TOKEN = KEY_PREFIX + "highest-token";
    private static final String TOKEN_LOG = KEY_PREFIX + "token-log";
    private static final String INSIDE = KEY_PREFIX + "inside";

    /** Long enough for another process to slip in between GET and SET if the lock did not keep it out. */
    private static final long RACE_WINDOW_NANOS = 50_000;

    private final RedisClient client;
    private final StatefulRedisConnection<String, String> connection;
    private final RedisCommands<String, String> redis;

    private FencedCounter(RedisClient client, StatefulRedisConnection<String, String> connection) {
        this.client = client;
        this.connection = connection;
        this.redis = connection.sync();
    }

    /**
     * Opens a connection of its own (Baton does not share its connection, and should not).
     *
     * @throws io.lettuce.core.RedisConnectionException if Redis cannot be reached
     */
    static FencedCounter connect(String redisUri, Duration timeout) {
        RedisURI uri = RedisURI.create(redisUri);
        uri.setTimeout(timeout);
        RedisClient client = RedisClient.create(uri);
        try {
            return new FencedCounter(client, client.connect());
        } catch (RuntimeException e) {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            throw e;
        }
    }

    /**
     * The resource's fencing check for one access: logs the token, and accepts it only if it is above every token
     * seen before.
     *
     * @return false for a stale token (a violation); the caller must then not write
     */
    boolean admit(long token) {
        redis.rpush(TOKEN_LOG, Long.toString(token));
        long highest = parse(redis.get(HIGHEST_TOKEN));
        if (token <= highest) {
            return false;
        }
        redis.set(HIGHEST_TOKEN, Long.toString(token));
        return true;
    }

    /**
     * Enters the critical section as far as the resource can tell: counts this worker in.
     *
     * @return false if another worker was inside already (a violation of mutual exclusion); {@link #leave()} is due
     *         either way
     */
    boolean enter() {
        return redis.incr(INSIDE) == 1;
    }

    /** Leaves the critical section entered with {@link #enter()}. */
    void leave() {
        redis.decr(INSIDE);
    }

    /** Adds one to the counter the unsafe way: correct only under mutual exclusion. */
    void incrementUnsafely() {
        long value = parse(redis.get(COUNTER));
        long until = System.nanoTime() + RACE_WINDOW_NANOS;
        while (System.nanoTime() - until < 0) {
            Thread.onSpinWait();
        }
        redis.set(COUNTER, Long.toString(value + 1));
    }

    long counter() {
        return parse(redis.get(COUNTER));
    }

    /** Every token presented to {@link #admit}, in the order the resource saw them. */
    List<Long> tokenLog() {
        return redis.lrange(TOKEN_LOG, 0, -1).stream().map(Long::parseLong).toList();
    }

    /**
     * Deletes the resource's keys before a run, and between the run without the lock and the one with it, so that
     * each starts from zero. Baton's lock keys are left alone: a worker of this run may already be connected, and the
     * lock is Baton's business while the run lasts.
     */
    void clear() {
        redis.del(COUNTER, HIGHEST_TOKEN, TOKEN_LOG, INSIDE);
    }

    /**
     * Deletes every key under {@link #KEY_PREFIX}, Baton's lock keys included, so that a user's Redis is left as the
     * demo found it. Only safe once no worker is left to write.
     *
     * <p>{@code SCAN} rather than a list of names: a worker killed while holding the lock leaves the lock hash, and
     * the key layout is Baton's to change. {@code SCAN} may return a key more than once, so the count is of keys
     * actually deleted.
     *
     * @return how many keys were deleted
     */
    long deleteAllDemoKeys() {
        ScanArgs match = ScanArgs.Builder.matches(KEY_PREFIX + "*").limit(1000);
        long deleted = 0;
        ScanCursor cursor = ScanCursor.INITIAL;
        do {
            KeyScanCursor<String> batch = redis.scan(cursor, match);
            if (!batch.getKeys().isEmpty()) {
                deleted += redis.del(batch.getKeys().toArray(String[]::new));
            }
            cursor = batch;
        } while (!cursor.isFinished());
        return deleted;
    }

    @Override
    public void close() {
        try {
            connection.close();
        } finally {
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static long parse(String value) {
        return value == null ? 0 : Long.parseLong(value);
    }
}
