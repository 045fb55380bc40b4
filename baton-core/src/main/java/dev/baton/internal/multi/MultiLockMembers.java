package dev.baton.internal.multi;

import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.runtime.Require;
import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * The plain locks a multi-lock is made of, in the one order every multi-lock of every process acquires them (the
 * canonical order), cut into the runs that one script may acquire together.
 *
 * <p>The canonical order sorts by the Cluster hash slot of each lock's key, then by the key itself. It does not depend
 * on the topology nor on the order the caller named the locks, so two multi-locks over overlapping sets, in any
 * process, always take their common locks in the same order: that is what rules out deadlock (docs/multi-lock.md).
 * Sorting by slot first makes the locks of one slot adjacent, so that on a Cluster each slot is one run. On a
 * standalone server or behind Sentinel a script may touch any keys, so all locks are one run.
 *
 * <p>Immutable.
 */
public final class MultiLockMembers {
    private static final Comparator<LockKeys> CANONICAL = Comparator
            .comparingInt((LockKeys k) -> SlotHash.getSlot(k.lock()))
            .thenComparing(LockKeys::lock);

    private final String name;
    private final List<LockKeys> locks;
    /** For each lock (canonical index), the exclusive end of the run it belongs to. */
    private final int[] runEnd;

    private MultiLockMembers(String name, List<LockKeys> locks, int[] runEnd) {
        this.name = name;
        this.locks = locks;
        this.runEnd = runEnd;
    }

    /**
     * Checks the names (before any Redis call) and orders their locks.
     *
     * @param cluster whether scripts must keep to one hash slot (then a run is the locks of one slot)
     * @throws NullPointerException     if {@code names} or one of them is null
     * @throws IllegalArgumentException if no name is given, or one is blank or longer than 1024 bytes of UTF-8
     */
    public static MultiLockMembers of(String namespace, boolean cluster, String... names) {
        Objects.requireNonNull(names, "names");
        if (names.length == 0) {
            throw new IllegalArgumentException("names must name at least one lock");
        }
        Set<String> distinct = new LinkedHashSet<>();
        for (int i = 0; i < names.length; i++) {
            if (names[i] == null) {
                throw new NullPointerException("names[" + i + "]");
            }
            try {
                distinct.add(Require.lockName(names[i]));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("names[" + i + "]: " + e.getMessage(), e);
            }
        }
        List<LockKeys> locks = new ArrayList<>(distinct.size());
        for (String n : distinct) {
            locks.add(LockKeys.of(namespace, n));
        }
        locks.sort(CANONICAL);
        int[] runEnd = new int[locks.size()];
        for (int end = locks.size(), i = end - 1; i >= 0; i--) {
            if (cluster && i + 1 < locks.size()
                    && SlotHash.getSlot(locks.get(i).lock()) != SlotHash.getSlot(locks.get(i + 1).lock())) {
                end = i + 1;
            }
            runEnd[i] = end;
        }
        return new MultiLockMembers(String.join(",", distinct), List.copyOf(locks), runEnd);
    }

    /** The names as the caller gave them, without duplicates, joined by commas: the multi-lock's name. */
    public String name() {
        return name;
    }

    /** The locks in canonical order. */
    List<LockKeys> locks() {
        return locks;
    }

    int size() {
        return locks.size();
    }

    LockKeys get(int index) {
        return locks.get(index);
    }

    /** The exclusive end of the run of lock {@code index}: locks {@code index .. runEnd(index) - 1} fit one script. */
    int runEnd(int index) {
        return runEnd[index];
    }

    @Override
    public String toString() {
        return "MultiLockMembers{" + name + "}";
    }
}
