package dev.baton.internal.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;

/**
 * What unit tests of a {@link LockDriver} on a fake transport need and cannot make outside this package: requests as
 * the engine builds them, {@link Hold}s to renew, keep and release without running an attempt, the futures' outcomes
 * (a driver on a fake transport completes on the test's thread, so an outcome is there or it is not), and replies of
 * {@code name-inspect.lua} in Redis's raw shape.
 */
public final class DriverKit {
    /** How a holder describes itself to operators: {@code "<instance> <pid> <host> <thread name>"}. */
    public static final String HOLDER = "inst-a 4242 host-a worker 7";
    /** A lease owner of that instance. */
    public static final String OWNER = "inst-a:L1";
    public static final long LEASE_MILLIS = 30_000;

    private DriverKit() {
    }

    /** A first try of {@link #OWNER} for one permit with a lease of {@link #LEASE_MILLIS}, started at instant 0. */
    public static AcquireRequest request(LockDriver driver, LockKeys keys) {
        return request(driver, keys, OWNER, 1, LEASE_MILLIS, 0, 0);
    }

    /**
     * A request as {@link LockEngine#attempt} builds it.
     *
     * @param heldToken    the token of the hold the owner re-enters, 0 if none
     * @param startedNanos when the caller asked, on the driver's ticker
     */
    public static AcquireRequest request(LockDriver driver, LockKeys keys, String owner, int permits, long leaseMillis,
                                         long heldToken, long startedNanos) {
        return new AcquireRequest(driver, keys, owner, HOLDER, permits, leaseMillis, heldToken, false, false,
                startedNanos, null);
    }

    /** A hold of {@code owner} with {@code token}, held once, that this process believes held for a long while. */
    public static Hold hold(LockDriver driver, LockKeys keys, String owner, long token) {
        return hold(driver, keys, owner, token, 1, Long.MAX_VALUE);
    }

    /** A hold as the engine keeps it: its count, and until when (on the ticker) it counts as held here. */
    public static Hold hold(LockDriver driver, LockKeys keys, String owner, long token, int count,
                            long expiresAtNanos) {
        return new Hold(driver, keys, owner, token, count, false, expiresAtNanos, 0, HOLDER, null);
    }

    /** The value of a future that must have completed already. */
    public static <T> T value(CompletableFuture<T> future) {
        assertThat(future).as("completed").isCompleted();
        return future.join();
    }

    /** The failure of a future that must have failed already, unwrapped from the future's wrapper. */
    public static Throwable failure(CompletableFuture<?> future) {
        assertThat(future).as("failed").isCompletedExceptionally();
        try {
            future.join();
        } catch (CompletionException e) {
            return e.getCause();
        }
        throw new AssertionError("not failed");
    }

    /** One object of {@code name-inspect.lua}'s reply: {@code {letter, lastToken, waiting, total, holder...}}. */
    @SafeVarargs
    public static List<Object> inspected(String letter, long lastToken, long waiting, long total,
                                         List<Object>... holders) {
        List<Object> entry = new ArrayList<>(List.of(letter, Long.toString(lastToken), waiting, total));
        entry.addAll(List.of(holders));
        return entry;
    }

    /**
     * One holder in that reply: {@code {owner, side, count, token, holder, remaining ms, permits}}, described by
     * {@link #HOLDER}.
     */
    public static List<Object> inspectedHolder(String owner, String side, int count, long token, long remainingMillis,
                                               long permits) {
        return List.of(owner, side, Integer.toString(count), Long.toString(token), HOLDER, remainingMillis, permits);
    }
}
