package dev.baton.bench;

import dev.baton.Baton;
import dev.baton.BatonConfig;
import dev.baton.internal.lock.LockCalls;
import dev.baton.internal.transport.HashTag;
import dev.baton.internal.transport.Script;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;
import io.lettuce.core.codec.StringCodec;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;
import org.redisson.Redisson;
import org.redisson.api.RedissonClient;

/**
 * One client of the shared Redis as a benchmark sees it: something that hands out {@link Lock}s by name. Every
 * scenario body is written once against {@code Lock}, so the three contenders run exactly the same loop.
 *
 * <ul>
 *   <li>{@value #BATON}: one {@link Baton} with default settings (watchdog lease).</li>
 *   <li>{@value #REDISSON}: one {@link RedissonClient} with default settings ({@code RLock}, watchdog lease).</li>
 *   <li>{@value #PING_FLOOR}: one Lettuce sync connection, the client type Baton itself uses; its "lock" sends one
 *       {@code PING} for {@code lock()}/{@code tryLock} and one for {@code unlock()}, so lock+unlock costs exactly
 *       two PING round trips on the same client. That is the floor no Redis lock can beat.</li>
 *   <li>{@value #SCRIPT_FLOOR}: the same connection type, but each "lock" and "unlock" runs {@code EVALSHA} of a
 *       script that only returns 1: what two round trips cost for any lock built on Lua scripts, before the script
 *       does any work. A reference for scenario (a), not a contender.</li>
 *   <li>{@value #WRITING_SCRIPT_FLOOR}: "lock" runs a script that only {@code SET}s the key with an expiry, "unlock"
 *       one that only {@code DEL}s it: the least any lock made of two Lua scripts must write (no owner check, no
 *       token). Also a reference for scenario (a).</li>
 *   <li>{@value #SETNX_FLOOR}: the plainest real lock on the same connection type: {@code SET key token NX PX} to
 *       lock (retried while it fails, for {@code lock()}), and a compare-and-delete script to unlock. It writes
 *       only the key itself (no owner check on acquire, no re-entry, no fencing token). A reference for the
 *       concurrent scenarios.</li>
 *   <li>{@value #BATON_SCRIPTS}: Baton's own acquire and release scripts, sent by hand on the same connection type
 *       with the arguments Baton sends, without Baton's engine around them: what Baton's protocol costs, apart from
 *       the library. A reference, to split the gap between Baton and the floors into Redis's part and the
 *       client's.</li>
 * </ul>
 */
abstract class Contender implements AutoCloseable {
    static final String BATON = "baton";
    static final String REDISSON = "redisson";
    static final String PING_FLOOR = "ping-floor";
    static final String SCRIPT_FLOOR = "script-floor";
    static final String WRITING_SCRIPT_FLOOR = "writing-script-floor";
    static final String SETNX_FLOOR = "setnx-floor";
    static final String BATON_SCRIPTS = "baton-scripts";
    /** Baton whose acquisitions wait for 1 replica ({@code replicaAcknowledged(1, 2 s)}); Sentinel only. */
    static final String BATON_ACKED = "baton-acked";

    /** The lock libraries compared; the floor is added where a scenario reports it. */
    static final List<String> LOCKS = List.of(BATON, REDISSON);

    /** Opens a contender of the given kind against the standalone server at {@code uri}. */
    /** Baton's lock on a Baton of these settings (one Redis, or Redlock masters). */
    static Contender baton(BatonConfig config) {
        return new BatonContender(config);
    }

    static Contender open(String kind, String uri) {
        return open(kind, RedisTarget.standalone(uri));
    }

    /** Opens a contender of the given kind against a target; the floors need a standalone server. */
    static Contender open(String kind, RedisTarget target) {
        switch (kind.toLowerCase(Locale.ROOT)) {
            case BATON:
                return new BatonContender(target.baton());
            case BATON_ACKED:
                return new BatonContender(target.batonAcknowledged(1, Duration.ofSeconds(2)));
            case REDISSON:
                return new RedissonContender(target);
            case PING_FLOOR:
            case SCRIPT_FLOOR:
            case WRITING_SCRIPT_FLOOR:
                return new RoundTripFloor(target.uri(), kind.toLowerCase(Locale.ROOT));
            case SETNX_FLOOR:
                return new SetNxFloor(target.uri());
            case BATON_SCRIPTS:
                return new BatonScripts(target.uri());
            default:
                throw new IllegalArgumentException("unknown contender '" + kind + "', expected one of "
                        + List.of(BATON, BATON_ACKED, REDISSON, PING_FLOOR, SCRIPT_FLOOR, WRITING_SCRIPT_FLOOR,
                        SETNX_FLOOR, BATON_SCRIPTS));
        }
    }

    /** The lock of this name; cheap, no Redis call. */
    abstract Lock lock(String name);

    @Override
    public abstract void close();

    private static final class BatonContender extends Contender {
        private final Baton baton;

        BatonContender(BatonConfig config) {
            this.baton = Baton.connect(config);
        }

        @Override
        Lock lock(String name) {
            return baton.lock(name);
        }

        @Override
        public void close() {
            baton.close();
        }
    }

    private static final class RedissonContender extends Contender {
        private final RedissonClient redisson;

        RedissonContender(RedisTarget target) {
            this.redisson = Redisson.create(target.redisson());
        }

        @Override
        Lock lock(String name) {
            return redisson.getLock(name);
        }

        @Override
        public void close() {
            redisson.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }

    /**
     * One round trip per lock and one per unlock on one Lettuce sync connection shared by all threads, like Baton's:
     * a PING, an EVALSHA of a script that returns 1, or an EVALSHA of a script that writes (SET with PX to lock,
     * DEL to unlock; no owner check, no token: the least a script lock can write).
     */
    private static final class RoundTripFloor extends Contender {
        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisCommands<String, String> sync;
        private final String kind;
        private final String lockSha;
        private final String unlockSha;

        RoundTripFloor(String uri, String kind) {
            this.client = RedisClient.create(uri);
            this.connection = client.connect(StringCodec.UTF8);
            this.sync = connection.sync();
            this.kind = kind;
            if (kind.equals(WRITING_SCRIPT_FLOOR)) {
                this.lockSha = sync.scriptLoad("redis.call('SET', KEYS[1], '1', 'PX', 30000) return 1");
                this.unlockSha = sync.scriptLoad("redis.call('DEL', KEYS[1]) return 1");
            } else {
                this.lockSha = sync.scriptLoad("return 1");
                this.unlockSha = lockSha;
            }
        }

        @Override
        Lock lock(String name) {
            if (kind.equals(PING_FLOOR)) {
                return new RoundTripLock(sync::ping, sync::ping);
            }
            String[] keys = {name};
            return new RoundTripLock(() -> sync.evalsha(lockSha, ScriptOutputType.INTEGER, keys),
                    () -> sync.evalsha(unlockSha, ScriptOutputType.INTEGER, keys));
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /**
     * {@code SET key token NX PX 30000} to lock and an {@code EVALSHA} that deletes the key only if it still holds
     * the token to unlock, on one Lettuce sync connection shared by all threads. The token is the thread's id, so a
     * thread can only delete what it set.
     */
    private static final class SetNxFloor extends Contender {
        private static final SetArgs NX_PX = SetArgs.Builder.nx().px(30_000);
        private static final ThreadLocal<String> TOKEN =
                ThreadLocal.withInitial(() -> "t" + Thread.currentThread().getId());

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisCommands<String, String> sync;
        private final String unlockSha;

        SetNxFloor(String uri) {
            this.client = RedisClient.create(uri);
            this.connection = client.connect(StringCodec.UTF8);
            this.sync = connection.sync();
            this.unlockSha = sync.scriptLoad(
                    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0");
        }

        @Override
        Lock lock(String name) {
            String[] keys = {name};
            return new Lock() {
                @Override
                public void lock() {
                    while (!tryLock()) {
                        Thread.onSpinWait();
                    }
                }

                @Override
                public void lockInterruptibly() {
                    lock();
                }

                @Override
                public boolean tryLock() {
                    return "OK".equals(sync.set(name, TOKEN.get(), NX_PX));
                }

                @Override
                public boolean tryLock(long time, TimeUnit unit) {
                    return tryLock();
                }

                @Override
                public void unlock() {
                    sync.evalsha(unlockSha, ScriptOutputType.INTEGER, keys, TOKEN.get());
                }

                @Override
                public Condition newCondition() {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /**
     * Baton's {@code lock-acquire.lua} and {@code lock-release.lua}, loaded from baton-core as Baton loads them, sent
     * on one Lettuce sync connection with the arguments a {@code lock()} and {@code unlock()} of Baton send (owner,
     * watchdog lease, holder description, token retention, no held token, "will wait"; owner, token, channel, "no
     * local waiters", "classic pub/sub"). No re-entry, no waiting, no watchdog: a reference, not a lock.
     */
    private static final class BatonScripts extends Contender {
        // The very scripts (and shared helpers) that Baton's plain lock sends.
        private static final Script ACQUIRE = LockCalls.ACQUIRE;
        private static final Script RELEASE = LockCalls.RELEASE;
        private static final String LEASE = "30000";
        private static final String RETENTION = Long.toString(Duration.ofDays(1).toMillis());
        private static final ThreadLocal<String> OWNER =
                ThreadLocal.withInitial(() -> "benchscripts:t" + Thread.currentThread().getId());
        private static final ThreadLocal<String> HOLDER = ThreadLocal.withInitial(() -> "benchscripts "
                + ProcessHandle.current().pid() + " localhost " + Thread.currentThread().getName());
        /** The token of the calling thread's last acquisition (threads hold one lock at a time here). */
        private static final ThreadLocal<long[]> TOKEN = ThreadLocal.withInitial(() -> new long[1]);

        private final RedisClient client;
        private final StatefulRedisConnection<String, String> connection;
        private final RedisCommands<String, String> sync;

        BatonScripts(String uri) {
            this.client = RedisClient.create(uri);
            this.connection = client.connect(StringCodec.UTF8);
            this.sync = connection.sync();
            sync.scriptLoad(ACQUIRE.body());
            sync.scriptLoad(RELEASE.body());
        }

        @Override
        Lock lock(String name) {
            String tag = HashTag.of("baton", "lock", name);
            String[] acquireKeys = {tag, tag + ":token"};
            String[] releaseKeys = {tag};
            String channel = tag + ":released";
            return new Lock() {
                @Override
                public void lock() {
                    while (!tryLock()) {
                        Thread.onSpinWait();
                    }
                }

                @Override
                public void lockInterruptibly() {
                    lock();
                }

                @Override
                public boolean tryLock() {
                    List<Long> reply = sync.evalsha(ACQUIRE.sha(), ScriptOutputType.MULTI, acquireKeys, OWNER.get(),
                            LEASE, HOLDER.get(), RETENTION, "0", "1");
                    if (reply.get(0) != 1L) {
                        return false;
                    }
                    TOKEN.get()[0] = reply.get(1);
                    return true;
                }

                @Override
                public boolean tryLock(long time, TimeUnit unit) {
                    return tryLock();
                }

                @Override
                public void unlock() {
                    sync.evalsha(RELEASE.sha(), ScriptOutputType.INTEGER, releaseKeys, OWNER.get(),
                            Long.toString(TOKEN.get()[0]), channel, "0", "0");
                }

                @Override
                public Condition newCondition() {
                    throw new UnsupportedOperationException();
                }
            };
        }

        @Override
        public void close() {
            connection.close();
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    /** A "lock" that only costs what its round trips cost. */
    private static final class RoundTripLock implements Lock {
        private final Runnable acquire;
        private final Runnable release;

        RoundTripLock(Runnable acquire, Runnable release) {
            this.acquire = acquire;
            this.release = release;
        }

        @Override
        public void lock() {
            acquire.run();
        }

        @Override
        public void lockInterruptibly() {
            acquire.run();
        }

        @Override
        public boolean tryLock() {
            acquire.run();
            return true;
        }

        @Override
        public boolean tryLock(long time, TimeUnit unit) {
            acquire.run();
            return true;
        }

        @Override
        public void unlock() {
            release.run();
        }

        @Override
        public Condition newCondition() {
            throw new UnsupportedOperationException();
        }
    }
}
