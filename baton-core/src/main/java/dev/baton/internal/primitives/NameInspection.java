package dev.baton.internal.primitives;

import dev.baton.LockInfo;
import dev.baton.LockType;
import dev.baton.internal.election.ElectionDriver;
import dev.baton.internal.engine.InspectCall;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.latch.LatchKeys;
import dev.baton.internal.lock.FairLockDriver;
import dev.baton.internal.rw.ReadWriteCalls;
import dev.baton.internal.semaphore.SemaphoreCalls;
import dev.baton.internal.transport.Transport;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * Operators' view of every object that lives under one name ({@code Baton.inspect(name)}): the plain lock, the fair
 * lock, the read-write lock, the semaphore, the count-down latch and the election have keys of their own, but all
 * under the name's hash tag: the kind ({@code lock}, {@code fair}, {@code rw}, {@code semaphore}, {@code latch},
 * {@code election}) comes before the tag
 * {@code {<name>}}, which is the same for all, so they sit in one Cluster hash slot and one {@link InspectCall} reads
 * them all atomically, on a Cluster too. The only place that gathers the keys of every family.
 *
 * <p>It reports the first object it finds held (in the order plain lock, fair lock, read-write lock, semaphore,
 * election: its leader) and
 * every other one found held or waited for in {@link LockInfo#otherKinds()}, so that no held object is reported free
 * or hidden behind another. A latch is never held; one with a count is reported among the other kinds.
 */
final class NameInspection {

    private NameInspection() {
    }

    /** Every kind under {@code name}, in one atomic read. */
    static CompletableFuture<LockInfo> everyKind(Transport gateway, String namespace, String name) {
        LockKeys plain = LockKeys.of(namespace, name);
        LockKeys fair = FairLockDriver.keys(namespace, name);
        LockKeys rw = ReadWriteCalls.keys(namespace, name);
        LockKeys sem = SemaphoreCalls.keys(namespace, name);
        LatchKeys latch = LatchKeys.of(namespace, name);
        LockKeys election = ElectionDriver.keys(namespace, name);
        String[] keys = {
            plain.lock(), plain.counter(),
            fair.lock(), fair.counter(), FairLockDriver.queue(fair), FairLockDriver.waiters(fair),
            rw.lock(), ReadWriteCalls.readers(rw), ReadWriteCalls.writers(rw), rw.counter(),
            sem.lock(), SemaphoreCalls.holders(sem), SemaphoreCalls.expiry(sem), SemaphoreCalls.queue(sem),
            SemaphoreCalls.waiters(sem), sem.counter(),
            latch.latch(),
            election.lock(), election.counter()};
        return InspectCall.read(gateway, name, null, keys, "LFRSCE").thenApply(infos -> {
            List<LockInfo> found = new ArrayList<>(6);
            LockInfo plainInfo = null;
            for (LockInfo info : infos) {
                if (info.kind() == LockType.LOCK) {
                    plainInfo = info;
                }
                boolean latchSet = info.kind() == LockType.LATCH && info.permits() > 0;
                if (info.holders() > 0 || info.waiting() > 0 || latchSet) {
                    found.add(info);
                }
            }
            return combine(plainInfo, found);
        });
    }

    /**
     * What a majority of Redlock masters says about a name: its plain lock and its election, each read by the
     * Redlock's quorum inspection (which knows no kinds: the election's answer is re-labelled here).
     */
    static LockInfo onQuorum(LockInfo plain, LockInfo electionAsLock) {
        List<LockInfo.Holder> leaders = electionAsLock.allHolders().stream()
                .map(h -> new LockInfo.Holder(h.batonInstance(), h.host(), h.pid(), h.thread(), h.leaseOwned(),
                        h.holdCount(), h.remainingLease(), h.fencingToken(), LockType.ELECTION, 1))
                .toList();
        LockInfo election = LockInfo.of(plain.name(), LockType.ELECTION, leaders, electionAsLock.lastFencingToken(),
                0, 0);
        List<LockInfo> found = new ArrayList<>(2);
        if (plain.holders() > 0) {
            found.add(plain);
        }
        if (election.holders() > 0) {
            found.add(election);
        }
        return combine(plain, found);
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
}
