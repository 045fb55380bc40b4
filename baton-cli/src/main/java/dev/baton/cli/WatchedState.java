package dev.baton.cli;

import dev.baton.LeaderInfo;
import dev.baton.LockInfo;
import dev.baton.LockType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * What {@code baton watch} saw under one name at one poll, and what changed since the poll before: holds acquired,
 * released, expired or handed over, and changes in waiters, a semaphore's total and a latch's count. A poll sees
 * states, not events: two changes between two polls look like one (a hold released and re-acquired by another
 * holder is a hand-over), and a hold shorter than the interval may go unseen.
 *
 * @param holds   every hold, by {@link Hold#key()}, in the order the snapshot listed them
 * @param waiting how many waiters keep a place in Redis, by kind word, for kinds that have any
 * @param totals  a semaphore's total ({@code semaphore}) and a latch's count ({@code latch}), when present
 */
record WatchedState(Map<String, Hold> holds, Map<String, Integer> waiting, Map<String, Integer> totals) {

    /** Kinds whose holds exclude each other: one holder at a time, so a new holder is a hand-over. */
    private static final Set<String> EXCLUSIVE = Set.of("lock", "fair", "write", "election");

    /**
     * One hold.
     *
     * @param kind      {@code lock}, {@code fair}, {@code read}, {@code write}, {@code semaphore} or {@code election}
     * @param instance  the holding Baton's instance id
     * @param host      its host
     * @param pid       its process id
     * @param thread    the thread that acquired it, or null if unknown (a leader read with {@code --election})
     * @param token     the fencing token (an election's epoch)
     * @param permits   permits held (a semaphore's), 1 otherwise
     * @param leaseLeft the lease left when it was seen, or null if unknown
     */
    record Hold(String kind, String instance, String host, long pid, String thread, long token, int permits,
                Duration leaseLeft) {

        /**
         * What identifies one hold across polls.
         *
         * @return its kind, its holder and its token, in one string
         */
        String key() {
            return kind + " " + instance + " " + token;
        }
    }

    /**
     * One change between two polls.
     *
     * @param event    {@code acquired}, {@code released}, {@code expired}, {@code handover}, {@code waiting},
     *                 {@code permits} or {@code count}; and at the first poll {@code held} or {@code free}
     * @param kind     the kind word of the object
     * @param hold     the hold concerned (the new one of a hand-over), or null
     * @param previous the hold handed over from, or null
     * @param value    the new number of a {@code waiting}, {@code permits} or {@code count} change, else null
     */
    record Change(String event, String kind, Hold hold, Hold previous, Integer value) {
    }

    /**
     * The state {@code Baton.inspect} read: every kind found under the name.
     *
     * @param info the snapshot
     * @return the state
     */
    static WatchedState of(LockInfo info) {
        Map<String, Hold> holds = new LinkedHashMap<>();
        Map<String, Integer> waiting = new TreeMap<>();
        Map<String, Integer> totals = new TreeMap<>();
        List<LockInfo> objects = new ArrayList<>();
        objects.add(info);
        objects.addAll(info.otherKinds());
        for (LockInfo o : objects) {
            String kind = word(o.kind());
            for (LockInfo.Holder h : o.allHolders()) {
                Hold hold = new Hold(word(h.kind()), h.batonInstance(), h.host(), h.pid(), h.thread(),
                        h.fencingToken(), h.permits(), h.remainingLease());
                holds.put(hold.key(), hold);
            }
            if (o.waiting() > 0) {
                waiting.merge(kind.equals("read") || kind.equals("write") ? "rw" : kind, o.waiting(), Integer::sum);
            }
            if ((o.kind() == LockType.SEMAPHORE || o.kind() == LockType.LATCH) && (o.permits() > 0
                    || !o.allHolders().isEmpty())) {
                totals.put(kind, o.permits());
            }
        }
        return new WatchedState(holds, waiting, totals);
    }

    /**
     * The state {@code LeaderElection.leader()} read: the leader, if any.
     *
     * @param leader the leader
     * @return the state
     */
    static WatchedState of(Optional<LeaderInfo> leader) {
        Map<String, Hold> holds = new LinkedHashMap<>();
        leader.ifPresent(l -> {
            Hold hold = new Hold("election", l.instance(), l.host(), l.pid(), null, l.epoch(), 1, null);
            holds.put(hold.key(), hold);
        });
        return new WatchedState(holds, Map.of(), Map.of());
    }

    /**
     * The state as first seen: one {@code held} change per hold (or one {@code free}), then the waiters and totals.
     *
     * @return the changes that describe it
     */
    List<Change> initially() {
        List<Change> changes = new ArrayList<>();
        holds.values().forEach(h -> changes.add(new Change("held", h.kind(), h, null, null)));
        if (holds.isEmpty()) {
            changes.add(new Change("free", null, null, null, null));
        }
        waiting.forEach((k, n) -> changes.add(new Change("waiting", k, null, null, n)));
        totals.forEach((k, n) -> changes.add(new Change(k.equals("latch") ? "count" : "permits", k, null, null, n)));
        return changes;
    }

    /**
     * What changed since {@code before}.
     *
     * @param before  the previous poll's state
     * @param elapsed the time between the two polls: a hold that disappears with less lease left than that when it
     *                was last seen is reported {@code expired}, otherwise {@code released}
     * @return the changes, hand-overs first, then releases, acquisitions, waiters and totals
     */
    List<Change> since(WatchedState before, Duration elapsed) {
        List<Change> changes = new ArrayList<>();
        Map<String, Hold> gone = new LinkedHashMap<>(before.holds);
        gone.keySet().removeAll(holds.keySet());
        Map<String, Hold> added = new LinkedHashMap<>(holds);
        added.keySet().removeAll(before.holds.keySet());
        for (String kind : EXCLUSIVE) {
            List<Hold> from = gone.values().stream().filter(h -> h.kind().equals(kind)).toList();
            List<Hold> to = added.values().stream().filter(h -> h.kind().equals(kind)).toList();
            if (from.size() == 1 && to.size() == 1) {
                changes.add(new Change("handover", kind, to.get(0), from.get(0), null));
                gone.remove(from.get(0).key());
                added.remove(to.get(0).key());
            }
        }
        for (Hold h : gone.values()) {
            boolean ranOut = h.leaseLeft() != null && h.leaseLeft().compareTo(elapsed) <= 0;
            changes.add(new Change(ranOut ? "expired" : "released", h.kind(), h, null, null));
        }
        for (Hold h : added.values()) {
            changes.add(new Change("acquired", h.kind(), h, null, null));
        }
        numbers(changes, "waiting", before.waiting, waiting);
        Integer total = totals.get("semaphore");
        Integer totalBefore = before.totals.get("semaphore");
        if (total != null && totalBefore != null && !total.equals(totalBefore)) {
            // Only while the semaphore is seen in use: a free one is not reported, so its total is unknown then.
            changes.add(new Change("permits", "semaphore", null, null, total));
        }
        Integer count = totals.get("latch");
        if (!Objects.equals(count, before.totals.get("latch"))) {
            changes.add(new Change("count", "latch", null, null, count == null ? 0 : count));
        }
        return changes;
    }

    private static void numbers(List<Change> changes, String event, Map<String, Integer> before,
                                Map<String, Integer> now) {
        Set<String> kinds = new java.util.TreeSet<>(before.keySet());
        kinds.addAll(now.keySet());
        for (String kind : kinds) {
            int was = before.getOrDefault(kind, 0);
            int is = now.getOrDefault(kind, 0);
            if (was != is) {
                changes.add(new Change(event, kind, null, null, is));
            }
        }
    }

    /**
     * The word for a kind, as in docs/key-layout.md, except that the sides of a read-write lock are told apart.
     *
     * @param type the kind
     * @return {@code lock}, {@code fair}, {@code read}, {@code write}, {@code semaphore}, {@code election} or
     *         {@code latch}
     */
    static String word(LockType type) {
        return switch (type) {
            case LOCK -> "lock";
            case FAIR -> "fair";
            case READ -> "read";
            case WRITE -> "write";
            case SEMAPHORE -> "semaphore";
            case ELECTION -> "election";
            case LATCH -> "latch";
        };
    }
}
