package dev.baton.internal.transport;

import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.IdentityHashMap;
import java.util.Set;
import java.util.function.Predicate;

/**
 * The causes of a failure, searched through its cause chain and what each link suppressed: Lettuce reports a failed
 * Sentinel lookup or cluster discovery as one exception per node, suppressed under a summary, so the reason a user has
 * to read (a refused password, an untrusted certificate) is often only there.
 */
final class Causes {

    private Causes() {
    }

    /** The first throwable (breadth first: the failure itself, then its causes and suppressed) that matches. */
    static Throwable find(Throwable failure, Predicate<Throwable> match) {
        return find(failure, (t, underSentinel) -> match.test(t));
    }

    /** A test of one cause, told whether it lies under a failed connection to a sentinel. */
    interface Match {
        boolean test(Throwable cause, boolean underSentinel);
    }

    /**
     * As {@link #find(Throwable, Predicate)}, telling the test whether the cause lies under a failed connection to a
     * sentinel (Lettuce's "Cannot connect ... Redis Sentinel" exceptions), rather than to a data node.
     */
    static Throwable find(Throwable failure, Match match) {
        Set<Throwable> seen = Collections.newSetFromMap(new IdentityHashMap<>());
        Deque<Throwable> queue = new ArrayDeque<>();
        Deque<Boolean> sentinel = new ArrayDeque<>();
        queue.add(failure);
        sentinel.add(false);
        while (!queue.isEmpty()) {
            Throwable t = queue.poll();
            boolean under = sentinel.poll() || isSentinelConnection(t);
            if (!seen.add(t)) {
                continue;
            }
            if (match.test(t, under)) {
                return t;
            }
            if (t.getCause() != null) {
                queue.add(t.getCause());
                sentinel.add(under);
            }
            for (Throwable s : t.getSuppressed()) {
                queue.add(s);
                sentinel.add(under);
            }
        }
        return null;
    }

    private static boolean isSentinelConnection(Throwable t) {
        String m = t.getMessage();
        return m != null && (m.startsWith("Cannot connect Redis Sentinel") || m.startsWith("Cannot connect to a Redis "
                + "Sentinel"));
    }
}
