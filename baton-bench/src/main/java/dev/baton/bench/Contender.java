package dev.baton.bench;

import dev.baton.Baton;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
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
 * </ul>
 */
abstract class Contender implements AutoCloseable {
    static final String BATON = "baton";
    static final String REDISSON = "redisson";
    static final String PING_FLOOR = "ping-floor";
    static final String SCRIPT_FLOOR = "script-floor";
    static final String WRITING_SCRIPT_FLOOR = "writing-script-floor";

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
            default:
                throw new IllegalArgumentException("unknown contender '" + kind + "', expected one of "
                        + List.of(BATON, REDISSON, PING_FLOOR, SCRIPT_FLOOR, WRITING_SCRIPT_FLOOR));
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
