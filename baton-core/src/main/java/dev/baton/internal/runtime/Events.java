package dev.baton.internal.runtime;

import dev.baton.BatonListener;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Delivers a Baton's events to its {@link BatonListener} on a thread of its own, so that no listener ever runs in
 * the path of a lock operation or a rate-limit decision (and none on Lettuce's event loop, where a blocking listener
 * would stall every connection). Without a listener, {@link #emit} costs one null check and nothing is started.
 *
 * <p>The queue is bounded ({@link BatonListener#MAX_PENDING}): when the listener falls that far behind, new events
 * are dropped and counted, and the count is logged once the queue drains, rather than slowing Baton down or holding
 * memory without bound. {@link #close()} delivers what is queued, then ends the thread.
 */
public final class Events implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Events.class);
    private static final Runnable END = () -> { };

    private final BatonListener listener;
    private final BlockingQueue<Runnable> queue;
    private final Thread thread;
    private final LongAdder dropped = new LongAdder();

    public Events(BatonListener listener, String instanceId) {
        this.listener = listener;
        if (listener == null) {
            this.queue = null;
            this.thread = null;
            return;
        }
        this.queue = new ArrayBlockingQueue<>(BatonListener.MAX_PENDING);
        this.thread = new Thread(this::deliver, "baton-" + instanceId + "-events");
        thread.setDaemon(true);
        thread.start();
    }

    /** Whether anybody listens: callers skip building an event when not. */
    public boolean enabled() {
        return listener != null;
    }

    /** Queues one event for the listener; drops it (counted) if the listener is too far behind. */
    public void emit(Consumer<BatonListener> event) {
        if (listener == null) {
            return;
        }
        if (!queue.offer(() -> event.accept(listener))) {
            dropped.increment();
        }
    }

    private void deliver() {
        while (true) {
            Runnable next;
            try {
                next = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            if (next == END) {
                return;
            }
            try {
                next.run();
            } catch (RuntimeException | Error e) {
                log.warn("the BatonListener {} threw; it keeps receiving events", listener.getClass().getName(), e);
            }
            if (queue.isEmpty()) {
                long lost = dropped.sumThenReset();
                if (lost > 0) {
                    log.warn("the BatonListener {} fell more than {} events behind: {} events were dropped",
                            listener.getClass().getName(), BatonListener.MAX_PENDING, lost);
                }
            }
        }
    }

    /** Delivers what is queued (waiting up to 2 s for a slow listener), then ends the thread. */
    @Override
    public void close() {
        if (thread == null) {
            return;
        }
        try {
            if (!queue.offer(END, 2, TimeUnit.SECONDS)) {
                thread.interrupt();
            }
            thread.join(2_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (thread.isAlive()) {
            thread.interrupt();
        }
    }
}
