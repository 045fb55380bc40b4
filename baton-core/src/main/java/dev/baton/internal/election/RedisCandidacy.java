package dev.baton.internal.election;

import dev.baton.Candidacy;
import dev.baton.Leadership;
import dev.baton.LeadershipListener;
import dev.baton.RevocationReason;
import dev.baton.internal.engine.Hold;
import dev.baton.internal.engine.Pending;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A candidate campaigning in the background: one engine attempt at a time without a deadline (it waits for the
 * election's release notification, with the engine's bounded re-check), and when granted, a term
 * ({@link ElectedLeadership}) told to the listener; when the term ends, the candidate campaigns again (after a
 * resignation, only after one re-check interval, so that the candidates the release woke take over first; after a
 * Redis failure, after one re-check interval too, instead of hammering an unreachable Redis).
 *
 * <p>Every step runs on the candidacy's own thread, one at a time: the listener's calls come in order and never two at
 * once, and the state below needs no lock. Only {@link #isLeader()} and {@link #leadership()} read from other
 * threads, through the volatile {@link #current}.
 */
final class RedisCandidacy implements Candidacy {
    private static final Logger log = LoggerFactory.getLogger(RedisCandidacy.class);
    private static final AtomicInteger COUNT = new AtomicInteger();

    private final RedisLeaderElection election;
    private final LeadershipListener listener;
    private final ExecutorService thread;
    private final Consumer<RedisCandidacy> onClosed;
    private final AtomicBoolean closing = new AtomicBoolean();
    private volatile Thread runner;

    // ---- the candidacy thread's own state ----
    /** Set by the close step: nothing campaigns any more. */
    private boolean closed;
    /** The campaign in progress, if any. */
    private Pending<Hold> campaign;
    /**
     * Whether the last campaign failed: while Redis stays down a campaign fails every re-check interval, and only the
     * first failure of a run is worth a warning.
     */
    private boolean failing;

    /** The term in progress, if any; read by any thread. */
    private volatile ElectedLeadership current;

    RedisCandidacy(RedisLeaderElection election, LeadershipListener listener, Consumer<RedisCandidacy> onClosed) {
        this.election = election;
        this.listener = listener;
        this.onClosed = onClosed;
        String name = "baton-election-" + COUNT.incrementAndGet() + "-" + election.name();
        this.thread = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            runner = t;
            return t;
        });
    }

    void start() {
        onThread(this::campaign);
    }

    @Override
    public boolean isLeader() {
        ElectedLeadership term = current;
        return term != null && term.isValid();
    }

    @Override
    public Optional<Leadership> leadership() {
        ElectedLeadership term = current;
        return term != null && term.isValid() ? Optional.of(term) : Optional.empty();
    }

    // ---- steps, each on the candidacy thread ----

    private void campaign() {
        if (closed || campaign != null || current != null) {
            return;
        }
        Pending<Hold> attempt;
        try {
            attempt = election.campaign(Long.MAX_VALUE);
        } catch (IllegalStateException closedBaton) {
            return; // the Baton closes, and closes this candidacy
        } catch (RuntimeException e) {
            failed(e);
            return;
        }
        campaign = attempt;
        attempt.result().whenComplete((hold, error) -> {
            if (!onThread(() -> campaigned(attempt, hold, error)) && hold != null) {
                election.giveBackLater(hold); // granted after the candidacy closed: nobody will lead with it
            }
        });
    }

    private void campaigned(Pending<Hold> attempt, Hold hold, Throwable error) {
        if (campaign == attempt) {
            campaign = null;
        }
        if (error != null) {
            if (!closed && !election.isClosed()) {
                failed(election.translate(error));
            }
            return;
        }
        if (failing) {
            log.info("election '{}': campaigning again after Redis failures", election.name());
            failing = false;
        }
        if (hold == null) { // a wait without a deadline does not run out; campaign again if it ever does
            campaign();
            return;
        }
        if (closed) {
            election.giveBack(hold); // a grant that raced the close, unless the close gave it back already
            return;
        }
        ElectedLeadership term = election.lead(hold, this::ended);
        current = term;
        call(() -> listener.elected(term), "elected");
    }

    /** A term ended (any thread): tell the listener on the candidacy thread, then campaign again unless closed. */
    private void ended(ElectedLeadership term, RevocationReason reason) {
        onThread(() -> {
            if (current != term) {
                return; // a term given back before anyone was told of it
            }
            current = null;
            call(() -> listener.revoked(term, reason), "revoked");
            if (closed) {
                return;
            }
            if (reason == RevocationReason.RESIGNED || reason == RevocationReason.UNAVAILABLE) {
                campaignLater();
            } else {
                campaign();
            }
        });
    }

    private void failed(RuntimeException e) {
        if (!failing) {
            log.warn("election '{}': campaign failed (trying again every {} until Redis answers): {}",
                    election.name(), election.recheckInterval(), e.getMessage());
            failing = true;
        } else {
            log.debug("election '{}': campaign failed again: {}", election.name(), e.getMessage());
        }
        campaignLater();
    }

    private void campaignLater() {
        election.schedule(() -> onThread(this::campaign), election.recheckInterval().toNanos());
    }

    private void closeStep() {
        closed = true;
        Pending<Hold> attempt = campaign;
        campaign = null;
        if (attempt != null) {
            election.giveUp(attempt);
        }
        ElectedLeadership term = current;
        if (term != null) {
            term.closeForCandidacy(); // queues the CLOSED revocation on this thread, which runs before it ends
        }
        thread.shutdown();
    }

    @Override
    public void close() {
        if (!closing.compareAndSet(false, true)) {
            return;
        }
        try {
            onThread(this::closeStep);
            if (Thread.currentThread() != runner) {
                // A listener that is still busy holds this up, but not forever: the revocation then comes later.
                if (!thread.awaitTermination(election.closeWaitMillis(), TimeUnit.MILLISECONDS)) {
                    log.warn("election '{}': the candidacy's listener did not finish within {} ms of close()",
                            election.name(), election.closeWaitMillis());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            onClosed.accept(this);
        }
    }

    /** @return false if the candidacy is closed, and the step will not run */
    private boolean onThread(Runnable step) {
        try {
            thread.execute(step);
            return true;
        } catch (RejectedExecutionException afterClose) {
            return false; // the candidacy is closed: nothing is left to do or to tell
        }
    }

    private void call(Runnable callback, String what) {
        try {
            callback.run();
        } catch (RuntimeException e) {
            log.warn("election '{}': the listener's {} callback threw; the candidacy goes on", election.name(), what,
                    e);
        }
    }

    @Override
    public String toString() {
        return "Candidacy{election=" + election.name() + ", leader=" + isLeader() + "}";
    }
}
