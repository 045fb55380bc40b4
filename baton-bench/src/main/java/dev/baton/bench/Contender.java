package dev.baton.bench;

import dev.baton.Baton;
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
import org.redisson.config.Config;

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
 * </ul>
 */
abstract class Contender implements AutoCloseable {
    static final String BATON = "baton";
    static final String REDISSON = "redisson";
    static final String PING_FLOOR = "ping-floor";
    static final String SCRIPT_FLOOR = "script-floor";
    static final String WRITING_SCRIPT_FLOOR = "writing-script-floor";
    static final String SETNX_FLOOR = "setnx-floor";

    /** The lock libraries compared; the floor is added where a scenario reports it. */
    static final List<String> LOCKS = List.of(BATON, REDISSON);

    /** Opens a contender of the given kind against {@code uri}. */
    static Contender open(String kind, String uri) {
        switch (kind.toLowerCase(Locale.ROOT)) {
            case BATON:
                return new BatonContender(uri);
            case REDISSON:
                return new RedissonContender(uri);
            case PING_FLOOR:
            case SCRIPT_FLOOR:
            case WRITING_SCRIPT_FLOOR:
                return new RoundTripFloor(uri, kind.toLowerCase(Locale.ROOT));
            case SETNX_FLOOR:
                return new SetNxFloor(uri);
            default:
                throw new IllegalArgumentException("unknown contender '" + kind + "', expected one of "
                        + List.of(BATON, REDISSON, PING_FLOOR, SCRIPT_FLOOR, WRITING_SCRIPT_FLOOR, SETNX_FLOOR));
        }
    }

    /** The lock of this name; cheap, no Redis call. */
    abstract Lock lock(String name);

    @Override
    public abstract void close();

    private static final class BatonContender extends Contender {
        private final Baton baton;

        BatonContender(String uri) {
            this.baton = Baton.connect(uri);
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

        RedissonContender(String uri) {
            Config config = new Config();
            config.useSingleServer().setAddress(uri);
            this.redisson = Redisson.create(config);
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
