package dev.baton.internal.semaphore;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells, once per Baton and semaphore name, that a semaphore was asked for with another total than the one Redis
 * keeps ({@code semaphore("s", 8)} on an existing semaphore of 4). The stored total wins by design (docs/semaphore.md),
 * but a caller who expected 8 would otherwise only notice through fewer permits than planned. One warning per name is
 * enough to be seen and few enough not to flood a log that acquires in a loop.
 *
 * <p>Thread-safe. Equal only to itself, so that the {@link SemaphoreCalls} drivers of one Baton, which hold it,
 * stay equal to each other.
 */
public final class SemaphoreTotals {
    private static final Logger log = LoggerFactory.getLogger(SemaphoreTotals.class);

    /** Names already warned about, or whose total this Baton set itself with {@code setPermits}. */
    private final Set<String> settled = ConcurrentHashMap.newKeySet();

    /**
     * Compares the total read from Redis with the one the semaphore was asked for, and warns the first time they
     * differ for this name.
     *
     * @param name   the semaphore's name
     * @param asked  the total given to {@code Baton.semaphore(name, permits)}
     * @param stored the total in Redis
     */
    void seen(String name, int asked, long stored) {
        if (stored != asked && settled.add(name)) {
            log.warn("semaphore '{}' has {} permits in Redis; asked for {}, it keeps {}: use setPermits to change it",
                    name, stored, asked, stored);
        }
    }

    /**
     * Notes that this Baton set the total of {@code name} deliberately, after which a handle made with another total
     * is no surprise worth a warning.
     */
    void setDeliberately(String name) {
        settled.add(name);
    }
}
