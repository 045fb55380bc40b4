package dev.baton.internal.engine;

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
 * The typed call of {@code name-inspect.lua}, the operators' read of every kind of object (plain lock, fair lock,
 * read-write lock, semaphore, count-down latch, election): each family passes the keys of its own object and its letter, and
 * gets back one {@link LockInfo} per object, decoded here once. Read-only; one atomic script, on a Cluster too, since
 * every key of a name carries the name's hash tag.
 */
public final class InspectCall {
    static final Script INSPECT = Script.list("name-inspect");

    private InspectCall() {
    }

    /**
     * Reads the objects named by {@code kinds} (one letter each: L plain lock, F fair lock, R read-write lock, S
     * semaphore, C count-down latch, E election), whose keys are given in that order, in the layout of {@code name-inspect.lua}.
     *
     * @param freeSide the kind a free read-write lock is reported as; null for READ
     * @return one snapshot per letter, in order
     */
    public static CompletableFuture<List<LockInfo>> read(Transport gateway, String name, LockType freeSide,
                                                         String[] keys, String kinds) {
        return gateway.<List<Object>>run(INSPECT, keys, kinds).thenApply(reply -> {
            List<LockInfo> infos = new ArrayList<>(reply.size());
            for (Object part : reply) {
                infos.add(decode(name, freeSide, part));
            }
            return infos;
        });
    }

    /**
     * One entry of the reply, {@code {letter, lastToken, waiting, total, holder...}}, each holder
     * {@code {owner, side, count, token, "<instance> <pid> <host> <thread>", remaining ms, permits}}.
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
        return LockInfo.of(name, kind, holders, lastToken, waiting, permits(kind, total));
    }

    /** The semaphore's total or the latch's count, as {@link LockInfo#permits()} has room for; 0 for the others. */
    private static int permits(LockType kind, long total) {
        if (kind != LockType.SEMAPHORE && kind != LockType.LATCH) {
            return 0;
        }
        return (int) Math.max(0, Math.min(Integer.MAX_VALUE, total));
    }

    private static LockInfo.Holder holder(List<Object> h) {
        String owner = (String) h.get(0);
        Identity.Described d = Identity.describedBy((String) h.get(4));
        return new LockInfo.Holder(d.instance(), d.host(), d.pid(), d.thread(), Identity.isLeaseOwner(owner),
                Integer.parseInt((String) h.get(2)), Duration.ofMillis(Math.max(0, (Long) h.get(5))),
                Long.parseLong((String) h.get(3)), kindOf((String) h.get(1)), ((Long) h.get(6)).intValue());
    }

    /**
     * The script's letters: L, F, R (the read-write lock; as a holder's side, a reader), W (its writer), S, C (the
     * count-down latch), E (the election).
     */
    private static LockType kindOf(String letter) {
        return switch (letter) {
            case "L" -> LockType.LOCK;
            case "F" -> LockType.FAIR;
            case "R" -> LockType.READ;
            case "W" -> LockType.WRITE;
            case "S" -> LockType.SEMAPHORE;
            case "C" -> LockType.LATCH;
            case "E" -> LockType.ELECTION;
            default -> throw new IllegalStateException("name-inspect.lua answered an unknown kind: " + letter);
        };
    }
}
