package dev.baton.internal.engine;

import dev.baton.BatonUnavailableException;
import dev.baton.LockType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Withdraws, in Redis, attempts that ended without the lock: the mark a waiter left (a queue entry, a claim, an
 * intent) and, when a try got no reply, the grant such a try may have made for a caller that was told it failed
 * ({@link LockDriver#abandon}). Sent at once, on the command connection that carried the attempt's tries, so Redis
 * runs it after them, even if Redis was frozen and runs them all later (docs/lock-protocol.md, "Acquisitions whose
 * reply was lost").
 *
 * <p>If Redis does not confirm it while a grant may be orphaned, it is sent again, at growing intervals of at most
 * {@value #RETRY_MAX_MILLIS} ms, until Redis answers; and a later attempt of the same owner on the same lock sends it
 * once more right before its own try ({@link #beforeTry}) and then drops it, so that a retry can never run after, and
 * release, that later acquisition.
 *
 * <p>Thread-safe.
 */
final class Abandons {
    private static final Logger log = LoggerFactory.getLogger(Abandons.class);
    /** The first wait before an unconfirmed abandon is sent again; it doubles up to the maximum. */
    private static final long RETRY_FIRST_MILLIS = 100;
    private static final long RETRY_MAX_MILLIS = 1000;
    /**
     * At most this many unconfirmed abandons are sent again (each a script a second at most while Redis is down);
     * beyond, an orphaned grant expires with its lease, and the warning says so.
     */
    private static final int MAX_UNCONFIRMED = 4096;

    private final LockEngine engine;
    /**
     * Abandons sent for attempts whose grant may be orphaned (a try got no reply) that Redis has not confirmed yet,
     * by owner, lock and kind. Empty but during and right after an outage.
     */
    private final Map<Unconfirmed, AcquireRequest> unconfirmed = new ConcurrentHashMap<>();
    /**
     * Held while an unconfirmed abandon is checked and handed to the connection, and while a try drops the abandons of
     * its owner: the connection sends commands in the order they were handed to it, so no abandon can follow a later
     * try of its owner onto the wire.
     */
    private final Object order = new Object();

    /** An attempt's owner, lock and kind of lock. */
    private record Unconfirmed(String owner, String lock, LockType type) {
    }

    Abandons(LockEngine engine) {
        this.engine = engine;
    }

    /** Withdraws an attempt that ended without the lock; see the class comment. */
    void abandon(AcquireRequest request, boolean mayHoldGrant) {
        Unconfirmed key = null;
        if (mayHoldGrant && unconfirmed.size() < MAX_UNCONFIRMED) {
            key = new Unconfirmed(request.owner(), request.keys().lock(), request.driver().type());
            unconfirmed.put(key, request);
        }
        send(request, mayHoldGrant, key, RETRY_FIRST_MILLIS);
    }

    /**
     * Before a try of {@code r}: sends once more, and then forgets, every unconfirmed abandon of the same owner on the
     * same lock, so that Redis runs it before the try (one connection keeps its commands in order) and no retry of
     * it can come after the try and release what the try acquired.
     */
    void beforeTry(AcquireRequest r) {
        if (unconfirmed.isEmpty()) {
            return;
        }
        synchronized (order) {
            for (Map.Entry<Unconfirmed, AcquireRequest> e : unconfirmed.entrySet()) {
                Unconfirmed k = e.getKey();
                if (k.owner().equals(r.owner()) && k.lock().equals(r.keys().lock())
                        && unconfirmed.remove(k, e.getValue())) {
                    send(e.getValue(), true, null, 0);
                }
            }
        }
    }

    /**
     * One sending of an attempt's abandon; on a failure while the grant may be orphaned (and this request is still the
     * one to confirm for its owner and lock), schedules the next after {@code retryMillis}.
     *
     * @param key the request's entry in {@link #unconfirmed}, or null for a last sending that is not retried
     */
    private void send(AcquireRequest request, boolean mayHoldGrant, Unconfirmed key, long retryMillis) {
        CompletableFuture<Long> reply;
        // Checked and sent in one step against the gate (beforeTry): a retry either goes out before a later try of its
        // owner, or finds itself dropped by that try and sends nothing.
        synchronized (order) {
            if (key != null && unconfirmed.get(key) != request) {
                return; // a later try of the same owner sent it ahead of itself and dropped it
            }
            try {
                reply = request.driver().abandon(request, mayHoldGrant);
            } catch (RuntimeException e) { // a closed connection may refuse at once
                reply = CompletableFuture.failedFuture(e);
            }
        }
        reply.whenComplete((orphan, e) -> {
            String name = request.keys().name();
            if (e == null) {
                if (key != null) {
                    unconfirmed.remove(key, request);
                }
                if (orphan != null && orphan > 0) {
                    log.warn("lock '{}': an acquisition by {} whose reply was lost (its caller was told it failed) "
                            + "was granted after all, with fencing token {}; releasing it", name, request.owner(),
                            orphan);
                    engine.releaseOrphan(request.driver(), request.keys(), request.owner(), orphan);
                }
                return;
            }
            RuntimeException failure = engine.translate(e);
            boolean retry = key != null && failure instanceof BatonUnavailableException && !engine.isClosed()
                    && unconfirmed.get(key) == request;
            if (!retry) {
                if (key != null) {
                    unconfirmed.remove(key, request);
                }
                log.warn("could not withdraw the wait of {} for lock '{}'; what it left expires with its lease: {}",
                        request.owner(), name, failure.getMessage());
                return;
            }
            if (retryMillis == RETRY_FIRST_MILLIS) {
                log.warn("lock '{}': an acquisition by {} got no reply and may have been granted after its caller was "
                        + "told it failed; asking Redis to release it again until it answers: {}", name,
                        request.owner(), failure.getMessage());
            }
            engine.schedule(() -> send(request, true, key, Math.min(2 * retryMillis, RETRY_MAX_MILLIS)),
                    TimeUnit.MILLISECONDS.toNanos(retryMillis));
        });
    }
}
