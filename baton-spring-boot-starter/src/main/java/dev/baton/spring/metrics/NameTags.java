package dev.baton.spring.metrics;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The cardinality guard of the {@code name} tag: the first {@code maxNames} distinct names each keep a tag value of
 * their own, every later one is tagged {@value #OTHER}, so that per-user or per-order lock names cannot grow the
 * meter registry without bound. First come, first served, for the life of the application. Thread-safe.
 */
final class NameTags {
    /** The tag value of names beyond the limit. */
    static final String OTHER = "other";

    private final int maxNames;
    private final Set<String> admitted = ConcurrentHashMap.newKeySet();
    private final AtomicInteger count = new AtomicInteger();

    /**
     * @param maxNames how many names get a tag value of their own, at least 0
     * @throws IllegalArgumentException if {@code maxNames} is negative
     */
    NameTags(int maxNames) {
        if (maxNames < 0) {
            throw new IllegalArgumentException("maxNames must not be negative: " + maxNames);
        }
        this.maxNames = maxNames;
    }

    /**
     * The tag value for a name.
     *
     * @param name a lock or limiter name
     * @return the name itself if admitted (now or before), else {@value #OTHER}
     */
    String tag(String name) {
        if (admitted.contains(name)) {
            return name;
        }
        // Reserve a slot before admitting, so that concurrent callers can never admit more than maxNames.
        while (true) {
            int current = count.get();
            if (current >= maxNames) {
                return admitted.contains(name) ? name : OTHER;
            }
            if (count.compareAndSet(current, current + 1)) {
                if (!admitted.add(name)) {
                    count.decrementAndGet(); // another caller admitted the same name meanwhile
                }
                return name;
            }
        }
    }
}
