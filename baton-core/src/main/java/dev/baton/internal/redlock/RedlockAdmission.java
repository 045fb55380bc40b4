package dev.baton.internal.redlock;

import dev.baton.internal.transport.QuorumTransport;
import dev.baton.internal.transport.Script;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The delayed-restart rule of a Redlock, offered rather than left to operators: a master without its admission marker
 * (it came back from a restart without its data, or was never used) takes part in no quorum until it is admitted.
 * If a majority of the masters lacks the marker, the deployment is new (or has lost the data that any guarantee
 * rested on) and they are admitted at once. Otherwise each master without one sits out the longest lease
 * ({@code BatonConfig.redlockMaxLease}), by which time every lock it may have granted before its restart has expired
 * on the other masters too: it can no longer help a second owner to a majority.
 *
 * <p>The marker holds the time, on the master's own clock, from which it takes part; whoever sets it first decides
 * ({@code redlock-admit.lua}), so every Baton sharing the masters agrees. Thread-safe.
 */
final class RedlockAdmission {
    static final Script ADMIT = Script.integer("redlock-admit");
    private static final Logger log = LoggerFactory.getLogger(RedlockAdmission.class);

    private final QuorumTransport masters;
    private final String marker;
    private final long quarantineMillis;
    /** Per master, whether an admission is on its way, so that a burst of tries sends one. */
    private final AtomicBoolean[] sending;

    RedlockAdmission(QuorumTransport masters, String namespace, Duration maxLease) {
        this.masters = masters;
        this.marker = markerKey(namespace);
        this.quarantineMillis = maxLease.toMillis();
        this.sending = new AtomicBoolean[masters.size()];
        for (int i = 0; i < sending.length; i++) {
            sending[i] = new AtomicBoolean();
        }
    }

    /** The admission marker's key on every master of a namespace. */
    static String markerKey(String namespace) {
        return namespace + ":redlock:admitted";
    }

    /** The key {@code redlock-acquire.lua} reads. */
    String marker() {
        return marker;
    }

    /**
     * Admits the masters that answered a try without a marker, at once or after the sit-out, as the caller decided
     * from that try's answers ({@code RedlockDriver}: at once only for a new deployment, where a majority has no
     * marker).
     *
     * @param unmarked the indexes of those masters
     * @param atOnce   whether they take part at once
     * @return completes with {@code atOnce} once the markers are set (or setting them failed)
     */
    CompletableFuture<Boolean> admit(List<Integer> unmarked, boolean atOnce) {
        long delay = atOnce ? 0 : quarantineMillis;
        CompletableFuture<?>[] sent = new CompletableFuture<?>[unmarked.size()];
        for (int k = 0; k < sent.length; k++) {
            int i = unmarked.get(k);
            if (!sending[i].compareAndSet(false, true)) {
                sent[k] = CompletableFuture.completedFuture(null);
                continue;
            }
            sent[k] = masters.<Long>runOn(i, ADMIT, new String[] {marker},
                    Long.toString(delay)).whenComplete((wait, e) -> {
                        sending[i].set(false);
                        if (e != null) {
                            log.debug("could not admit Redlock master {}: {}", masters.endpoint(i), e.getMessage());
                        } else if (wait > 0) {
                            log.warn("Redlock master {} has lost its data (it has no admission marker): it takes "
                                    + "part in no quorum for {} ms more, the longest lease, so that no lock it held "
                                    + "before can be granted twice (docs/redlock.md, delayed restart)",
                                    masters.endpoint(i), wait);
                        } else {
                            log.info("Redlock master {} admitted", masters.endpoint(i));
                        }
                    });
        }
        return CompletableFuture.allOf(sent).handle((v, e) -> atOnce);
    }
}
