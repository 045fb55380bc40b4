package dev.baton.internal.engine;

import dev.baton.BatonUnavailableException;
import dev.baton.LockType;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
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
 * <p>That order holds only for a driver whose tries travel on the abandons' connection. A driver whose tries take
 * another connection (the replica-acknowledged lock: its script and {@code WAIT} go over connections of their own)
 * could have an abandon run after its owner's next try, and release what that try acquired; Redis runs two
 * connections' commands in no set order. Such a driver waits, before each try, until no abandon of the same owner
 * on the same lock can still run ({@link #settled}): every abandon this Baton sent for that owner and lock has been
 * answered, or one sent after it on the same connection has.
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
    private static final CompletableFuture<Void> DONE = CompletableFuture.completedFuture(null);

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
    /**
     * The last abandon sent for each owner and lock (of any kind) that Redis has not answered: it is in flight, or it
     * failed without a reply and may still run (a frozen Redis runs what it had received when it resumes). Removed
     * when it is answered, which tells that every abandon sent before it on the same connection has run. At most
     * {@value #MAX_UNCONFIRMED} are kept. Read by {@link #settled}.
     */
    private final Map<Attempted, Sent> unanswered = new ConcurrentHashMap<>();

    /** An attempt's owner, lock and kind of lock. */
    private record Unconfirmed(String owner, String lock, LockType type) {
    }

    /** An attempt's owner and lock, whatever the kind of lock: what a try on the same lock hash must wait for. */
    private record Attempted(String owner, String lock) {
        Attempted(AcquireRequest r) {
            this(r.owner(), r.keys().lock());
        }
    }

    /** One abandon handed to the connection, and its reply. */
    private record Sent(AcquireRequest request, boolean mayHoldGrant, CompletableFuture<Long> reply) {
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
     * @return the abandon's reply, or null if nothing was sent (a later try of the owner dropped this retry)
     */
    private CompletableFuture<Long> send(AcquireRequest request, boolean mayHoldGrant, Unconfirmed key,
                                         long retryMillis) {
        CompletableFuture<Long> reply;
        // Checked and sent in one step against the gate (beforeTry): a retry either goes out before a later try of its
        // owner, or finds itself dropped by that try and sends nothing.
        synchronized (order) {
            if (key != null && unconfirmed.get(key) != request) {
                return null; // a later try of the same owner sent it ahead of itself and dropped it
            }
            try {
                reply = request.driver().abandon(request, mayHoldGrant);
            } catch (RuntimeException e) { // a closed connection may refuse at once
                reply = CompletableFuture.failedFuture(e);
            }
            // A reply there already was not sent (nothing to withdraw, or refused at once), or was answered: either
            // way it cannot run later. Registered while the gate is held, so the last one sent is the one kept.
            Attempted attempted = new Attempted(request);
            if (!reply.isDone()
                    && (unanswered.size() < MAX_UNCONFIRMED || unanswered.containsKey(attempted))) {
                track(attempted, new Sent(request, mayHoldGrant, reply));
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
        return reply;
    }

    /** Keeps {@code sent} as the last abandon of its owner and lock until Redis answers it. */
    private void track(Attempted attempted, Sent sent) {
        unanswered.put(attempted, sent);
        sent.reply().whenComplete((orphan, e) -> {
            if (e == null) {
                unanswered.remove(attempted, sent);
            }
        });
    }

    /**
     * Completes once no abandon of {@code r}'s owner on {@code r}'s lock can still run in Redis, for a driver whose
     * tries do not travel on the abandons' connection (see the class comment): at once if none is unanswered, else
     * when the last one sent is answered. If that one failed without a reply (it may still run), it is sent once more,
     * behind it on the same connection, and this completes when that one is answered.
     *
     * @return a future that fails (translated) if the abandon sent once more gets no reply either: Redis does not
     *         answer, and a try must not go out while an abandon that could release its grant may still run
     */
    CompletableFuture<Void> settled(AcquireRequest r) {
        return unanswered.isEmpty() ? DONE : settled(new Attempted(r), false);
    }

    private CompletableFuture<Void> settled(Attempted attempted, boolean sentAgain) {
        Sent last;
        synchronized (order) { // a sending registers its abandon under the gate
            last = unanswered.get(attempted);
        }
        if (last == null) {
            return DONE;
        }
        CompletableFuture<Long> reply = last.reply();
        if (!reply.isDone()) {
            return reply.handle((orphan, e) -> (Void) null).thenCompose(v -> settled(attempted, sentAgain));
        }
        Throwable failure = reply.handle((orphan, e) -> e).join();
        if (failure == null) {
            unanswered.remove(attempted, last); // answered; its own callback may not have run yet
            return settled(attempted, sentAgain);
        }
        if (sentAgain) {
            return CompletableFuture.failedFuture(engine.translate(failure));
        }
        return send(last.request(), last.mayHoldGrant(), null, 0).handle((orphan, e) -> {
            if (e != null) {
                throw new CompletionException(engine.translate(e));
            }
            unanswered.remove(attempted, last); // the one answered behind it has run, or never will
            return (Void) null;
        }).thenCompose(v -> settled(attempted, true));
    }
}
