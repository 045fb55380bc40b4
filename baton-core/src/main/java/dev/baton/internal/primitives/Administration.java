package dev.baton.internal.primitives;

import dev.baton.BatonAdmin;
import dev.baton.internal.election.ElectionDriver;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.lock.FairLockDriver;
import dev.baton.internal.ratelimit.RateLimiterState;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.runtime.Require;
import dev.baton.internal.rw.ReadWriteCalls;
import dev.baton.internal.semaphore.SemaphoreCalls;
import dev.baton.internal.transport.KeyScan;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;

/**
 * {@link BatonAdmin} of one Baton: listing by {@code SCAN}, a limiter's state and reset through the rate-limit
 * family's scripts, and forced releases through each family's own administrative script (the views
 * {@link Primitives} holds for the topology). Thread-safe: it keeps no state between calls.
 */
final class Administration implements BatonAdmin {
    /** Keys a {@code SCAN} call examines: large enough that 100,000 keys take about 100 calls, small enough that
     * each call is well under a millisecond of Redis's time. */
    static final int SCAN_COUNT = 1000;

    static final Script QUEUE = Script.list("queue-inspect");

    private final Transport gateway;
    private final String namespace;
    /** Why only plain locks and elections exist here (Redlock masters), or null. */
    private final String plainOnly;
    /** The view that removes a kind's holders: for a read-write lock, its write side. */
    private final Map<Kind, LockView> holders;
    /** A read-write lock's read side, which removes every reader; null on Redlock masters. */
    private final LockView readers;

    Administration(Transport gateway, String namespace, String plainOnly, Map<Kind, LockView> holders,
                   LockView readers) {
        this.gateway = gateway;
        this.namespace = namespace;
        this.plainOnly = plainOnly;
        this.holders = Map.copyOf(holders);
        this.readers = readers;
    }

    @Override
    public Listing list(Optional<Kind> kind, String glob, int limit) {
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(glob, "glob");
        if (glob.isBlank()) {
            throw new IllegalArgumentException("glob must not be blank");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        Glob names = new Glob(glob);
        String match = escapeGlob(namespace) + ":" + kind.map(Kind::keyword).map(Administration::escapeGlob)
                .orElse("*") + ":{*";
        KeyScan scan = gateway.scan(match, SCAN_COUNT);
        Map<Entry, Boolean> found = new TreeMap<>(Comparator.comparing(Entry::name).thenComparing(Entry::kind));
        boolean cut = false;
        while (!scan.finished() && !cut) {
            for (String key : gateway.await(scan.next())) {
                Optional<ObjectKey> object = ObjectKey.parse(namespace, key);
                if (object.isEmpty() || !names.matches(object.get().name())
                        || kind.isPresent() && kind.get() != object.get().kind()) {
                    continue;
                }
                Entry entry = new Entry(object.get().kind(), object.get().name(), false);
                if (!found.containsKey(entry) && found.size() >= limit) {
                    cut = true;
                    continue;
                }
                found.merge(entry, object.get().active(), Boolean::logicalOr);
            }
        }
        List<Entry> entries = found.entrySet().stream()
                .map(e -> new Entry(e.getKey().kind(), e.getKey().name(), e.getValue())).toList();
        return new Listing(entries, !cut, scan.calls());
    }

    @Override
    public List<Waiter> queue(String name, Kind kind, int limit) {
        String checked = Require.lockName(name);
        Objects.requireNonNull(kind, "kind");
        if (kind != Kind.FAIR && kind != Kind.SEMAPHORE) {
            throw new IllegalArgumentException("kind " + kind + " keeps no queue in Redis (only FAIR and SEMAPHORE do)");
        }
        if (limit < 1) {
            throw new IllegalArgumentException("limit must be at least 1, was " + limit);
        }
        if (plainOnly != null) {
            throw new UnsupportedOperationException("a " + kind.keyword() + " cannot run here: " + plainOnly);
        }
        LockKeys keys = keys(kind, checked);
        String[] queueKeys = kind == Kind.FAIR
                ? new String[] {FairLockDriver.queue(keys), FairLockDriver.waiters(keys)}
                : new String[] {SemaphoreCalls.queue(keys), SemaphoreCalls.waiters(keys)};
        List<Object> reply = gateway.await(gateway.<List<Object>>run(QUEUE, queueKeys,
                kind == Kind.FAIR ? "f" : "s", Integer.toString(limit)));
        return reply.stream().map(o -> {
            List<?> w = (List<?>) o;
            Identity.Described d = Identity.describedBy((String) w.get(3));
            return new Waiter(d.instance(), d.host(), d.pid(), d.thread(), ((Long) w.get(1)).intValue(),
                    Duration.ofMillis((Long) w.get(2)));
        }).toList();
    }

    @Override
    public List<LimitState> rateLimiter(String name) {
        String checked = Require.lockName(name);
        noLimitersOnRedlock(name);
        return gateway.await(RateLimiterState.read(gateway, namespace, checked));
    }

    @Override
    public int resetRateLimiter(String name) {
        String checked = Require.lockName(name);
        noLimitersOnRedlock(name);
        return gateway.await(RateLimiterState.reset(gateway, namespace, checked));
    }

    @Override
    public boolean forceUnlock(String name, Kind kind) {
        String checked = Require.lockName(name);
        Objects.requireNonNull(kind, "kind");
        if (kind == Kind.LATCH || kind == Kind.RATE_LIMITER) {
            throw new IllegalArgumentException("kind " + kind + " has no holders to remove"
                    + (kind == Kind.RATE_LIMITER ? ": reset a rate limiter with resetRateLimiter" : ""));
        }
        LockView view = holders.get(kind);
        if (view == null) {
            throw new UnsupportedOperationException("a " + kind.keyword() + " cannot run here: " + plainOnly);
        }
        if (kind == Kind.READ_WRITE) {
            LockKeys keys = ReadWriteCalls.keys(namespace, checked);
            boolean writer = gateway.await(view.forceUnlock(keys));
            boolean read = gateway.await(readers.forceUnlock(keys));
            return writer || read;
        }
        return gateway.await(view.forceUnlock(keys(kind, checked)));
    }

    private LockKeys keys(Kind kind, String name) {
        return switch (kind) {
            case FAIR -> FairLockDriver.keys(namespace, name);
            case SEMAPHORE -> SemaphoreCalls.keys(namespace, name);
            case ELECTION -> ElectionDriver.keys(namespace, name);
            default -> LockKeys.of(namespace, name);
        };
    }

    private void noLimitersOnRedlock(String name) {
        if (plainOnly != null) {
            throw new UnsupportedOperationException("rate limiter '" + name + "': no rate limiter runs on Redlock "
                    + "masters");
        }
    }

    /** A literal for a {@code SCAN MATCH} pattern: glob characters escaped. */
    private static String escapeGlob(String literal) {
        StringBuilder sb = new StringBuilder(literal.length());
        for (char c : literal.toCharArray()) {
            if (c == '*' || c == '?' || c == '[' || c == ']' || c == '\\') {
                sb.append('\\');
            }
            sb.append(c);
        }
        return sb.toString();
    }
}
