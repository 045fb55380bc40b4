package dev.baton.internal.election;

import dev.baton.LeaderElection;
import dev.baton.LeadershipListener;
import dev.baton.internal.engine.LockDriver;
import dev.baton.internal.engine.LockEngine;
import dev.baton.internal.engine.LockView;
import dev.baton.internal.runtime.BatonRuntime;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The election family of one Baton: builds its {@link LeaderElection}s on the topology's mutex driver, and keeps its
 * open candidacies so that closing the Baton closes them first, while it can still resign for them (the next leader
 * is then elected at once, not after a lease).
 *
 * <p>Thread-safe.
 */
public final class Elections {
    private final BatonRuntime runtime;
    private final LockEngine engine;
    private final ElectionDriver driver;
    private final Set<RedisCandidacy> open = ConcurrentHashMap.newKeySet();

    public Elections(BatonRuntime runtime, LockEngine engine, LockDriver mutex, LockView mutexView) {
        this.runtime = runtime;
        this.engine = engine;
        this.driver = new ElectionDriver(mutex, mutexView, engine.watchdogLeaseMillis());
        runtime.beforeClose(this::closeAll);
    }

    /** The election of this (checked) name. */
    public LeaderElection election(String name) {
        return new RedisLeaderElection(this, engine, driver,
                ElectionDriver.keys(runtime.config().namespace(), name), runtime.events());
    }

    /** The election driver, for inspection. */
    public ElectionDriver driver() {
        return driver;
    }

    /** A candidacy that campaigns from now on, and is closed with the Baton unless closed before. */
    RedisCandidacy join(RedisLeaderElection election, LeadershipListener listener) {
        RedisCandidacy candidacy = new RedisCandidacy(election, listener, open::remove);
        open.add(candidacy);
        candidacy.start();
        if (runtime.isClosed()) {
            candidacy.close(); // joined while the Baton closed, after it closed the candidacies it knew
        }
        return candidacy;
    }

    void schedule(Runnable task, long delayNanos) {
        runtime.schedule(task, delayNanos);
    }

    Duration recheckInterval() {
        return runtime.config().recheckInterval();
    }

    private void closeAll() {
        for (RedisCandidacy candidacy : List.copyOf(open)) {
            candidacy.close();
        }
    }
}
