package dev.baton.spring.autoconfigure;

import dev.baton.BatonListener;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes each event of Baton to every listener of the application in turn. A listener that throws is logged and does
 * not keep the event from the listeners after it (Baton's own event thread would otherwise catch the exception once,
 * for all of them). Baton calls it on its single event thread; the list is fixed at construction.
 */
final class CompositeBatonListener implements BatonListener {
    private static final Logger log = LoggerFactory.getLogger(CompositeBatonListener.class);

    private final List<BatonListener> listeners;

    CompositeBatonListener(List<BatonListener> listeners) {
        this.listeners = List.copyOf(listeners);
    }

    List<BatonListener> listeners() {
        return listeners;
    }

    private void each(Consumer<BatonListener> event) {
        for (BatonListener listener : listeners) {
            try {
                event.accept(listener);
            } catch (RuntimeException e) {
                log.warn("the BatonListener {} threw; the other listeners still get the event",
                        listener.getClass().getName(), e);
            }
        }
    }

    @Override
    public void lockWaiting(LockWaiting event) {
        each(l -> l.lockWaiting(event));
    }

    @Override
    public void lockAcquired(LockAcquired event) {
        each(l -> l.lockAcquired(event));
    }

    @Override
    public void lockTimedOut(LockTimedOut event) {
        each(l -> l.lockTimedOut(event));
    }

    @Override
    public void lockReleased(LockReleased event) {
        each(l -> l.lockReleased(event));
    }

    @Override
    public void lockHandedOver(LockHandedOver event) {
        each(l -> l.lockHandedOver(event));
    }

    @Override
    public void renewalFailed(RenewalFailed event) {
        each(l -> l.renewalFailed(event));
    }

    @Override
    public void leaseLost(LeaseLost event) {
        each(l -> l.leaseLost(event));
    }

    @Override
    public void rateLimitDecided(RateLimitDecided event) {
        each(l -> l.rateLimitDecided(event));
    }

    @Override
    public void leaderElected(LeaderElected event) {
        each(l -> l.leaderElected(event));
    }

    @Override
    public void leaderRevoked(LeaderRevoked event) {
        each(l -> l.leaderRevoked(event));
    }

    @Override
    public void latchCountedDown(LatchCountedDown event) {
        each(l -> l.latchCountedDown(event));
    }

    @Override
    public String toString() {
        return "CompositeBatonListener" + listeners.stream().map(l -> l.getClass().getName()).toList();
    }
}
