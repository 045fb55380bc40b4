package dev.baton.internal.election;

import dev.baton.Candidacy;
import dev.baton.LeaderElection;
import dev.baton.LeaderInfo;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.LockInfo;
import dev.baton.LockTimeoutException;
import dev.baton.RevocationReason;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockKeys;
import dev.baton.internal.engine.Pending;
import dev.baton.internal.engine.Waiting;
import dev.baton.internal.runtime.Events;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiConsumer;

/**
 * The {@link LeaderElection} of one name: campaigns are engine attempts on the election's lock with a lease owner of
 * their own (never a thread, so a leader's term does not depend on which thread campaigned) and the watchdog's lease;
 * the leader is read with the lock's inspect script. Also the one place a candidacy reaches the engine through.
 *
 * <p>Thread-safe; building one makes no Redis call.
 */
final class RedisLeaderElection implements LeaderElection {
    private final Elections family;
    private final LockEngine engine;
    private final ElectionDriver driver;
    private final LockKeys keys;
    private final Events events;

    RedisLeaderElection(Elections family, LockEngine engine, ElectionDriver driver, LockKeys keys, Events events) {
        this.family = family;
        this.engine = engine;
        this.driver = driver;
        this.keys = keys;
        this.events = events;
    }

    @Override
    public String name() {
        return keys.name();
    }

    @Override
    public Candidacy join(LeadershipListener listener) {
        Objects.requireNonNull(listener, "listener");
        engine.checkOpen();
        return family.join(this, listener);
    }

    @Override
    public Leadership awaitLeadership(Duration wait) throws InterruptedException {
        long waitNanos = Waiting.waitNanos(wait);
        Hold hold = engine.waiting().await(campaign(waitNanos), Waiting.OnInterruptedGrant.GIVE_BACK,
                this::giveBack);
        if (hold == null) {
            throw new LockTimeoutException("election '" + name() + "' was not won within " + wait);
        }
        return lead(hold, (term, reason) -> { });
    }

    @Override
    public Optional<LeaderInfo> leader() {
        engine.checkOpen();
        LockInfo info = engine.gateway().await(driver.inspect(keys));
        return info.holder().map(h -> new LeaderInfo(h.batonInstance(), Objects.toString(h.host(), ""), h.pid(),
                since(h.fencingToken()), h.fencingToken()));
    }

    /**
     * When a leadership of this epoch began: Baton mints a fencing token from the Redis clock in microseconds
     * ({@code lib/mint-token.lua}; on Redlock masters, from the fastest master's clock), so the epoch is its start, to
     * the microsecond, unless two grants fell in one microsecond or the clock stepped back (then a little later).
     */
    static Instant since(long epoch) {
        return Instant.EPOCH.plus(epoch, ChronoUnit.MICROS);
    }

    @Override
    public String toString() {
        return "LeaderElection{" + name() + "}";
    }

    // ---- for candidacies ----

    /** Starts a campaign: an attempt with a fresh lease owner, described by the calling thread. */
    Pending<Hold> campaign(long waitNanos) {
        return engine.attempt(driver, keys, engine.identity().newLeaseOwner(),
                engine.identity().holderOfCallingThread(), null, 1, engine.watchdogLeaseMillis(), true, waitNanos,
                false);
    }

    /** A term on a granted hold; {@code onEnd} is told once when it ends. */
    ElectedLeadership lead(Hold hold, BiConsumer<ElectedLeadership, RevocationReason> onEnd) {
        return ElectedLeadership.begin(engine, hold, events, onEnd);
    }

    /**
     * Abandons a campaign and waits (bounded) until what it had in flight is answered; a grant that raced the
     * cancellation is given back.
     */
    void giveUp(Pending<Hold> attempt) {
        try {
            attempt.cancel().get(closeWaitMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            // best effort: a grant that comes later is given back when it comes (see RedisCandidacy)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        CompletableFuture<Hold> result = attempt.result();
        if (result.isDone() && !result.isCompletedExceptionally() && result.getNow(null) != null) {
            giveBack(result.getNow(null));
        }
    }

    /** Releases a grant nobody will lead with, quietly: if Redis does not answer, it expires with its lease. */
    void giveBack(Hold hold) {
        if (hold.isHeld()) {
            try {
                engine.release(hold);
            } catch (RuntimeException e) {
                // it expires with its lease
            }
        }
    }

    /** {@link #giveBack}, from a thread that must not block (a Redis client's). */
    void giveBackLater(Hold hold) {
        engine.completeForUser(() -> giveBack(hold));
    }

    void schedule(Runnable task, long delayNanos) {
        family.schedule(task, delayNanos);
    }

    Duration recheckInterval() {
        return family.recheckInterval();
    }

    /** How long closing a candidacy waits for its last steps: a release, a cancellation, the listener's revoked. */
    long closeWaitMillis() {
        return 4 * engine.gateway().commandTimeout().toMillis() + TimeUnit.SECONDS.toMillis(5);
    }

    boolean isClosed() {
        return engine.isClosed();
    }

    RuntimeException translate(Throwable error) {
        return engine.translate(error);
    }
}
