package dev.baton.internal.primitives;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.lock.FairLockDriver;
import dev.baton.internal.rw.ReadWriteCalls;
import dev.baton.internal.semaphore.SemaphoreCalls;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.runtime.Identity;
import dev.baton.internal.transport.Script;
import dev.baton.internal.transport.Transport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Operators' view of the objects that live under one name ({@code name-inspect.lua}): the plain lock, the fair lock,
 * the read-write lock and the semaphore have keys of their own, but all under the name's hash tag, so one script
 * reads any of them, or all of them, atomically, on a Cluster too. The one place that builds that script's
 * {@code KEYS} and {@code ARGV} and reads its reply.
 *
 * <p>{@link #everyKind} serves {@code Baton.inspect(name)}: it reports the first object it finds held (in the order
 * plain lock, fair lock, read-write lock, semaphore) and every other one found held or waited for in
 * {@link LockInfo#otherKinds()}, so that no held object is reported free or hidden behind another. The fair lock's and
 * the read-write lock's own {@code inspect()} read their own object only ({@link #fair}, {@link #readWrite}).
 */
public final class NameInspection {
    static final Script INSPECT = Script.list("name-inspect");

    private NameInspection() {
    }

    /** Every kind under {@code name}, in one atomic read. */
    public static CompletableFuture<LockInfo> everyKind(Transport gateway, String namespace, String name) {
        LockKeys plain = LockKeys.of(namespace, name);
        LockKeys fair = FairLockDriver.keys(namespace, name);
        LockKeys rw = ReadWriteCalls.keys(namespace, name);
        LockKeys sem = SemaphoreCalls.keys(namespace, name);
        String[] keys = {
            plain.lock(), plain.counter(),
            fair.lock(), fair.counter(), FairLockDriver.queue(fair), FairLockDriver.waiters(fair),
            rw.lock(), ReadWriteCalls.readers(rw), ReadWriteCalls.writers(rw), rw.counter(),
            sem.lock(), SemaphoreCalls.holders(sem), SemaphoreCalls.expiry(sem), SemaphoreCalls.queue(sem),
            SemaphoreCalls.waiters(sem), sem.counter()};
        return NameInspection.<List<Object>>run(gateway, keys, "LFRS").thenApply(reply -> {
            List<LockInfo> found = new ArrayList<>(4);
            LockInfo plainInfo = null;
            for (Object part : reply) {
                LockInfo info = decode(name, null, part);
                if (info.kind() == LockType.LOCK) {
                    plainInfo = info;
                }
                if (info.holders() > 0 || info.waiting() > 0) {
                    found.add(info);
                }
            }
            return combine(plainInfo, found);
        });
    }

    /**
     * The first held object, with the others found as its {@link LockInfo#otherKinds()}; with nothing held, the
     * plain lock (its last fencing token included), with whatever has waiters as other kinds.
     */
    static LockInfo combine(LockInfo plain, List<LockInfo> found) {
        LockInfo first = found.stream().filter(i -> i.holders() > 0).findFirst().orElse(plain);
        List<LockInfo> others = found.stream().filter(i -> i != first).toList();
        return others.isEmpty() ? first : first.withOtherKinds(others);
    }

    /** The fair lock's own view: its holder and its queue. */
    public static CompletableFuture<LockInfo> fair(Transport gateway, LockKeys keys) {
        return NameInspection.<List<Object>>run(gateway, new String[] {keys.lock(), keys.counter(),
                FairLockDriver.queue(keys), FairLockDriver.waiters(keys)}, "F")
                .thenApply(reply -> decode(keys.name(), null, reply.get(0)));
    }

    /**
     * The read-write lock as a whole, whichever side asks: the writer and every reader, the waiting writers. When
     * nobody holds it, the snapshot's kind is {@code side}.
     */
    public static CompletableFuture<LockInfo> readWrite(Transport gateway, LockKeys keys, LockType side) {
        return NameInspection.<List<Object>>run(gateway, new String[] {keys.lock(), ReadWriteCalls.readers(keys),
                ReadWriteCalls.writers(keys), keys.counter()}, "R")
                .thenApply(reply -> decode(keys.name(), side, reply.get(0)));
    }

    private static <T> CompletableFuture<T> run(Transport gateway, String[] keys, String kinds) {
        return gateway.run(INSPECT, keys, kinds);
    }

    /**
     * One entry of the reply, {@code {letter, lastToken, waiting, total, holder...}}, each holder
     * {@code {owner, side, count, token, "<instance> <pid> <host> <thread>", remaining ms, permits}}.
     *
     * @param freeSide the kind of a free read-write lock; null for READ
     */
    @SuppressWarnings("unchecked")
    private static LockInfo decode(String name, LockType freeSide, Object part) {
        List<Object> entry = (List<Object>) part;
        LockType kind = kindOf((String) entry.get(0));
        long lastToken = Long.parseLong((String) entry.get(1));
        int waiting = ((Long) entry.get(2)).intValue();
        long total = (Long) entry.get(3);
        List<LockInfo.Holder> holders = new ArrayList<>();
        for (int i = 4; i < entry.size(); i++) {
            holders.add(holder((List<Object>) entry.get(i)));
        }
        if (kind == LockType.READ) { // the read-write lock: named after its strongest hold
            kind = holders.isEmpty() ? (freeSide != null ? freeSide : LockType.READ) : holders.get(0).kind();
        }
        return LockInfo.of(name, kind, holders, lastToken, waiting, kind == LockType.SEMAPHORE ? (int) Math.max(0,
                total) : 0);
    }

    private static LockInfo.Holder holder(List<Object> h) {
        String owner = (String) h.get(0);
        // "instance pid host thread-name", as Identity.holderOfCallingThread() wrote it
        String[] d = ((String) h.get(4)).split(" ", 4);
        return new LockInfo.Holder(d[0], d.length > 2 ? d[2] : "", d.length > 1 ? Long.parseLong(d[1]) : 0,
                d.length > 3 ? d[3] : "", Identity.isLeaseOwner(owner), Integer.parseInt((String) h.get(2)),
                Duration.ofMillis(Math.max(0, (Long) h.get(5))), Long.parseLong((String) h.get(3)),
                kindOf((String) h.get(1)), ((Long) h.get(6)).intValue());
    }

    /** The script's letters: L, F, R (the read-write lock; as a holder's side, a reader), W (its writer), S. */
    private static LockType kindOf(String letter) {
        return switch (letter) {
            case "L" -> LockType.LOCK;
            case "F" -> LockType.FAIR;
            case "R" -> LockType.READ;
            case "W" -> LockType.WRITE;
            case "S" -> LockType.SEMAPHORE;
            default -> throw new IllegalStateException("name-inspect.lua answered an unknown kind: " + letter);
        };
    }
}
