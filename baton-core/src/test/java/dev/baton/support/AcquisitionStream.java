package dev.baton.support;

import dev.baton.BatonUnavailableException;
import dev.baton.DistributedLock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

/**
 * One thread that takes and releases a lock in a loop, as an application's busy worker would, while a test disturbs
 * Redis (a failover, a slot migration). Each round is one {@code tryLock()} (a single try) and, if granted, a write of
 * the fencing token to a {@link FencedResource} and an {@code unlock()}. It records what every call did, so that the
 * test can assert that nothing but the documented outcomes happened:
 * <ul>
 *   <li>granted: the token, and whether the resource accepted it;</li>
 *   <li>unavailable: a {@link BatonUnavailableException} from either call (Redis could not serve it);</li>
 *   <li>lost: the unlock found the lock gone ({@link IllegalMonitorStateException} saying so), which asynchronous
 *       replication allows across a failover;</li>
 *   <li>refused: {@code tryLock()} returned false, although nobody else uses the lock;</li>
 *   <li>anything else thrown, kept as unexpected;</li>
 * </ul>
 * and how long the slowest call took.
 */
public final class AcquisitionStream implements AutoCloseable {
    /** A granted round: when its tryLock was called (System.nanoTime()), its token, and the resource's answer. */
    public record Grant(long startedNanos, long token, boolean written) {
    }

    private final DistributedLock lock;
    private final FencedResource resource;
    private final Thread thread;
    private final List<Grant> grants = new CopyOnWriteArrayList<>();
    private final List<Throwable> unexpected = new CopyOnWriteArrayList<>();
    private volatile int unavailable;
    private volatile int lost;
    private volatile int refused;
    private volatile long slowestCallNanos;
    private volatile boolean stop;

    private AcquisitionStream(DistributedLock lock, FencedResource resource) {
        this.lock = lock;
        this.resource = resource;
        this.thread = new Thread(this::run, "acquisition-stream-" + lock.name());
        thread.setDaemon(true);
    }

    /** Starts the stream on {@code lock}, writing each token to {@code resource}. */
    public static AcquisitionStream start(DistributedLock lock, FencedResource resource) {
        AcquisitionStream stream = new AcquisitionStream(lock, resource);
        stream.thread.start();
        return stream;
    }

    private void run() {
        while (!stop) {
            long started = System.nanoTime();
            try {
                boolean granted = timed(lock::tryLock);
                if (!granted) {
                    refused++;
                    continue;
                }
                long token = lock.fencingToken();
                boolean written = resource.write(token, "stream");
                grants.add(new Grant(started, token, written));
                timed(() -> {
                    lock.unlock();
                    return true;
                });
            } catch (BatonUnavailableException e) {
                unavailable++;
            } catch (IllegalMonitorStateException e) {
                if (String.valueOf(e.getMessage()).contains("lost")) {
                    lost++;
                } else {
                    unexpected.add(e);
                }
            } catch (Throwable t) {
                unexpected.add(t);
            }
        }
    }

    private interface Call {
        boolean run();
    }

    private boolean timed(Call call) {
        long start = System.nanoTime();
        try {
            return call.run();
        } finally {
            slowestCallNanos = Math.max(slowestCallNanos, System.nanoTime() - start);
        }
    }

    /** Granted rounds whose tryLock was called after {@code nanos} (a System.nanoTime() reading). */
    public long grantedSince(long nanos) {
        return grants.stream().filter(g -> g.startedNanos() - nanos > 0).count();
    }

    public List<Grant> grants() {
        return new ArrayList<>(grants);
    }

    public List<Long> tokens() {
        return grants.stream().map(Grant::token).toList();
    }

    public long rejectedWrites() {
        return grants.stream().filter(g -> !g.written()).count();
    }

    public int unavailable() {
        return unavailable;
    }

    public int lost() {
        return lost;
    }

    public int refused() {
        return refused;
    }

    public List<Throwable> unexpected() {
        return new ArrayList<>(unexpected);
    }

    /** The longest time between the starts of two consecutive granted rounds: how long the stream was held up. */
    public Duration longestGap() {
        long longest = 0;
        List<Grant> all = grants();
        for (int i = 1; i < all.size(); i++) {
            longest = Math.max(longest, all.get(i).startedNanos() - all.get(i - 1).startedNanos());
        }
        return Duration.ofNanos(longest);
    }

    public Duration slowestCall() {
        return Duration.ofNanos(slowestCallNanos);
    }

    @Override
    public String toString() {
        return "AcquisitionStream[" + grants.size() + " granted, " + unavailable + " unavailable, " + lost
                + " lost at unlock, " + refused + " refused, " + unexpected.size() + " unexpected, slowest call "
                + TimeUnit.NANOSECONDS.toMillis(slowestCallNanos) + " ms, longest gap " + longestGap().toMillis()
                + " ms]";
    }

    /** Stops the loop and waits for its last round (bounded: every call in it is). */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(30));
    }
}
